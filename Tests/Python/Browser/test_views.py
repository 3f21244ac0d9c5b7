"""Each tab has a view of its own over the one shared tree (issue 35).

Two pages (A and B) on one session, each in a window of its own: each makes its own view
(`POST /sessions/{sid}/views`, its id kept in the tab's sessionStorage) and reads, changes and
follows rows through it. A collapse in A does not change B's rows (nor B's view on the server);
a rename and an insert in A show in B within a moment, through B's event stream, with B's own
expansion. Then: a reload keeps the tab's view; a view that is gone (deleted while the page
follows it, or a stored id the server no longer has) is made anew; a duplicated tab (a copy of
the original's sessionStorage) makes a view of its own, a copy of the original's.
"""
import json

import pytest

from browser_ui import call, focus_row, live, row_of, view_path

# Alpha (Apple, Avocado) and Bravo (Banana) expanded, Charlie, Delta (Date) collapsed: a tab
# that attaches without an `expand` rule copies this layout (the default view's).
NODES = [
    {"id": "a", "title": "Alpha", "expanded": True, "children": [
        {"id": "a1", "title": "Apple"}, {"id": "a2", "title": "Avocado"}]},
    {"id": "b", "title": "Bravo", "expanded": True, "children": [{"id": "b1", "title": "Banana"}]},
    {"id": "c", "title": "Charlie"},
    {"id": "d", "title": "Delta", "children": [{"id": "d1", "title": "Date"}]},
]

# [title, aria-level, aria-expanded] of the rows shown, once they are all loaded; null before.
SHOWN = """() => {
  const t = document.getElementById('tree');
  if (t.querySelector('.row.loading') || t.getAttribute('aria-busy') !== 'false') return null;
  return [...t.querySelectorAll('[role=treeitem]')].sort((a, b) => a.dataset.index - b.dataset.index)
    .map(e => [e.querySelector('.title').textContent, +e.getAttribute('aria-level'), e.getAttribute('aria-expanded')]);
}"""
SHOWS = "(want) => JSON.stringify((" + SHOWN + ")()) === JSON.stringify(want)"


def server_rows(base_url, page):
    """The page's own view's rows as the server has them, as SHOWN gives them."""
    rows = call(base_url, "GET", f"{view_path(page)}/rows?limit=1000")["rows"]
    return [[r["title"], r["level"] + 1, (("true" if r["expanded"] else "false") if r["hasChildren"] else None)]
            for r in rows]


def settle(page, base_url, timeout=None):
    """Waits until the page shows its view's rows as the server has them; returns them."""
    want = server_rows(base_url, page)
    page.wait_for_function(SHOWS, arg=want, **({"timeout": timeout} if timeout else {}))
    return want


def titles(rows):
    return [r[0] for r in rows]


@pytest.fixture(scope="module")
def session(base_url):
    return call(base_url, "POST", "/sessions", {"nodes": NODES})["id"]


@pytest.fixture(scope="module")
def errors():
    """What went wrong in the module's pages: page errors, console errors, HTTP errors."""
    return []


@pytest.fixture(scope="module")
def window(browser, errors):
    """A page in a window of its own (a browser context: chromium throttles background tabs,
    and each context has its own sessionStorage and BroadcastChannel scope)."""
    contexts = []

    def make():
        ctx = browser.new_context(viewport={"width": 1100, "height": 700}, device_scale_factor=1, locale="en-US")
        ctx.set_default_timeout(20000)
        contexts.append(ctx)
        return watch(ctx.new_page())

    def watch(page):
        page.on("pageerror", lambda e: errors.append(f"pageerror: {e}"))
        # A failed request is logged as a console error too: it is told by the response, with its URL.
        page.on("console", lambda m: errors.append(f"console.{m.type}: {m.text}")
                if m.type == "error" and not m.text.startswith("Failed to load resource") else None)
        page.on("response", lambda r: errors.append(f"HTTP {r.status}: {r.request.method} {r.url}") if r.status >= 400 else None)
        return page

    make.watch = watch
    yield make
    for ctx in contexts:
        ctx.close()


@pytest.fixture(scope="module")
def tabs(window, base_url, session):
    a, b = window(), window()
    for p in (a, b):
        p.goto(f"{base_url}/?session={session}")
        p.wait_for_function("document.getElementById('counts').textContent === '7 rows of 8 nodes'")
        live(p)
    return a, b


def test_each_tab_makes_a_view_of_its_own(tabs, base_url, session):
    a, b = tabs
    assert view_path(a) != view_path(b)
    assert view_path(a).startswith(f"/sessions/{session}/views/")
    listed = {v["id"] for v in call(base_url, "GET", f"/sessions/{session}/views")["views"]}
    assert {view_path(p).rsplit("/", 1)[1] for p in tabs} <= listed
    # Both start as a copy of the session's default view: the layout of the upload.
    for p in tabs:
        assert titles(settle(p, base_url)) == ["Alpha", "Apple", "Avocado", "Bravo", "Banana", "Charlie", "Delta"]


def test_a_collapse_in_one_tab_does_not_change_the_other(tabs, base_url, session):
    a, b = tabs
    before_b = settle(b, base_url)
    version_b = call(base_url, "GET", view_path(b))["version"]
    default = call(base_url, "GET", f"/sessions/{session}")["version"]
    row_of(a, "Alpha").locator("button.disc").click()  # collapse Alpha in A
    a.wait_for_function("document.getElementById('counts').textContent === '5 rows of 8 nodes'")
    assert titles(settle(a, base_url)) == ["Alpha", "Bravo", "Banana", "Charlie", "Delta"]
    a.wait_for_timeout(700)  # what an event would have needed to reach B
    assert b.evaluate(SHOWN) == before_b
    assert call(base_url, "GET", view_path(b))["version"] == version_b
    assert call(base_url, "GET", f"/sessions/{session}")["version"] == default
    # And the other way round: B expands Delta; A keeps its rows.
    row_of(b, "Delta").locator("button.disc").click()
    b.wait_for_function("document.getElementById('counts').textContent === '8 rows of 8 nodes'")
    assert titles(settle(b, base_url))[-2:] == ["Delta", "Date"]
    a.wait_for_timeout(700)
    assert titles(a.evaluate(SHOWN)) == ["Alpha", "Bravo", "Banana", "Charlie", "Delta"]


def test_a_rename_and_an_insert_in_one_tab_show_in_the_other(tabs, base_url):
    a, b = tabs
    # Rename Banana in A (shown in both): B shows the new title within a moment.
    focus_row(a, "Banana")
    a.keyboard.press("F2")
    a.wait_for_function("document.activeElement.id === 'editor'")
    a.fill("#editor", "Blueberry")
    a.keyboard.press("Enter")
    b.wait_for_function("() => [...document.querySelectorAll('#tree .title')].some(e => e.textContent === 'Blueberry')",
                        timeout=2000)
    # Rename Date, which only B shows (Delta is collapsed in A): A's rows do not change.
    shown_a = settle(a, base_url)
    call(base_url, "PATCH", f"{view_path(a)}/items/d1", {"title": "Dragon fruit"})  # through A's view
    assert titles(settle(b, base_url, 2000))[-2:] == ["Delta", "Dragon fruit"]
    assert settle(a, base_url) == shown_a
    # An insert in A, a sibling after Charlie: B shows it, each tab keeps its own expansion.
    focus_row(a, "Charlie")
    a.keyboard.press("Insert")
    a.wait_for_function("document.activeElement.id === 'editor'")
    a.fill("#editor", "Cherry")
    a.keyboard.press("Enter")
    a.wait_for_function("() => [...document.querySelectorAll('#tree .title')].some(e => e.textContent === 'Cherry')")
    assert titles(settle(a, base_url)) == ["Alpha", "Bravo", "Blueberry", "Charlie", "Cherry", "Delta"]
    want_b = ["Alpha", "Apple", "Avocado", "Bravo", "Blueberry", "Charlie", "Cherry", "Delta", "Dragon fruit"]
    b.wait_for_function("(want) => JSON.stringify([...document.querySelectorAll('#tree [role=treeitem]')]"
                        ".sort((x, y) => x.dataset.index - y.dataset.index)"
                        ".map(e => e.querySelector('.title').textContent)) === JSON.stringify(want)",
                        arg=want_b, timeout=2000)
    assert titles(settle(b, base_url)) == want_b


def test_a_reload_keeps_the_tabs_view(tabs, base_url):
    _, b = tabs
    view, shown = view_path(b), settle(b, base_url)
    b.reload()
    live(b)
    assert view_path(b) == view
    assert settle(b, base_url) == shown  # Alpha and Delta expanded, as B left them


def test_a_view_deleted_while_followed_is_made_anew(tabs, base_url, errors):
    _, b = tabs
    old = view_path(b)
    call(base_url, "DELETE", old)  # its stream ends (`end`, deleted); the session lives on
    b.wait_for_function("old => { const sid = new URLSearchParams(location.search).get('session'); "
                        "const vid = sessionStorage.getItem('treesessions.view.' + sid); return vid && !old.endsWith(vid); }",
                        arg=old)
    live(b)
    assert titles(settle(b, base_url)) == ["Alpha", "Apple", "Avocado", "Bravo", "Blueberry", "Charlie", "Cherry", "Delta"]
    assert "new one was made" in b.text_content("#status-request")
    # The page asked whether the session or only its view was gone.
    expected = f"HTTP 404: GET {base_url}{old}"
    assert expected in errors
    errors[:] = [e for e in errors if e != expected]


def test_a_stored_view_the_server_no_longer_has_is_made_anew(window, base_url, session, errors):
    page = window()
    gone = "00000000000000aa"  # a view id no view of the session has
    page.add_init_script(f"sessionStorage.setItem('treesessions.view.' + {json.dumps(session)}, '{gone}')")
    page.goto(f"{base_url}/?session={session}")
    page.wait_for_function("document.getElementById('counts').textContent === '8 rows of 9 nodes'")
    live(page)
    assert not view_path(page).endswith(gone)
    settle(page, base_url)
    stale = [e for e in errors if f"/views/{gone}" in e]
    assert stale and all(e.startswith("HTTP 404: GET ") for e in stale), stale
    errors[:] = [e for e in errors if e not in stale]
    page.close()


def test_a_duplicated_tab_makes_a_view_of_its_own(tabs, window, base_url, session):
    """A duplicated tab starts with the original's sessionStorage: it finds the view taken by
    the original (BroadcastChannel) and makes its own, a copy of the original's state."""
    a, _ = tabs
    shown_a = settle(a, base_url)
    copy = window.watch(a.context.new_page())  # same context: the sessionStorage copied by hand
    vid = view_path(a).rsplit("/", 1)[1]
    copy.add_init_script(f"sessionStorage.setItem('treesessions.view.' + {json.dumps(session)}, '{vid}')")
    copy.goto(f"{base_url}/?session={session}")
    copy.wait_for_function("vid => { const sid = new URLSearchParams(location.search).get('session'); "
                           "const v = sessionStorage.getItem('treesessions.view.' + sid); return v && v !== vid; }", arg=vid)
    copy.wait_for_function(SHOWS, arg=shown_a)  # A's state: Alpha and Delta collapsed
    assert view_path(a).endswith(vid)  # the original keeps its view
    # From now on they go their own ways.
    row_of(copy, "Alpha").locator("button.disc").click()
    copy.wait_for_function("document.getElementById('counts').textContent === '8 rows of 9 nodes'")
    a.wait_for_timeout(500)
    assert a.evaluate(SHOWN) == shown_a
    copy.close()


def test_no_page_errors(tabs, errors):
    for p in tabs:
        p.close()
    assert errors == []
