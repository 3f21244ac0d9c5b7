"""Selecting in the demo (issue 36): tri-state checkboxes on every row (click, Space,
Shift-click and Shift+Space for ranges), select all / none / invert, "N selected" with delete
selected and move selected here, a checkbox on a lazy folder whose children arrive later, and
the search box's switch between filtering and highlighting.

The page's own view holds the selection on the server; each step is checked both in the rows
shown (their `aria-checked`) and against the server's `GET …/selection`.
"""
import pytest

from browser_ui import call, view_path

# Alpha and Bravo expanded; Charlie a lazy folder (children not sent yet); Delta collapsed.
NODES = [
    {"id": "a", "title": "Alpha", "expanded": True, "children": [
        {"id": "a1", "title": "Apple"}, {"id": "a2", "title": "Avocado"}, {"id": "a3", "title": "Apricot"}]},
    {"id": "b", "title": "Bravo", "expanded": True, "children": [
        {"id": "b1", "title": "Banana"}, {"id": "b2", "title": "Blueberry"}]},
    {"id": "c", "title": "Charlie", "hasChildren": True},
    {"id": "d", "title": "Delta", "children": [{"id": "d1", "title": "Date"}]},
]

# [title, aria-checked] of the rows shown once they are all loaded and painted; null before
# (and while none is painted: the tree here is never empty).
CHECKS = """() => {
  const t = document.getElementById('tree');
  if (t.querySelector('.row.loading') || t.getAttribute('aria-busy') !== 'false') return null;
  const rows = [...t.querySelectorAll('[role=treeitem]')].sort((a, b) => a.dataset.index - b.dataset.index)
    .map(e => [e.querySelector('.title').textContent, e.getAttribute('aria-checked')]);
  return rows.length ? rows : null;
}"""


def shows(page, want, timeout=None):
    """Waits until the rows shown are `want` ([title, "true" | "false" | "mixed"] each)."""
    try:
        page.wait_for_function("(want) => JSON.stringify((" + CHECKS + ")()) === JSON.stringify(want)", arg=want,
                               **({"timeout": timeout} if timeout else {}))
    except Exception:
        focused = page.evaluate("() => { const f = document.querySelector('#tree .focused'); return f && f.outerHTML.slice(0, 300); }")
        raise AssertionError(f"rows shown {page.evaluate(CHECKS)}, want {want}; focused {focused}") from None


def checks(page, checked, mixed=()):
    """The [title, aria-checked] list of the rows shown (once loaded), with `checked` and `mixed` titles set."""
    rows = page.wait_for_function(CHECKS).json_value()
    return [[title, "mixed" if title in mixed else "true" if title in checked else "false"] for title, _ in rows]


def selected(base_url, page, top=False):
    """The ids the server holds selected in the page's view, in tree order."""
    reply = call(base_url, "GET", f"{view_path(page)}/selection?limit=1000" + ("&top=true" if top else ""))
    return [item["id"] for item in reply["items"]]


def row(page, title):
    index = page.evaluate("t => [...document.querySelectorAll('#tree [role=treeitem]')]"
                          ".find(e => e.querySelector('.title').textContent === t).dataset.index", title)
    return page.locator(f"#row-{index}")


def status(page, text):
    """Waits until the toolbar says `text` selected (hidden: nothing selected)."""
    if text is None:
        page.wait_for_selector("#selection-bar", state="hidden")
    else:
        page.wait_for_function("t => !document.getElementById('selection-bar').hidden"
                               " && document.getElementById('selected-count').textContent === t", arg=text)


def menu(page, button):
    page.click("#select-menu > summary")
    page.click(button)


@pytest.fixture(scope="module")
def session(base_url):
    return call(base_url, "POST", "/sessions", {"nodes": NODES})["id"]


@pytest.fixture(scope="module")
def page(browser, base_url, session):
    ctx = browser.new_context(viewport={"width": 1200, "height": 700}, device_scale_factor=1, locale="en-US")
    ctx.set_default_timeout(20000)
    p = ctx.new_page()
    p.errors = []
    p.on("pageerror", lambda e: p.errors.append(f"pageerror: {e}"))
    p.on("console", lambda m: p.errors.append(f"console.{m.type}: {m.text}")
         if m.type == "error" and not m.text.startswith("Failed to load resource") else None)
    p.on("response", lambda r: p.errors.append(f"HTTP {r.status}: {r.request.method} {r.url}") if r.status >= 400 else None)
    p.goto(f"{base_url}/?session={session}")
    p.wait_for_function("document.getElementById('counts').textContent === '9 rows of 10 nodes'")
    yield p
    ctx.close()


ALL = ["Alpha", "Apple", "Avocado", "Apricot", "Bravo", "Banana", "Blueberry", "Charlie", "Delta"]


def test_a_folders_checkbox_selects_its_subtree_and_a_child_makes_it_partial(page, base_url):
    shows(page, checks(page, []))
    assert page.locator("#selection-bar").is_hidden()
    row(page, "Alpha").locator(".check").click()
    shows(page, checks(page, ["Alpha", "Apple", "Avocado", "Apricot"]))
    status(page, "4 selected")
    assert selected(base_url, page) == ["a", "a1", "a2", "a3"]
    # Unchecking a child leaves Alpha selected, partly: the indeterminate checkbox.
    row(page, "Avocado").locator(".check").click()
    shows(page, checks(page, ["Alpha", "Apple", "Apricot"], mixed=["Alpha"]))
    assert page.evaluate("() => document.querySelector('#tree [aria-checked=mixed] .check').indeterminate")
    status(page, "3 selected")
    # A partly selected folder's checkbox selects it whole.
    row(page, "Alpha").locator(".check").click()
    shows(page, checks(page, ["Alpha", "Apple", "Avocado", "Apricot"]))
    row(page, "Alpha").locator(".check").click()
    shows(page, checks(page, []))
    status(page, None)
    assert selected(base_url, page) == []


def test_space_and_shift_ranges(page, base_url):
    row(page, "Apple").locator(".title").click()
    page.keyboard.press("Space")
    shows(page, checks(page, ["Apple"], mixed=["Alpha"]))
    # Shift-click: every row from the last one checked (Apple) to Banana, expanded folders alone.
    row(page, "Banana").locator(".check").click(modifiers=["Shift"])
    shows(page, checks(page, ["Apple", "Avocado", "Apricot", "Bravo", "Banana"], mixed=["Alpha", "Bravo"]))
    assert selected(base_url, page) == ["a1", "a2", "a3", "b", "b1"]
    # Shift+Space from the anchor (Apple, which selected) down to the focused row, Delta: collapsed, with Date.
    row(page, "Delta").locator(".title").click()
    page.keyboard.press("Shift+Space")
    shows(page, checks(page, ["Apple", "Avocado", "Apricot", "Bravo", "Banana", "Blueberry", "Charlie", "Delta"], mixed=["Alpha"]))
    assert selected(base_url, page) == ["a1", "a2", "a3", "b", "b1", "b2", "c", "d", "d1"]
    status(page, "9 selected")


def test_select_none_all_and_invert_from_the_menu(page, base_url):
    menu(page, "#select-none")
    shows(page, checks(page, []))
    status(page, None)
    menu(page, "#select-all")
    shows(page, checks(page, ALL))
    status(page, "10 selected")
    row(page, "Bravo").locator(".check").click()
    shows(page, checks(page, [t for t in ALL if t not in ("Bravo", "Banana", "Blueberry")]))
    menu(page, "#invert-selection")
    shows(page, checks(page, ["Bravo", "Banana", "Blueberry"]))
    status(page, "3 selected")
    assert selected(base_url, page) == ["b", "b1", "b2"]
    menu(page, "#select-none")
    status(page, None)


def test_a_lazy_folders_children_arriving_later_are_selected(page, base_url, session):
    row(page, "Charlie").locator(".check").click()
    shows(page, checks(page, ["Charlie"]))
    status(page, "1 selected")
    # Another client adds Charlie's children; they take its state.
    call(base_url, "POST", f"/sessions/{session}/items", {"parentId": "c", "nodes": [{"id": "c1", "title": "Cherry"}, {"id": "c2", "title": "Coconut"}]})
    status(page, "3 selected")
    row(page, "Charlie").locator(".disc").click()
    shows(page, [[t, "true" if t[0] == "C" else "false"] for t in ALL[:8] + ["Cherry", "Coconut", "Delta"]])
    assert selected(base_url, page) == ["c", "c1", "c2"]


def test_move_selected_here_and_delete_selected(page, base_url):
    # Cherry and Coconut (selected) into Delta (collapsed, focused): its last children, Delta expanded.
    row(page, "Charlie").locator(".check").click()
    shows(page, checks(page, []))
    row(page, "Cherry").locator(".check").click()
    row(page, "Coconut").locator(".check").click()
    shows(page, checks(page, ["Cherry", "Coconut"], mixed=["Charlie"]))
    status(page, "2 selected")
    row(page, "Delta").locator(".title").click()
    page.click("#move-selected")
    shows(page, [["Alpha", "false"], ["Apple", "false"], ["Avocado", "false"], ["Apricot", "false"], ["Bravo", "false"],
                 ["Banana", "false"], ["Blueberry", "false"], ["Charlie", "false"], ["Delta", "mixed"], ["Date", "false"],
                 ["Cherry", "true"], ["Coconut", "true"]])
    assert page.evaluate("() => document.querySelector('#tree .focused .title').textContent") == "Delta"
    # Delete selected asks first; Cancel keeps them, Delete deletes them.
    page.click("#delete-selected")
    assert page.locator("#confirm-title").text_content() == "Delete the selection?"
    page.click("#confirm-cancel")
    assert selected(base_url, page) == ["c1", "c2"]
    page.click("#delete-selected")
    page.click("#confirm-delete")
    shows(page, [[t, "false"] for t in ALL + ["Date"]])
    status(page, None)
    page.wait_for_function("document.getElementById('counts').textContent === '10 rows of 10 nodes'")


def test_highlight_keeps_every_row_and_goes_to_hidden_matches(page, base_url):
    page.fill("#search", "at")
    page.wait_for_function("document.getElementById('counts').textContent === '1 match · 2 rows'")  # Date, with Delta
    page.click("#find-mode")
    assert page.get_attribute("#find-mode", "aria-pressed") == "true"
    page.wait_for_function("document.getElementById('counts').textContent === '1 match · 10 rows of 10 nodes'")
    # Collapse Delta, then Enter in the box goes to Date: Delta is expanded again to show it.
    row(page, "Delta").locator(".disc").click()
    page.wait_for_function("document.getElementById('counts').textContent === '1 match · 9 rows of 10 nodes'")
    page.focus("#search")
    page.keyboard.press("Enter")
    page.wait_for_function("() => { const f = document.querySelector('#tree .focused .title'); return f && f.textContent === 'Date'; }")
    assert page.locator("#tree .focused mark").text_content() == "at"
    assert page.locator("#match-place").text_content() == "match 1 of 1"
    # Back to filtering: the same text, only the match and its ancestors.
    page.click("#find-mode")
    page.wait_for_function("document.getElementById('counts').textContent === '1 match · 2 rows'")
    page.fill("#search", "")
    page.wait_for_function("document.getElementById('counts').textContent === '10 rows of 10 nodes'")


def test_no_page_errors(page):
    assert page.errors == []
