"""The demo page at GET / in a real browser (Debian chromium, Playwright for Python).

The tests run in file order against one page: the outline sample, then the generated tree of
88,572 nodes (the seed's menuItems(targetNestLevel: 10, itemsInSection: 3)) expanded.
"""
import os
import random
import re
import time

import pytest

from browser_ui import VIEW_PATH, load, reach, view_path

ROW_H = 26
INDENT, INDENT_START = 18, 8  # px per level, px before the first level (demo.css, demo.js)
N88K = 88572  # 3 + 9 + ... + 3^10


def model(levels=10, per=3):
    """The generated tree fully expanded: (title, level) of each visible row, depth first."""
    rows = []

    def walk(level):
        for i in range(1, per + 1):
            rows.append((f"Level {level}, item: {i}", level))
            if level + 1 < levels:
                walk(level + 1)

    walk(0)
    return rows


MODEL = model()
assert len(MODEL) == N88K

VISIBLE_ROWS = """() => {
  const t = document.getElementById('tree').getBoundingClientRect();
  return [...document.querySelectorAll('#tree [role=treeitem]')]
    .filter(e => { const r = e.getBoundingClientRect(); return r.bottom > t.top + 1 && r.top < t.bottom - 1; })
    .map(e => ({ index: +e.dataset.index, title: e.querySelector('.title').textContent,
                 level: +e.getAttribute('aria-level'), expanded: e.getAttribute('aria-expanded'),
                 focused: e.classList.contains('focused'), hasButton: !!e.querySelector('button.disc'),
                 marks: [...e.querySelectorAll('mark')].map(m => m.textContent),
                 indent: parseFloat(getComputedStyle(e).paddingLeft) }))
    .sort((a, b) => a.index - b.index);
}"""

IDLE = """() => {
  const t = document.getElementById('tree');
  if (t.getAttribute('aria-busy') !== 'false') return false;
  const r = t.getBoundingClientRect();
  return ![...t.querySelectorAll('.row.loading')].some(e => {
    const b = e.getBoundingClientRect(); return b.bottom > r.top + 1 && b.top < r.bottom - 1; });
}"""


def idle(page):
    page.wait_for_timeout(50)
    page.wait_for_function(IDLE)


def visible(page):
    idle(page)
    return page.evaluate(VISIBLE_ROWS)


def counts(page, text):
    page.wait_for_function("t => document.getElementById('counts').textContent === t", arg=text)
    idle(page)


def row(page, index):
    return page.locator(f"#row-{index}")


def expected_indent(level0):
    return INDENT_START + INDENT * level0


def check_rows_match(rows, expected_from_index):
    assert rows, "no rows visible"
    for r in rows:
        title, level = expected_from_index(r["index"])
        assert (r["title"], r["level"]) == (title, level + 1), r


@pytest.fixture(scope="module")
def page(context, base_url):
    p = context.new_page()
    p.uploads, p.views = [], []  # the sessions and the views the page made
    p.on("request", lambda r: (p.views if "/views" in r.url else p.uploads).append(r.url)
         if r.method == "POST" and "/sessions" in r.url else None)
    p.goto(base_url + "/")
    return p


def test_a_visit_creates_no_session_and_load_opens_the_outline_sample(page):
    """GET / shows how to start and creates nothing; Load does; a reload reuses the session in the URL."""
    page.wait_for_selector("#state:not([hidden])")
    assert page.text_content("#state-title") == "No tree open yet"
    page.wait_for_timeout(300)
    assert page.uploads == [] and "session=" not in page.url
    assert page.locator("#tree [role=treeitem]").count() == 0
    page.click("#state button.primary")  # "Load the outline sample"
    counts(page, "38 rows of 38 nodes")
    assert len(page.uploads) == 1
    sid = re.search(r"session=([^&]+)", page.url).group(1)
    assert len(page.views) == 1  # the tab's own view of the session
    view = view_path(page)
    page.reload()
    counts(page, "38 rows of 38 nodes")
    assert len(page.uploads) == 1 and re.search(r"session=([^&]+)", page.url).group(1) == sid
    assert len(page.views) == 1 and view_path(page) == view  # kept in the tab's sessionStorage
    rows = visible(page)
    assert rows[0]["title"] == "Compositional Layout"
    assert rows[0]["level"] == 1 and rows[0]["expanded"] == "true" and rows[0]["hasButton"]
    leaf = next(r for r in rows if r["title"] == "Grid")
    assert leaf["level"] == 3 and leaf["expanded"] is None and not leaf["hasButton"]
    assert page.get_attribute("#tree", "role") == "tree"
    assert re.search(r"\?session=", page.url)


def test_generated_88k_expanded_renders_virtualized(page):
    started = time.monotonic()
    load(page, "gen88k", "all")
    counts(page, "88,572 rows of 88,572 nodes")
    print(f"88K session created and first rows shown in {time.monotonic() - started:.2f} s")
    rows = visible(page)
    check_rows_match(rows, lambda i: MODEL[i])
    assert rows[0]["title"] == "Level 0, item: 1" and rows[0]["expanded"] == "true"
    in_dom = page.locator("#tree [role=treeitem]").count()
    assert 10 <= in_dom <= 300, f"{in_dom} rows in the DOM"
    assert page.evaluate("document.getElementById('tree').scrollHeight") == N88K * ROW_H
    for r in rows[:10]:
        assert abs(r["indent"] - expected_indent(r["level"] - 1)) < 0.05, r
    assert page.get_attribute("#tree", "aria-activedescendant") == "row-0"


def test_scrolling_to_the_end_shows_the_deepest_last_rows(page):
    page.evaluate("document.getElementById('tree').scrollTop = 1e9")
    rows = visible(page)
    assert rows[-1]["index"] == N88K - 1
    check_rows_match(rows, lambda i: MODEL[i])
    assert [r["title"] for r in rows[-3:]] == ["Level 9, item: 1", "Level 9, item: 2", "Level 9, item: 3"]
    assert all(r["level"] == 10 for r in rows[-3:])
    assert page.locator("#tree [role=treeitem]").count() <= 300
    # Through the middle, by scrolling step by step.
    for top in (500_000, 1_000_000, 1_500_000):
        page.evaluate(f"document.getElementById('tree').scrollTop = {top}")
        check_rows_match(visible(page), lambda i: MODEL[i])
    page.evaluate("document.getElementById('tree').scrollTop = 0")
    check_rows_match(visible(page), lambda i: MODEL[i])


def test_disclosure_collapses_and_expands_patching_the_cache(page):
    requests = []
    page.on("request", lambda r: requests.append(r.url) if "/rows" in r.url and "limit=0" not in r.url else None)
    # Row 8 is "Level 8, item: 1" with three leaf children (rows 9-11), all loaded.
    assert row(page, 8).get_attribute("aria-expanded") == "true"
    row(page, 8).locator("button.disc").click()
    counts(page, "88,569 rows of 88,572 nodes")
    assert row(page, 8).get_attribute("aria-expanded") == "false"
    rows = visible(page)
    collapsed = MODEL[:9] + MODEL[12:]
    check_rows_match(rows, lambda i: collapsed[i])
    # The rows after the collapsed item came from the splice, not from the server again:
    # only the item's own row was refetched.
    assert requests and all("offset=8&limit=1" in u for u in requests), requests
    requests.clear()
    row(page, 8).locator("button.disc").click()
    counts(page, "88,572 rows of 88,572 nodes")
    assert row(page, 8).get_attribute("aria-expanded") == "true"
    check_rows_match(visible(page), lambda i: MODEL[i])
    # The first root: 29,523 descendants go and come back.
    row(page, 0).locator("button.disc").click()
    counts(page, "59,049 rows of 88,572 nodes")
    rows = visible(page)
    assert rows[0]["expanded"] == "false"
    assert rows[1]["title"] == "Level 0, item: 2" and rows[1]["level"] == 1
    row(page, 0).locator("button.disc").click()
    counts(page, "88,572 rows of 88,572 nodes")
    check_rows_match(visible(page), lambda i: MODEL[i])


def test_search_highlights_matches_and_clearing_keeps_expansion(page):
    row(page, 8).locator("button.disc").click()  # a collapsed item in the unfiltered view
    counts(page, "88,569 rows of 88,572 nodes")
    page.fill("#search", "level 2, ITEM: 3")
    counts(page, "9 matches · 21 rows")
    rows = visible(page)
    assert len(rows) == 21
    matched = [r for r in rows if r["marks"]]
    assert len(matched) == 9
    for r in matched:
        assert r["marks"] == ["Level 2, item: 3"] and r["level"] == 3 and r["expanded"] == "false"
    assert all(not r["marks"] and r["expanded"] == "true" for r in rows if r not in matched)
    assert page.locator("#tree mark").count() == 9
    # Expanding a matched item in the filtered view shows all its children.
    first = matched[0]["index"]
    row(page, first).locator("button.disc").click()
    counts(page, "9 matches · 24 rows")
    # Prefix match, then case-sensitive: other views, each built afresh.
    reach(page, "#match").select_option("prefix")
    counts(page, "9 matches · 21 rows")
    reach(page, "#case").check()
    counts(page, "0 matches · 0 rows")
    assert page.locator("#state").is_visible()
    assert page.text_content("#state-title") == "No title matches “level 2, ITEM: 3”"
    page.fill("#search", "Level 1")
    counts(page, "9 matches · 12 rows")
    reach(page, "#case").uncheck()
    reach(page, "#match").select_option("contains")
    # Clearing returns to the unfiltered view with its expansion state intact.
    page.fill("#search", "")
    counts(page, "88,569 rows of 88,572 nodes")
    assert row(page, 8).get_attribute("aria-expanded") == "false"
    check_rows_match(visible(page), lambda i: (MODEL[:9] + MODEL[12:])[i])
    row(page, 8).locator("button.disc").click()
    counts(page, "88,572 rows of 88,572 nodes")


def test_keyboard_navigation(page):
    def active():
        return page.get_attribute("#tree", "aria-activedescendant")

    def wait_active(expected):
        page.wait_for_function("id => document.getElementById('tree').getAttribute('aria-activedescendant') === id",
                               arg=expected)

    row(page, 0).locator(".title").click()
    wait_active("row-0")
    assert page.evaluate("document.activeElement.id") == "tree"
    page.keyboard.press("ArrowDown")
    wait_active("row-1")
    page.keyboard.press("ArrowLeft")  # collapses "Level 1, item: 1" (9,840 descendants)
    counts(page, "78,732 rows of 88,572 nodes")
    assert row(page, 1).get_attribute("aria-expanded") == "false"
    assert active() == "row-1"
    page.keyboard.press("ArrowLeft")  # to the parent
    wait_active("row-0")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowRight")  # expands
    counts(page, "88,572 rows of 88,572 nodes")
    assert row(page, 1).get_attribute("aria-expanded") == "true"
    page.keyboard.press("ArrowRight")  # enters the first child
    wait_active("row-2")
    assert row(page, 2).get_attribute("aria-level") == "3"
    page.keyboard.press("End")
    wait_active(f"row-{N88K - 1}")
    rows = visible(page)
    assert rows[-1]["focused"] and rows[-1]["title"] == "Level 9, item: 3"
    page.keyboard.press("ArrowLeft")  # a leaf: to its parent, "Level 8, item: 3"
    wait_active(f"row-{N88K - 4}")
    assert row(page, N88K - 4).locator(".title").text_content() == "Level 8, item: 3"
    page.keyboard.press("Home")
    wait_active("row-0")
    assert page.evaluate("document.getElementById('tree').scrollTop") == 0
    page.keyboard.press("Enter")
    counts(page, "59,049 rows of 88,572 nodes")
    page.keyboard.press("Enter")
    counts(page, "88,572 rows of 88,572 nodes")
    check_rows_match(visible(page), lambda i: MODEL[i])


def test_expand_all_collapse_all_expand_to_depth(page):
    reach(page, "#collapse-all").click()
    counts(page, "3 rows of 88,572 nodes")
    assert [r["expanded"] for r in visible(page)] == ["false"] * 3
    reach(page, "#depth").fill("2")
    reach(page, "#expand-depth").click()
    counts(page, "39 rows of 88,572 nodes")  # levels 0 and 1 expanded: 3 + 9 + 27 rows
    rows = visible(page)
    assert [r["level"] for r in rows[:6]] == [1, 2, 3, 3, 3, 2]
    assert [r["expanded"] for r in rows[:3]] == ["true", "true", "false"]
    reach(page, "#expand-all").click()
    counts(page, "88,572 rows of 88,572 nodes")
    check_rows_match(visible(page), lambda i: MODEL[i])


def test_attach_to_an_existing_session(page, context, base_url):
    """Another tab on the page's address (`?session=ID&expand=all`) gets a view of its own,
    started as the tree was loaded; what it collapses stays in it (test_views.py: edits)."""
    assert "&expand=all" in page.url
    other = context.new_page()
    try:
        other.goto(page.url)
        counts(other, "88,572 rows of 88,572 nodes")
        check_rows_match(visible(other), lambda i: MODEL[i])
        assert view_path(other) != view_path(page)
        other.locator("#row-0 button.disc").click()
        counts(other, "59,049 rows of 88,572 nodes")
        page.wait_for_timeout(500)
        counts(page, "88,572 rows of 88,572 nodes")
    finally:
        other.close()


# The rows of the page's own view, as the server has them.
SERVER_ROWS = """async ([offset, limit, filter]) => {
  const q = `offset=${offset}&limit=${limit}` + (filter ? '&filter=' + encodeURIComponent(filter) : '');
  const res = await fetch(`${(""" + VIEW_PATH + """)()}/rows?${q}`);
  return await res.json();
}"""


def test_random_operations_keep_the_rows_in_step_with_the_server(page):
    """Random clicks, keys and view changes; after each, the rows shown are the server's."""
    seed = int(os.environ.get("BROWSER_TEST_SEED", random.randrange(1 << 30)))
    rng = random.Random(seed)
    load(page, "gen88k", "2")
    counts(page, "39 rows of 88,572 nodes")
    filters = ["", "", "item: 1", "level 3", "2, item: 3"]
    current = ""
    for step in range(50):
        rows = visible(page)
        op = rng.random()
        togglable = [r for r in rows if r["hasButton"]]
        if op < 0.6 and togglable:
            r = rng.choice(togglable)
            row(page, r["index"]).locator("button.disc").click(modifiers=["Shift"] if rng.random() < 0.1 else [])
            what = f"toggle {r['index']} {r['title']}"
        elif op < 0.7 and rows:
            r = rng.choice(rows)
            row(page, r["index"]).locator(".title").click()
            key = rng.choice(["ArrowRight", "ArrowLeft", "Enter", "ArrowDown", "End", "Home"])
            page.keyboard.press(key)
            what = f"{key} on {r['index']}"
        elif op < 0.75 and rows:
            # A burst without waiting: the changes queue, and page answers race with them.
            row(page, rng.choice(rows)["index"]).locator(".title").click()
            keys = [rng.choice(["Enter", "ArrowDown", "ArrowUp", "ArrowRight", "ArrowLeft", "PageDown"]) for _ in range(4)]
            for key in keys:
                page.keyboard.press(key)
            what = f"burst {keys}"
        elif op < 0.8:
            depth = rng.randrange(0, 5)
            reach(page, "#depth").fill(str(depth))
            reach(page, "#expand-depth").click()
            what = f"expand to depth {depth}"
        elif op < 0.85:
            reach(page, rng.choice(["#collapse-all", "#expand-all"])).click()
            what = "collapse/expand all"
        elif op < 0.93:
            current = rng.choice(filters)
            page.fill("#search", current)
            page.press("#search", "Enter")
            what = f"filter {current!r}"
        else:
            page.evaluate(f"document.getElementById('tree').scrollTop = document.getElementById('tree').scrollHeight * {rng.random()}")
            what = "scroll"
        idle(page)
        page.wait_for_timeout(30)
        idle(page)
        shown = visible(page)
        total = int(re.search(r"([\d,]+) rows?", page.text_content("#counts")).group(1).replace(",", ""))
        if not shown:
            assert total == 0, f"seed {seed}, step {step} ({what}): no rows shown of {total}"
            continue
        server = page.evaluate(SERVER_ROWS, [shown[0]["index"], len(shown), current])
        assert server["total"] == total, f"seed {seed}, step {step} ({what})"
        for mine, theirs in zip(shown, server["rows"]):
            expected = {"index": theirs["index"], "title": theirs["title"], "level": theirs["level"] + 1,
                        "expanded": ("true" if theirs["expanded"] else "false") if theirs["hasChildren"] else None,
                        "marks": [theirs["title"][a:a + n] for a, n in theirs.get("matchRanges", [])]}
            got = {k: mine[k] for k in expected}
            assert got == expected, f"seed {seed}, step {step} ({what})"
    page.fill("#search", "")
    page.press("#search", "Enter")
    idle(page)


@pytest.mark.skipif(os.environ.get("BROWSER_TEST_LARGE") == "0", reason="BROWSER_TEST_LARGE=0")
def test_generated_797k_scaled_scrolling(page):
    big = model(12, 3)
    assert len(big) == 797160
    started = time.monotonic()
    load(page, "gen797k", "all")
    page.wait_for_function("document.getElementById('counts').textContent === '797,160 rows of 797,160 nodes'",
                           timeout=180000)
    print(f"797K session created and shown in {time.monotonic() - started:.2f} s")
    check_rows_match(visible(page), lambda i: big[i])
    height = page.evaluate("document.getElementById('tree').scrollHeight")
    assert height < 797160 * ROW_H  # past the browsers' element height cap: the scroll is scaled
    for fraction in (0.25, 0.5, 0.999):
        page.evaluate(f"document.getElementById('tree').scrollTop = {int(height * fraction)}")
        rows = visible(page)
        check_rows_match(rows, lambda i: big[i])
        assert [r["index"] for r in rows] == list(range(rows[0]["index"], rows[0]["index"] + len(rows)))
    page.evaluate("document.getElementById('tree').scrollTop = 1e9")
    rows = visible(page)
    check_rows_match(rows, lambda i: big[i])
    assert rows[-1]["index"] == 797159 and rows[-1]["title"] == "Level 11, item: 3" and rows[-1]["level"] == 12
    page.locator("#tree").focus()
    page.keyboard.press("Home")
    rows = visible(page)
    assert rows[0]["index"] == 0 and rows[0]["title"] == "Level 0, item: 1"
    assert page.locator("#tree [role=treeitem]").count() <= 300
    # Another client of the page's view names other filters while its filtered rows are built:
    # the build is cancelled (409 filter-superseded) and the page asks again.
    page.fill("#search", "item: 2")
    page.press("#search", "Enter")
    for other in ("item: 3", "Level 7"):
        page.wait_for_timeout(30)
        page.evaluate(SERVER_ROWS, [0, 1, other])
    page.wait_for_function("document.getElementById('counts').textContent.startsWith('265,720 matches')",
                           timeout=120000)
    shown = visible(page)
    server = page.evaluate(SERVER_ROWS, [shown[0]["index"], len(shown), "item: 2"])
    assert [r["title"] for r in shown] == [r["title"] for r in server["rows"]]
    assert any(r["marks"] for r in shown)
    page.fill("#search", "")
    page.press("#search", "Enter")
    counts(page, "797,160 rows of 797,160 nodes")


def test_attaching_to_an_unknown_session_says_so(browser, base_url):
    lonely = browser.new_page()  # its own context: the 404 it provokes is expected
    try:
        lonely.goto(base_url + "/?session=no-such-session")
        lonely.wait_for_function("document.getElementById('status-request').textContent.includes('Cannot attach')")
        assert lonely.locator("#tree [role=treeitem]").count() == 0
    finally:
        lonely.close()


def test_json_file_from_disk(page, tmp_path):
    # Integer and awkward string ids, and titles beyond the BMP (match ranges are UTF-16).
    nodes = [
        {"id": 1, "title": "Café ☕ notes", "children": [
            {"id": 2, "title": "𝄞 music 𝄞 music"},
            {"id": "a/b c?%#", "title": "Odd id", "children": [{"title": "Deep music"}]},
        ]},
        {"id": 3, "title": "Plain", "data": {"k": [1, 2]}},
    ]
    path = tmp_path / "tree.json"
    path.write_text(__import__("json").dumps(nodes), encoding="utf-8")
    with page.expect_file_chooser() as chooser:
        load(page, "file", "none")
    chooser.value.set_files(str(path))
    counts(page, "2 rows of 5 nodes")
    row(page, 0).locator("button.disc").click()
    counts(page, "4 rows of 5 nodes")
    rows = visible(page)
    assert [r["title"] for r in rows] == ["Café ☕ notes", "𝄞 music 𝄞 music", "Odd id", "Plain"]
    row(page, 2).locator("button.disc").click()  # PATCH /items/a%2Fb%20c%3F%25%23
    counts(page, "5 rows of 5 nodes")
    assert visible(page)[3]["title"] == "Deep music"
    page.fill("#search", "MUSIC")
    counts(page, "2 matches · 4 rows")  # "Plain" neither matches nor leads to a match
    rows = visible(page)
    assert rows[1]["marks"] == ["music", "music"] and rows[3]["marks"] == ["music"]
    assert page.locator("#row-1 .title").inner_html() == "𝄞 <mark>music</mark> 𝄞 <mark>music</mark>"
    page.fill("#search", "")
    counts(page, "5 rows of 5 nodes")
    reach(page, "#expand").select_option("all")


def test_recovers_from_failed_row_requests(browser, base_url):
    lonely = browser.new_page(viewport={"width": 1000, "height": 600})  # its own context: failures are expected
    failures = {"left": 2}

    def flaky(route):
        if failures["left"] > 0 and "offset=" in route.request.url and "offset=0&" not in route.request.url:
            failures["left"] -= 1
            route.abort()
        else:
            route.continue_()

    try:
        lonely.goto(base_url + "/")
        load(lonely, "gen88k")
        counts(lonely, "88,572 rows of 88,572 nodes")
        lonely.route("**/rows?*", flaky)
        lonely.evaluate("document.getElementById('tree').scrollTop = 300000")
        lonely.wait_for_function("document.getElementById('status-request').textContent.includes('Could not load rows')")
        check_rows_match(visible(lonely), lambda i: MODEL[i])  # after the retry
        assert failures["left"] == 0
    finally:
        lonely.close()


def test_screenshot(page):
    path = os.environ.get("SCREENSHOT")
    if not path:
        pytest.skip("SCREENSHOT not set")
    load(page, "gen88k", "all")
    counts(page, "88,572 rows of 88,572 nodes")
    page.fill("#search", "item: 2")
    counts(page, "29,524 matches · 49,206 rows")
    row(page, 5).locator(".title").click()
    idle(page)
    page.screenshot(path=path)
    assert os.path.getsize(path) > 10000


def test_no_page_errors(page, context):
    print(f"{len(context.superseded)} superseded filter requests, retried or dropped")
    conflicts = [e for e in context.errors if "status of 409 (Conflict)" in e]
    assert len(conflicts) <= len(context.superseded), context.superseded
    assert [e for e in context.errors if e not in conflicts] == []
