"""The demo as a grid (issue 37): data fields picked from GET …/fields shown as columns, a
folder's total of a number column over everything inside it (and kept right after an edit
below it), and the search looking in the shown columns too.
"""
import pytest

from browser_ui import call

NODES = [
    {"id": "docs", "title": "Documents", "expanded": True, "data": {"owner": "alice"}, "children": [
        {"id": "r", "title": "Report", "data": {"size": 1200, "owner": "alice", "shell": "/bin/bash"}},
        {"id": "n", "title": "Notes", "data": {"size": 300, "owner": "bob", "shell": "/usr/sbin/nologin"}},
        {"id": "old", "title": "Old", "expanded": True, "children": [
            {"id": "o1", "title": "Draft", "data": {"size": 40, "owner": "carol", "shell": "/usr/sbin/nologin"}}]},
    ]},
    {"id": "e", "title": "Empty"},
]

# [title, {field: cell text}] of the rows shown once loaded and painted; null before.
CELLS = """() => {
  const t = document.getElementById('tree');
  if (t.querySelector('.row.loading') || t.getAttribute('aria-busy') !== 'false') return null;
  const rows = [...t.querySelectorAll('[role=treeitem]')].sort((a, b) => a.dataset.index - b.dataset.index)
    .map(e => [e.querySelector('.title').textContent,
               Object.fromEntries([...e.querySelectorAll('.cell')].map(c => [c.dataset.field, c.textContent]))]);
  return rows.length ? rows : null;
}"""


def shows(page, want):
    try:
        page.wait_for_function("(want) => JSON.stringify((" + CELLS + ")()) === JSON.stringify(want)", arg=want)
    except Exception:
        raise AssertionError(f"rows shown {page.evaluate(CELLS)}, want {want}") from None


@pytest.fixture()
def page(browser, base_url):
    session = call(base_url, "POST", "/sessions", {"nodes": NODES})["id"]
    ctx = browser.new_context(viewport={"width": 1200, "height": 700}, device_scale_factor=1, locale="en-US")
    ctx.set_default_timeout(20000)
    p = ctx.new_page()
    p.errors = []
    p.on("pageerror", lambda e: p.errors.append(f"pageerror: {e}"))
    p.on("response", lambda r: p.errors.append(f"HTTP {r.status}: {r.request.method} {r.url}") if r.status >= 400 else None)
    p.goto(f"{base_url}/?session={session}")
    p.wait_for_function("document.getElementById('counts').textContent === '6 rows of 6 nodes'")
    yield p
    assert p.errors == []
    ctx.close()


def pick(page, *fields):
    page.click("#columns-menu > summary")
    for field in fields:
        page.check(f"#columns-list input[value='{field}']")
    page.click("#columns-menu > summary")


def test_columns_show_values_and_folder_totals_that_follow_an_edit(page):
    shows(page, [[t, {}] for t in ["Documents", "Report", "Notes", "Old", "Draft", "Empty"]])
    pick(page, "data.size", "data.owner")
    assert page.locator("#grid-head").is_visible()
    assert page.locator("#grid-head .cell").all_text_contents() == ["size", "owner"]
    shows(page, [
        ["Documents", {"data.size": "1,540", "data.owner": "alice"}],
        ["Report", {"data.size": "1,200", "data.owner": "alice"}],
        ["Notes", {"data.size": "300", "data.owner": "bob"}],
        ["Old", {"data.size": "40", "data.owner": ""}],
        ["Draft", {"data.size": "40", "data.owner": "carol"}],
        ["Empty", {"data.size": "", "data.owner": ""}],
    ])
    # Deleting an item inside changes the folder's total.
    page.click("#row-1 .title")
    page.keyboard.press("Delete")
    shows(page, [
        ["Documents", {"data.size": "340", "data.owner": "alice"}],
        ["Notes", {"data.size": "300", "data.owner": "bob"}],
        ["Old", {"data.size": "40", "data.owner": ""}],
        ["Draft", {"data.size": "40", "data.owner": "carol"}],
        ["Empty", {"data.size": "", "data.owner": ""}],
    ])
    # Unpicked, the head goes.
    page.click("#columns-menu > summary")
    page.uncheck("#columns-list input[value='data.size']")
    page.uncheck("#columns-list input[value='data.owner']")
    page.click("#columns-menu > summary")
    assert page.locator("#grid-head").is_hidden()


def test_the_search_looks_in_the_shown_columns(page):
    page.fill("#search", "nologin")
    page.wait_for_function("document.getElementById('counts').textContent === '0 matches · 0 rows'")
    pick(page, "data.shell")
    page.click("#columns-menu > summary")
    page.check("#search-columns")
    page.click("#columns-menu > summary")
    shows(page, [
        ["Documents", {"data.shell": ""}],
        ["Notes", {"data.shell": "/usr/sbin/nologin"}],
        ["Old", {"data.shell": ""}],
        ["Draft", {"data.shell": "/usr/sbin/nologin"}],
    ])
    assert page.evaluate("() => document.getElementById('counts').textContent") == "2 matches · 4 rows"


def test_sorting_by_a_column_keeps_the_folders_expanded(page):
    size = {"Documents": "1,540", "Report": "1,200", "Notes": "300", "Old": "40", "Draft": "40", "Empty": ""}

    def rows(*titles):
        return [[t, {"data.size": size[t]}] for t in titles]

    tree_order = rows("Documents", "Report", "Notes", "Old", "Draft", "Empty")
    pick(page, "data.size")
    # Ascending by size among siblings (a node without a size last); Old stays expanded.
    page.click("#grid-head [data-sort-field='data.size']")
    shows(page, rows("Documents", "Notes", "Report", "Old", "Draft", "Empty"))
    assert page.locator("#grid-head .cell").all_text_contents() == ["size ▲"]
    # Descending: the same as the tree's order here.
    page.click("#grid-head [data-sort-field='data.size']")
    shows(page, tree_order)
    # By name, descending, then a further key; then back to the tree's order.
    page.click("#grid-head .head-name")
    page.click("#grid-head .head-name")
    shows(page, rows("Empty", "Documents", "Report", "Old", "Draft", "Notes"))
    page.click("#grid-head [data-sort-field='data.size']", modifiers=["Shift"])
    assert page.locator("#grid-head").inner_text().replace("\n", " ").split() == ["Name", "▼1", "size", "▲2"]
    page.click("#grid-head .head-name", modifiers=["Shift"])
    shows(page, rows("Documents", "Notes", "Report", "Old", "Draft", "Empty"))
    page.click("#grid-head [data-sort-field='data.size']")
    shows(page, tree_order)
    assert page.locator("#grid-head .cell").all_text_contents() == ["size ▼"]
    page.click("#grid-head [data-sort-field='data.size']")
    shows(page, tree_order)
    assert page.locator("#grid-head .cell").all_text_contents() == ["size"]
