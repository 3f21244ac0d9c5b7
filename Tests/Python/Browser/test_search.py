"""Going from match to match in the demo (GET /sessions/{sid}/matches): Enter and Shift+Enter in
the search box, F3 and Shift+F3, the buttons; "match N of M"; a match hidden under a collapsed
row is revealed; a collapsed row of a filtered view shows how many matches it hides.

Expected answers come from the API itself (the matches in tree order, the rows' matchesBelow),
so the test checks the page against the server (the page's own view), on the outline sample
(38 nodes, all expanded).
"""
import json
import urllib.request

import pytest

from browser_ui import open_outline, reach, view_path

FOCUSED = "() => { const e = document.querySelector('#tree .row.focused'); return e ? e.dataset.id : null; }"


@pytest.fixture(scope="module")
def page(context, base_url):
    p = context.new_page()
    open_outline(p, base_url)
    return p


def get(base_url, path):
    with urllib.request.urlopen(base_url + path, timeout=10) as r:
        return json.load(r)


def idle(page):
    page.wait_for_timeout(50)
    page.wait_for_function("document.getElementById('tree').getAttribute('aria-busy') === 'false'")


def test_next_and_previous_match(page, base_url):
    view = view_path(page)
    page.fill("#search", "ce")
    page.wait_for_function("document.getElementById('counts').textContent.startsWith('6 matches')")
    idle(page)
    everything = get(base_url, f"{view}/matches?filter=ce&limit=100")
    ids = [str(m["id"]) for m in everything["matches"]]
    assert len(ids) == everything["matchCount"] == 6

    def expect_at(k):
        page.wait_for_function(f"document.getElementById('match-place').textContent === 'match {k + 1} of 6'")
        page.wait_for_function(f"({FOCUSED})() === {json.dumps(ids[k])}")

    # From the focused row (not a match) to the next match, and on, around the end.
    here = page.evaluate(FOCUSED)
    first = 0 if here is None else \
        get(base_url, f"{view}/matches?filter=ce&wrap=true&after={here}")["matches"][0]["ordinal"]
    page.press("#search", "Enter")
    expect_at(first)
    for step in range(1, 7):
        page.press("#search", "Enter")
        expect_at((first + step) % 6)
    page.press("#search", "Shift+Enter")
    expect_at((first + 5) % 6)
    page.keyboard.press("F3")
    expect_at(first % 6)
    page.click("#prev-match")
    expect_at((first + 5) % 6)
    page.click("#next-match")
    expect_at(first % 6)


def test_a_hidden_match_is_revealed_and_collapsed_rows_show_a_badge(page, base_url):
    view = view_path(page)
    # Collapse the first root in the filtered view: its matches are hidden, its row counts them.
    page.locator("#row-0 button.disc").click()
    idle(page)
    rows = get(base_url, f"{view}/rows?filter=ce&limit=100")["rows"]
    assert rows[0]["expanded"] is False and rows[0]["matchesBelow"] > 0
    badge = page.locator("#row-0 .badge")
    assert badge.text_content() == f"{rows[0]['matchesBelow']} matches"
    assert page.locator("#tree .badge").count() == sum(
        1 for r in rows if r["hasChildren"] and not r["expanded"] and r["matchesBelow"] > 0)
    # The first match is under it: going there reveals it.
    first = get(base_url, f"{view}/matches?filter=ce")["matches"][0]
    assert first["index"] is None
    page.locator("#row-0").click()
    page.click("#next-match")
    page.wait_for_function(f"({FOCUSED})() === {json.dumps(str(first['id']))}")
    idle(page)
    assert page.locator("#row-0").get_attribute("aria-expanded") == "true"
    assert page.locator("#row-0 .badge").count() == 0
    assert page.text_content("#match-place") == "match 1 of 6"
    page.fill("#search", "")
    page.wait_for_function("document.getElementById('counts').textContent === '38 rows of 38 nodes'")


@pytest.mark.parametrize("mode, text, diacritics, leaves", [
    ("words", "layout comp", False, False),
    ("fuzzy", "cmpl", False, False),
    ("contains", "e", False, True),
    ("contains", "CELL", True, False),
])
def test_match_modes_and_options(page, base_url, mode, text, diacritics, leaves):
    """The mode and option switches name the view: the page shows the counts the API gives."""
    view = view_path(page)
    reach(page, "#match").select_option(mode)
    reach(page, "#diacritics").set_checked(diacritics)
    reach(page, "#leaves").set_checked(leaves)
    page.fill("#search", text)
    query = f"filter={urllib.request.quote(text)}&match={mode}" \
        + ("&diacritics=insensitive" if diacritics else "") + ("&leavesOnly=true" if leaves else "")
    expected = get(base_url, f"{view}/rows?{query}&limit=0")
    count = expected["matchCount"]
    text_expected = f"{count:,} {'match' if count == 1 else 'matches'} · {expected['total']:,} {'row' if expected['total'] == 1 else 'rows'}"
    page.wait_for_function("t => document.getElementById('counts').textContent === t", arg=text_expected)
    idle(page)
    page.fill("#search", "")
    reach(page, "#match").select_option("contains")
    reach(page, "#diacritics").set_checked(False)
    reach(page, "#leaves").set_checked(False)
    page.wait_for_function("document.getElementById('counts').textContent === '38 rows of 38 nodes'")
