"""Editing from the demo page and two tabs kept in step by the event stream (issue 13).

Two tabs (A and B) on one small session, each with a view of its own (issue 35): A renames,
inserts (sibling and child), moves (keys, toolbar, cut and paste, drag and drop) and deletes
(with the confirmation); after each step A shows its view's rows as the server has them, and B
its own view's rows (the edit, with B's own expansion) within 1 s without a reload. Then: a 412
(the tree changed behind a page whose event stream is blocked), keyboard-only editing, and
aria-posinset/aria-setsize against the tree.
"""
import json

import pytest

from browser_ui import call, view_path

# Alpha (Apple, Apricot, Avocado), Bravo (Banana), Charlie, Delta (Date, collapsed).
NODES = [
    {"id": "a", "title": "Alpha", "expanded": True, "children": [
        {"id": "a1", "title": "Apple"}, {"id": "a2", "title": "Apricot"}, {"id": "a3", "title": "Avocado"}]},
    {"id": "b", "title": "Bravo", "expanded": True, "children": [{"id": "b1", "title": "Banana"}]},
    {"id": "c", "title": "Charlie"},
    {"id": "d", "title": "Delta", "children": [{"id": "d1", "title": "Date"}]},
]

DOM_ROWS = """() => [...document.querySelectorAll('#tree [role=treeitem]')]
  .map(e => ({ index: +e.dataset.index, id: e.dataset.id, title: e.querySelector('.title').textContent,
               level: +e.getAttribute('aria-level'), pos: +e.getAttribute('aria-posinset'),
               size: +e.getAttribute('aria-setsize') }))
  .sort((a, b) => a.index - b.index)"""

# True when the page shows exactly these rows ([title, aria-level, posinset, setsize]), all loaded.
SHOWS = """(want) => {
  const t = document.getElementById('tree');
  if (t.querySelector('.row.loading') || t.getAttribute('aria-busy') !== 'false') return false;
  const rows = (""" + DOM_ROWS + """)();
  return JSON.stringify(rows.map(r => [r.title, r.level, r.pos, r.size])) === JSON.stringify(want);
}"""


def server_rows(base_url, page, view=""):
    """The rows of the page's own view, as the server has them."""
    page = call(base_url, "GET", f"{view_path(page)}/rows?limit=1000&positions=true{view}")
    return [[r["title"], r["level"] + 1, r["position"] + 1, r["siblingCount"]] for r in page["rows"]]


def tree_places(base_url, sid):
    """id -> (1-based position among its siblings, their number), from GET /tree."""
    places = {}

    def walk(nodes):
        for i, node in enumerate(nodes):
            places[str(node["id"])] = (i + 1, len(nodes))
            walk(node.get("children", []))

    walk(call(base_url, "GET", f"/sessions/{sid}/tree")["nodes"])
    return places


def index_of(page, title):
    return next(r["index"] for r in page.evaluate(DOM_ROWS) if r["title"] == title)


def focus_row(page, title):
    """Focuses the row by clicking its title (the mouse; keyboard_only avoids this)."""
    page.locator(f"#row-{index_of(page, title)} .title").click()
    page.wait_for_function("i => document.getElementById('tree').getAttribute('aria-activedescendant') === 'row-' + i",
                           arg=index_of(page, title))


def settle(page, base_url, view=""):
    """Waits until the page shows its view's rows as the server has them (default timeout) and
    returns them."""
    want = server_rows(base_url, page, view)
    page.wait_for_function(SHOWS, arg=want)
    return want


@pytest.fixture(scope="module")
def session(base_url):
    return call(base_url, "POST", "/sessions", {"nodes": NODES})["id"]


def window(browser, context):
    """A page in a window of its own (a browser context): pages that share a window are
    background tabs but one, and chromium runs a background tab's animation frames and timers
    at most once a second. Its errors go to `context.errors`."""
    ctx = browser.new_context(viewport={"width": 1200, "height": 760}, device_scale_factor=1,
                              color_scheme="light", locale="en-US")
    ctx.set_default_timeout(20000)
    page = ctx.new_page()
    page.on("pageerror", lambda e: context.errors.append(f"pageerror: {e}"))
    page.on("console", lambda m: context.errors.append(f"console.{m.type}: {m.text}") if m.type == "error" else None)
    page.on("response", lambda r: context.errors.append(f"HTTP {r.status}: {r.request.method} {r.url}") if r.status >= 400 else None)
    page.on("close", lambda _: ctx.close())
    return page


@pytest.fixture(scope="module")
def tabs(browser, context, base_url, session):
    """Tab A and tab B on one session, each in its own window."""
    a, b = window(browser, context), window(browser, context)
    for p in (a, b):
        p.goto(f"{base_url}/?session={session}")
        p.wait_for_function("document.getElementById('counts').textContent === '8 rows of 9 nodes'")
    return a, b


def step(tabs, base_url, done_in_a):
    """After an action in tab A: A shows `done_in_a`'s condition, then its view's rows as the
    server has them; B shows its own view's rows within 1 s, without a reload. A's rows."""
    a, b = tabs
    a.wait_for_function(done_in_a)
    want = settle(a, base_url)
    b.wait_for_function(SHOWS, arg=server_rows(base_url, b), timeout=1000)
    return want


def has(title, level=None):
    cond = f"r.title === {json.dumps(title)}" + (f" && r.level === {level}" if level else "")
    return f"(() => ({DOM_ROWS})().some(r => {cond}))()"


def lacks(title):
    return f"(() => !({DOM_ROWS})().some(r => r.title === {json.dumps(title)}))()"


def test_both_tabs_are_live(tabs):
    for p in tabs:
        p.wait_for_function("document.getElementById('live').dataset.state === 'live'", timeout=5000)
        assert p.text_content("#live").strip() == "● live"


def test_rename_shows_in_the_other_tab(tabs, base_url, session):
    a, b = tabs
    focus_row(a, "Apple")
    a.keyboard.press("F2")
    assert a.evaluate("document.activeElement.id") == "editor"
    assert a.input_value("#editor") == "Apple"
    a.keyboard.type("Apple pie")
    a.keyboard.press("Enter")
    step(tabs, base_url, has("Apple pie", 2))
    # Double click renames too; Escape cancels (nothing is sent).
    a.locator(f"#row-{index_of(a, 'Charlie')} .title").dblclick()
    a.wait_for_function("document.activeElement.id === 'editor'")
    a.keyboard.type("Not this")
    a.keyboard.press("Escape")
    assert a.evaluate("document.activeElement.id") == "tree"
    a.locator(f"#row-{index_of(a, 'Charlie')} .title").dblclick()
    a.fill("#editor", "Charlie renamed")
    a.keyboard.press("Enter")
    step(tabs, base_url, has("Charlie renamed", 1))


def test_new_sibling_and_new_child_show_in_the_other_tab(tabs, base_url, session):
    a, b = tabs
    focus_row(a, "Apricot")
    a.keyboard.press("Insert")  # a sibling after Apricot, renamed in place
    a.wait_for_function("document.activeElement.id === 'editor'")
    assert a.input_value("#editor") == "New item"
    a.keyboard.type("Almond")
    a.keyboard.press("Enter")
    want = step(tabs, base_url, has("Almond", 2))
    assert [r[0] for r in want[:6]] == ["Alpha", "Apple pie", "Apricot", "Almond", "Avocado", "Bravo"]
    focus_row(a, "Almond")
    a.click("#edit-bar button[data-action=new-child]")  # the toolbar, with the mouse
    a.wait_for_function("document.activeElement.id === 'editor'")
    a.keyboard.type("Almond milk")
    a.keyboard.press("Enter")
    want = step(tabs, base_url, has("Almond milk", 3))
    assert ["Almond", 2, 3, 4] in want and ["Almond milk", 3, 1, 1] in want


def test_keyboard_moves_show_in_the_other_tab(tabs, base_url, session):
    a, b = tabs
    focus_row(a, "Almond milk")
    a.keyboard.press("Alt+ArrowLeft")  # out of Almond, right after it
    want = step(tabs, base_url, has("Almond milk", 2))
    assert [r[0] for r in want[:7]] == ["Alpha", "Apple pie", "Apricot", "Almond", "Almond milk", "Avocado", "Bravo"]
    a.keyboard.press("Alt+ArrowUp")
    a.keyboard.press("Alt+ArrowUp")
    want = step(tabs, base_url, "(() => document.querySelector('#row-2 .title')?.textContent === 'Almond milk')()")
    assert [r[0] for r in want[:5]] == ["Alpha", "Apple pie", "Almond milk", "Apricot", "Almond"]
    assert a.get_attribute("#tree", "aria-activedescendant") == "row-2"  # the focus follows the item
    a.keyboard.press("Alt+ArrowDown")
    want = step(tabs, base_url, "(() => document.querySelector('#row-3 .title')?.textContent === 'Almond milk')()")
    a.keyboard.press("Alt+ArrowRight")  # into Apricot, its previous sibling (expanded for it)
    want = step(tabs, base_url, has("Almond milk", 3))
    assert [r[:2] for r in want[:5]] == [["Alpha", 1], ["Apple pie", 2], ["Apricot", 2], ["Almond milk", 3], ["Almond", 2]]
    # Cut and paste: Avocado into Bravo (as its last child).
    focus_row(a, "Avocado")
    a.keyboard.press("Control+x")
    a.wait_for_function("document.querySelector('.row.cut .title')?.textContent === 'Avocado'")
    focus_row(a, "Bravo")
    a.keyboard.press("Control+v")
    want = step(tabs, base_url, "(() => { const r = (" + DOM_ROWS + ")(); const i = r.findIndex(x => x.title === 'Bravo'); "
                "return r[i + 2] && r[i + 2].title === 'Avocado' && r[i + 2].level === 2; })()")


def test_drag_and_drop_shows_in_the_other_tab(tabs, base_url, session):
    a, b = tabs
    # Charlie renamed onto the middle of Delta (collapsed): into it, which expands.
    a.locator(f"#row-{index_of(a, 'Charlie renamed')}").drag_to(
        a.locator(f"#row-{index_of(a, 'Delta')}"), target_position={"x": 120, "y": 13})
    want = step(tabs, base_url, has("Charlie renamed", 2))
    assert [r[:2] for r in want[-3:]] == [["Delta", 1], ["Date", 2], ["Charlie renamed", 2]]
    # Banana onto the upper edge of Alpha: before it, a root.
    a.locator(f"#row-{index_of(a, 'Banana')}").drag_to(
        a.locator(f"#row-{index_of(a, 'Alpha')}"), target_position={"x": 120, "y": 2})
    want = step(tabs, base_url, has("Banana", 1))
    assert want[0] == ["Banana", 1, 1, 4]
    # Apple pie onto the lower edge of Almond: after it, among Alpha's children.
    a.locator(f"#row-{index_of(a, 'Apple pie')}").drag_to(
        a.locator(f"#row-{index_of(a, 'Almond')}"), target_position={"x": 120, "y": 24})
    want = step(tabs, base_url, "(() => { const r = (" + DOM_ROWS + ")(); const i = r.findIndex(x => x.title === 'Almond'); "
                "return r[i + 1] && r[i + 1].title === 'Apple pie'; })()")
    assert [r[0] for r in want[:6]] == ["Banana", "Alpha", "Apricot", "Almond milk", "Almond", "Apple pie"]


def test_delete_asks_for_a_subtree_and_shows_in_the_other_tab(tabs, base_url, session):
    a, b = tabs
    focus_row(a, "Apple pie")  # a leaf: no question
    a.keyboard.press("Delete")
    step(tabs, base_url, lacks("Apple pie"))
    assert not a.locator("#confirm").is_visible()
    focus_row(a, "Apricot")  # has a child: the dialog asks
    a.keyboard.press("Delete")
    a.wait_for_selector("#confirm[open]")
    assert "Apricot" in a.text_content("#confirm-text")
    assert a.evaluate("document.activeElement.id") == "confirm-cancel"  # the destructive button is not the default
    a.keyboard.press("Escape")  # cancels
    a.wait_for_selector("#confirm:not([open])", state="attached")
    assert a.evaluate("document.activeElement.id") == "tree"
    assert a.locator(".title", has_text="Apricot").count() == 1
    a.click("#edit-bar button[data-action=delete]")  # the toolbar button, then the dialog's button
    a.wait_for_selector("#confirm[open]")
    a.click("#confirm-delete")
    step(tabs, base_url, lacks("Almond milk"))
    assert a.locator(".title", has_text="Apricot").count() == 0


def test_a_filtered_tab_follows_its_own_view(tabs, base_url, session):
    """B shows a filtered view: it subscribes to that view, and A's edit reaches it as that
    view's splices."""
    a, b = tabs
    b.fill("#search", "an")
    b.press("#search", "Enter")
    b.wait_for_function("document.getElementById('counts').textContent.includes('match')")
    b.wait_for_function("document.getElementById('live').dataset.state === 'live'", timeout=5000)
    settle(b, base_url, "&filter=an")
    focus_row(a, "Date")
    a.keyboard.press("F2")
    a.keyboard.type("Mandarin")
    a.keyboard.press("Enter")
    a.wait_for_function(has("Mandarin", 2))
    want = server_rows(base_url, b, "&filter=an")
    assert ["Mandarin", 2, 1, 2] in want
    b.wait_for_function(SHOWS, arg=want, timeout=1000)
    b.fill("#search", "")
    b.press("#search", "Enter")
    settle(b, base_url)


def test_positions_match_the_tree(tabs, base_url, session):
    places = tree_places(base_url, session)
    for p in tabs:
        rows = p.evaluate(DOM_ROWS)
        assert rows
        for r in rows:
            assert (r["pos"], r["size"]) == places[r["id"]], r
    # In a filtered view the hidden siblings count: positions are the tree's.
    a, _ = tabs
    a.fill("#search", "an")
    a.press("#search", "Enter")
    a.wait_for_function("document.getElementById('counts').textContent.includes('match')")
    settle(a, base_url, "&filter=an")
    for r in a.evaluate(DOM_ROWS):
        assert (r["pos"], r["size"]) == places[r["id"]], r
    a.fill("#search", "")
    a.press("#search", "Enter")
    settle(a, base_url)


def test_a_change_behind_the_page_gives_412_and_a_reload(browser, base_url, session):
    """The page's event stream is blocked, so it holds an old version; its edit answers 412."""
    page = browser.new_page()  # its own context: the 412 and the blocked stream are expected
    try:
        page.route("**/events*", lambda route: route.abort())
        page.goto(f"{base_url}/?session={session}")
        page.wait_for_function("document.getElementById('counts').textContent.includes('rows')")
        settle(page, base_url)
        page.wait_for_timeout(300)
        assert page.evaluate("document.getElementById('live').dataset.state") != "live"  # connecting, retried
        version = call(base_url, "GET", f"/sessions/{session}")["version"]
        call(base_url, "PATCH", f"/sessions/{session}/items/b", {"title": "Bravo elsewhere"})
        focus_row(page, "Bravo")
        page.keyboard.press("F2")
        page.keyboard.type("Bravo here")
        page.keyboard.press("Enter")
        page.wait_for_function("document.getElementById('notice').textContent.includes('Changed elsewhere; reloaded, try again')")
        assert page.locator("#notice").is_visible()
        settle(page, base_url)  # refetched: the other title is shown
        assert page.locator(".title", has_text="Bravo elsewhere").count() == 1
        assert call(base_url, "GET", f"/sessions/{session}")["version"] == version + 1
        # Trying again works.
        focus_row(page, "Bravo elsewhere")
        page.keyboard.press("F2")
        page.keyboard.type("Bravo here")
        page.keyboard.press("Enter")
        page.wait_for_function(has("Bravo here", 1))
        assert call(base_url, "GET", f"/sessions/{session}/items/b")["title"] == "Bravo here"
    finally:
        page.close()


def test_keyboard_only_editing(browser, context, base_url):
    sid = call(base_url, "POST", "/sessions", {"nodes": NODES})["id"]
    page = window(browser, context)
    try:
        page.goto(f"{base_url}/?session={sid}")
        page.wait_for_function("document.getElementById('counts').textContent === '8 rows of 9 nodes'")
        for _ in range(60):  # Tab through the page to the tree
            if page.evaluate("document.activeElement.id") == "tree":
                break
            page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.id") == "tree"
        kb = page.keyboard
        kb.press("ArrowDown")  # Apple
        kb.press("F2")
        kb.type("Apple keyed")
        kb.press("Enter")
        page.wait_for_function(has("Apple keyed", 2))
        kb.press("Control+Enter")  # a sibling after it
        page.wait_for_function("document.activeElement.id === 'editor'")
        kb.type("Sibling keyed")
        kb.press("Enter")
        page.wait_for_function(has("Sibling keyed", 2))
        kb.press("Shift+Insert")  # a first child of it
        page.wait_for_function("document.activeElement.id === 'editor'")
        kb.type("Child keyed")
        kb.press("Enter")
        page.wait_for_function(has("Child keyed", 3))
        kb.press("Alt+ArrowLeft")
        page.wait_for_function(has("Child keyed", 2))
        kb.press("Alt+ArrowRight")
        page.wait_for_function(has("Child keyed", 3))
        kb.press("Control+x")
        kb.press("Home")  # Alpha
        kb.press("End")  # Delta (collapsed)
        kb.press("Control+v")
        page.wait_for_function("(() => { const r = (" + DOM_ROWS + ")(); return r.at(-1).title === 'Child keyed' && r.at(-1).level === 2; })()")
        kb.press("Home")
        kb.press("Delete")  # Alpha has children: the dialog, its Cancel button focused
        page.wait_for_selector("#confirm[open]")
        assert page.evaluate("document.activeElement.id") == "confirm-cancel"
        kb.press("Enter")  # Enter cancels: nothing is deleted
        page.wait_for_selector("#confirm:not([open])", state="attached")
        assert page.evaluate("document.activeElement.id") == "tree"
        page.wait_for_timeout(200)
        assert call(base_url, "GET", f"/sessions/{sid}/items/a")["title"] == "Alpha"
        kb.press("Delete")
        page.wait_for_selector("#confirm[open]")
        kb.press("Tab")  # to Delete, then Enter
        assert page.evaluate("document.activeElement.id") == "confirm-delete"
        kb.press("Enter")
        page.wait_for_function(lacks("Alpha"))
        assert page.evaluate("document.activeElement.id") == "tree"
        # The edit toolbar is keyboard reachable too: Tab from the tree to its first button, and back.
        kb.press("Tab")
        assert page.evaluate("document.activeElement.dataset.action") == "rename"
        kb.press("Shift+Tab")
        assert page.evaluate("document.activeElement.id") == "tree"
        settle(page, base_url)
        tree = call(base_url, "GET", f"/sessions/{sid}/tree")["nodes"]
        assert [n["title"] for n in tree] == ["Bravo", "Charlie", "Delta"]
        assert [c["title"] for c in tree[2]["children"]] == ["Date", "Child keyed"]
    finally:
        page.close()


def test_session_deleted_elsewhere_ends_the_stream(browser, context, base_url):
    sid = call(base_url, "POST", "/sessions", {"nodes": NODES})["id"]
    page = window(browser, context)
    try:
        page.goto(f"{base_url}/?session={sid}")
        page.wait_for_function("document.getElementById('live').dataset.state === 'live'", timeout=5000)
        call(base_url, "DELETE", f"/sessions/{sid}")
        page.wait_for_function("document.getElementById('status-request').textContent.includes('is gone')", timeout=1000)
        assert page.evaluate("document.getElementById('live').dataset.state") == "offline"
        assert page.locator("#state").is_visible()
        assert page.text_content("#state-title") == "This session was deleted — start a new one"
        # The stream's `end` names no resource: the page asked whether the session (or only
        # its view) is gone.
        asked = [f"HTTP 404: GET {base_url}/sessions/{sid}",
                 "console.error: Failed to load resource: the server responded with a status of 404 (Not Found)"]
        assert all(e in context.errors for e in asked), context.errors
        context.errors[:] = [e for e in context.errors if e not in asked]
    finally:
        page.close()


def test_no_page_errors(tabs, context):
    # The 412 of test_a_change_behind... is in a context of its own; nothing else may fail here.
    for p in tabs:
        p.close()
    assert context.errors == []
