"""Reaching the demo's controls as a user does: the toolbar keeps its secondary controls in menus
(<details>), and on narrow screens behind the Menu button; `reach` opens what hides a control."""

import json
import urllib.request

OPEN_OUTLINE_DONE = "document.getElementById('counts').textContent === '38 rows of 38 nodes'"


def reach(page, selector):
    """The locator of `selector`, after opening the menus that hide it (clicking as a user would)."""
    if page.locator(selector).is_visible():
        return page.locator(selector)
    if page.evaluate("s => !!document.querySelector(s).closest('#bar-more')", selector) \
            and page.locator("#menu-toggle").is_visible() and page.get_attribute("#menu-toggle", "aria-expanded") != "true":
        page.click("#menu-toggle")
    # The closed <details> around it, outermost first.
    closed = page.evaluate("""s => {
        const ids = [];
        for (let d = document.querySelector(s).closest('details'); d; d = d.parentElement.closest('details'))
            if (!d.open) ids.unshift(d.id);
        return ids; }""", selector)
    for menu in closed:
        page.click(f"#{menu} > summary")
    return page.locator(selector)


def load(page, sample, expand="all"):
    """Chooses a sample and how far it is expanded in the Open menu, then presses Load."""
    reach(page, "#sample").select_option(sample)
    reach(page, "#expand").select_option(expand)
    reach(page, "#load").click()


def open_outline(page, base_url):
    """A fresh visit to / (no session yet), then the empty state's button: the outline sample."""
    page.goto(base_url + "/")
    page.click("#state button.primary")
    page.wait_for_function(OPEN_OUTLINE_DONE)


# The path of the page's own view of its session: each tab has one, its id kept in the tab's
# sessionStorage (demo.js, `ensureView`); null until the page made or found it.
VIEW_PATH = """() => {
  const sid = new URLSearchParams(location.search).get('session');
  const vid = sid && sessionStorage.getItem('treesessions.view.' + sid);
  return vid ? `/sessions/${encodeURIComponent(sid)}/views/${vid}` : null;
}"""


def view_path(page):
    """`/sessions/{sid}/views/{vid}`: the page's own view, through which it reads and changes rows."""
    page.wait_for_function(VIEW_PATH)
    return page.evaluate(VIEW_PATH)


def call(base_url, method, path, body=None, headers=None):
    """One API request: `body` sent as JSON, the answer's JSON (None when it has no body)."""
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(base_url + path, data=data, method=method, headers=dict(headers or {}))
    if data is not None:
        request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=10) as response:
        text = response.read()
        return json.loads(text) if text else None


def row_of(page, title):
    """The row whose title is `title`, as a locator."""
    index = page.evaluate("t => [...document.querySelectorAll('#tree [role=treeitem]')]"
                          ".find(e => e.querySelector('.title').textContent === t).dataset.index", title)
    return page.locator(f"#row-{index}")


def focus_row(page, title):
    """Focuses the row by clicking its title."""
    row = row_of(page, title)
    row.locator(".title").click()
    page.wait_for_function("id => document.getElementById('tree').getAttribute('aria-activedescendant') === id",
                           arg=row.get_attribute("id"))


def live(page):
    """Waits until the page's event stream is open."""
    page.wait_for_function("document.getElementById('live').dataset.state === 'live'", timeout=5000)
