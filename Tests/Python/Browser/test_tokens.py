"""The demo page opened with an access token (issue 38).

A server started with an admin token (`--token`) and a signing key (`--signing-key-file`); the
test mints session tokens with the admin token over HTTP and opens the page as
`/?session=SID&token=TOKEN`. The page takes the token out of the address at once, keeps it in
the tab's sessionStorage and sends it as `Authorization: Bearer` with every request, its event
stream's included (the TypeScript client reads the stream with `fetch`, which sends headers), so
the token never appears in an address. A reader's page shows
rows, expands, filters and selects in its own view, offers no edit and says it is read-only
(the server refuses the reader's edits: 403); an editor's page renames; a token bound to a view
uses that view (no `POST …/views`); an edit made by the admin shows up live; an expired token
and a page without one say so over the tree; a stream whose connection breaks is opened again,
with the token, and is live.
"""
import json
import secrets
import socket
import threading
import time
import urllib.error
import urllib.parse

import pytest

from browser_ui import OPEN_OUTLINE_DONE, call, focus_row, live, row_of, view_path
from test_views import NODES  # Alpha (Apple, Avocado) and Bravo (Banana) expanded, Charlie, Delta (Date) collapsed

ADMIN = "admin-" + secrets.token_hex(8)

SHOWN_AT_FIRST = "7 rows of 8 nodes"

# The titles of the rows shown once they are all loaded; null before.
TITLES = """() => {
  const t = document.getElementById('tree');
  if (t.querySelector('.row.loading') || t.getAttribute('aria-busy') !== 'false') return null;
  return [...t.querySelectorAll('[role=treeitem]')].sort((a, b) => a.dataset.index - b.dataset.index)
    .map(e => e.querySelector('.title').textContent);
}"""
SHOWS_TITLE = "t => ((" + TITLES + ")() || []).includes(t)"


@pytest.fixture(scope="module")
def base_url(tree_server, tmp_path_factory):
    """A server that needs a credential: the admin token, or a session token it signed."""
    keys = tmp_path_factory.mktemp("keys") / "signing-keys"
    keys.write_text("k1 " + secrets.token_urlsafe(30)[:40] + "\n")
    return tree_server("--token", ADMIN, "--signing-key-file", str(keys)).url


def admin(base_url, method, path, body=None):
    return call(base_url, method, path, body, {"Authorization": "Bearer " + ADMIN})


def status_of(base_url, method, path, body=None, token=None):
    """The status of one request (and its problem's type), with `token` as the credential."""
    try:
        call(base_url, method, path, body, {"Authorization": "Bearer " + token} if token else None)
        return 200, None
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}").get("type")


@pytest.fixture(scope="module")
def session(base_url):
    return admin(base_url, "POST", "/sessions", {"nodes": NODES})["id"]


def mint(base_url, sid, role, view=None, ttl=600):
    answer = admin(base_url, "POST", f"/sessions/{sid}/tokens", {"role": role, "ttl": ttl, "view": view})
    assert answer["role"] == role and answer["view"] == view
    return answer["token"]


@pytest.fixture(scope="module")
def errors():
    """What went wrong in the module's pages: page errors, console errors, HTTP errors (a test
    that provokes some takes them out)."""
    return []


@pytest.fixture(scope="module")
def window(browser, errors):
    """A page in a window of its own (each context has its own sessionStorage); `page.requests`
    lists the requests it made, as (method, url, headers)."""
    contexts = []

    def make():
        ctx = browser.new_context(viewport={"width": 1100, "height": 700}, device_scale_factor=1, locale="en-US")
        ctx.set_default_timeout(20000)
        contexts.append(ctx)
        page = ctx.new_page()
        page.requests = []
        page.on("pageerror", lambda e: errors.append(f"pageerror: {e}"))
        # A failed request is logged as a console error too: it is told by the response, with its URL.
        page.on("console", lambda m: errors.append(f"console.{m.type}: {m.text}")
                if m.type == "error" and not m.text.startswith("Failed to load resource") else None)
        page.on("response", lambda r: errors.append(f"HTTP {r.status}: {r.request.method} {r.url}") if r.status >= 400 else None)
        page.on("request", lambda r: page.requests.append((r.method, r.url, r.headers)))
        return page

    yield make
    for ctx in contexts:
        ctx.close()


def counts(page, text):
    page.wait_for_function("t => document.getElementById('counts').textContent === t", arg=text)


def open_page(window, base_url, query):
    page = window()
    page.goto(f"{base_url}/?{query}")
    return page


def is_stream(url):
    """Whether `url` is an event stream's (`…/events`, not `…/events/token`)."""
    return urllib.parse.urlsplit(url).path.endswith("/events")


def api_requests(page, base_url):
    """The page's requests to the API (not the page itself)."""
    return [(m, u, h) for m, u, h in page.requests if u.startswith(base_url + "/sessions")]


def take(errors, pred):
    """Takes the errors `pred` expects out of `errors`; returns them."""
    taken = [e for e in errors if pred(e)]
    errors[:] = [e for e in errors if e not in taken]
    return taken


@pytest.fixture(scope="module")
def reader(window, base_url, session):
    token = mint(base_url, session, "reader")
    page = open_page(window, base_url, f"session={session}&token={token}")
    counts(page, SHOWN_AT_FIRST)
    live(page)
    page.token = token
    return page


def test_the_token_leaves_the_address_and_goes_with_every_request(reader, base_url, session):
    assert "token" not in reader.url and reader.url.endswith(f"/?session={session}")
    assert reader.evaluate("sid => sessionStorage.getItem('treesessions.token.' + sid)", session) == reader.token
    sent = api_requests(reader, base_url)
    assert sent and all(h.get("authorization") == "Bearer " + reader.token for m, u, h in sent), sent
    # An unbound reader makes its own view, as a page without a token does.
    assert ("POST", f"{base_url}/sessions/{session}/views") in [(m, u) for m, u, _ in sent]


def test_the_event_stream_carries_the_token_as_a_header(reader, base_url, session):
    """The stream is read with `fetch`, which sends `Authorization` (EventSource could not, and
    took a short events token in its address): no token is in any address, none is minted."""
    sent = api_requests(reader, base_url)
    streams = [(u, h) for m, u, h in sent if is_stream(u)]
    assert streams and all(h.get("authorization") == "Bearer " + reader.token for u, h in streams)
    assert not [u for m, u, _ in sent if reader.token in u or "access_token=" in u]
    assert ("POST", f"{base_url}/sessions/{session}/events/token") not in [(m, u) for m, u, _ in sent]


def test_a_reader_page_is_read_only(reader, base_url, session):
    assert reader.text_content("#status-access") == "read-only"
    assert reader.is_visible("#status-access")
    focus_row(reader, "Apple")
    # No edit control: the edit bar is hidden, and the keys that edit do nothing but say why.
    assert reader.locator("#edit-bar").is_hidden()
    assert not any(b.is_visible() for b in reader.locator("#edit-bar button").all())
    reader.keyboard.press("F2")
    assert reader.locator("#editor").is_hidden()
    reader.wait_for_function("document.getElementById('notice').textContent.includes('read-only')")
    reader.keyboard.press("Delete")
    row_of(reader, "Apple").locator(".title").dblclick()
    assert reader.locator("#editor").is_hidden()
    assert row_of(reader, "Apple").get_attribute("draggable") == "false"
    # Loading a tree would make a session: not with one session's token.
    assert reader.locator("#load").is_disabled()
    # The server refuses the reader's edits all the same.
    path = view_path(reader)
    assert status_of(base_url, "PATCH", f"{path}/items/a1", {"title": "Apple pie"}, reader.token) == \
        (403, "urn:treesessions:problem:forbidden")
    assert status_of(base_url, "DELETE", f"{path}/items/a1", None, reader.token)[0] == 403
    assert status_of(base_url, "POST", f"{path}/items", {"nodes": [{"title": "X"}]}, reader.token)[0] == 403
    assert call(base_url, "GET", f"/sessions/{session}/tree", headers={"Authorization": "Bearer " + ADMIN})["nodes"][0]["children"][0]["title"] == "Apple"


def test_a_reader_expands_filters_and_selects_in_its_view(reader, base_url):
    row_of(reader, "Delta").locator("button.disc").click()
    counts(reader, "8 rows of 8 nodes")
    assert reader.evaluate(TITLES)[-1] == "Date"
    rows = call(base_url, "GET", view_path(reader) + "/rows?limit=100", headers={"Authorization": "Bearer " + reader.token})
    assert [r["title"] for r in rows["rows"]][-1] == "Date"
    # Select: the view's own state; no edit of the selection is offered.
    row_of(reader, "Charlie").locator("input.check").click()
    reader.wait_for_function("document.getElementById('selected-count').textContent === '1 selected'")
    assert reader.locator("#delete-selected").is_hidden() and reader.locator("#move-selected").is_hidden()
    row_of(reader, "Charlie").locator("input.check").click()
    reader.wait_for_function("document.getElementById('selection-bar').hidden")
    # Filter.
    reader.fill("#search", "voc")
    reader.wait_for_function("JSON.stringify((" + TITLES + ")()) === JSON.stringify(['Alpha', 'Avocado'])")
    reader.fill("#search", "")
    counts(reader, "8 rows of 8 nodes")
    live(reader)


def test_an_edit_by_the_admin_shows_up_live(reader, base_url, session):
    live(reader)
    admin(base_url, "PATCH", f"/sessions/{session}/items/c", {"title": "Charlie (renamed)"})
    reader.wait_for_function(SHOWS_TITLE, arg="Charlie (renamed)", timeout=3000)
    admin(base_url, "PATCH", f"/sessions/{session}/items/c", {"title": "Charlie"})
    reader.wait_for_function(SHOWS_TITLE, arg="Charlie", timeout=3000)


def test_an_editor_renames(window, base_url, session):
    token = mint(base_url, session, "editor")
    page = open_page(window, base_url, f"access_token={token}")  # the session is the token's
    counts(page, SHOWN_AT_FIRST)
    assert "token" not in page.url and f"session={session}" in page.url
    assert page.locator("#status-access").is_hidden()
    focus_row(page, "Banana")
    page.locator("#edit-bar [data-action=rename]").click()
    page.fill("#editor", "Blueberry")
    page.keyboard.press("Enter")
    page.wait_for_function(SHOWS_TITLE, arg="Blueberry")
    tree = admin(base_url, "GET", f"/sessions/{session}/tree")
    assert tree["nodes"][1]["children"][0]["title"] == "Blueberry"
    admin(base_url, "PATCH", f"/sessions/{session}/items/b1", {"title": "Banana"})
    page.wait_for_function(SHOWS_TITLE, arg="Banana")
    page.close()


def test_a_reader_bound_to_a_view_uses_that_view(window, base_url, session):
    vid = admin(base_url, "POST", f"/sessions/{session}/views", {"expand": "none"})["id"]
    token = mint(base_url, session, "reader", view=vid)
    page = open_page(window, base_url, f"session={session}&token={token}")
    counts(page, "4 rows of 8 nodes")  # the view's layout: every folder collapsed
    live(page)
    assert view_path(page) == f"/sessions/{session}/views/{vid}"
    sent = api_requests(page, base_url)
    assert not [u for m, u, _ in sent if m == "POST" and u.endswith("/views")], sent
    assert not [u for m, u, _ in sent if f"/views/{vid}/" not in u and "/views/" in u]
    row_of(page, "Alpha").locator("button.disc").click()
    counts(page, "6 rows of 8 nodes")
    rows = admin(base_url, "GET", f"/sessions/{session}/views/{vid}/rows?limit=100")["rows"]
    assert [r["title"] for r in rows] == ["Alpha", "Apple", "Avocado", "Bravo", "Charlie", "Delta"]
    assert page.locator("#edit-bar").is_hidden()
    # Its events token is bound to the view too: the live stream works through it.
    admin(base_url, "PATCH", f"/sessions/{session}/items/a2", {"title": "Avocado (renamed)"})
    page.wait_for_function(SHOWS_TITLE, arg="Avocado (renamed)", timeout=3000)
    admin(base_url, "PATCH", f"/sessions/{session}/items/a2", {"title": "Avocado"})
    page.wait_for_function(SHOWS_TITLE, arg="Avocado", timeout=3000)
    page.close()


def test_an_expired_token_is_said_over_the_tree(window, base_url, session, errors):
    token = mint(base_url, session, "reader", ttl=3)
    page = open_page(window, base_url, f"session={session}&token={token}")
    counts(page, SHOWN_AT_FIRST)
    expires = int(token.split(".")[5]) / 1000
    time.sleep(max(0, expires - time.time()) + 0.5)
    row_of(page, "Alpha").locator("button.disc").click()
    page.wait_for_function("document.getElementById('state-title').textContent === 'The access token has expired'")
    assert page.is_visible("#state")
    assert "new link" in page.text_content("#state-text")
    assert page.get_attribute("#live", "data-state") == "offline"
    assert take(errors, lambda e: e.startswith("HTTP 401: ") and f"/sessions/{session}/" in e)
    page.close()


def test_a_revoked_token_is_said_over_the_tree(window, base_url, errors):
    sid = admin(base_url, "POST", "/sessions", {"nodes": NODES})["id"]  # revoking reaches every token of a session
    token = mint(base_url, sid, "editor")
    page = open_page(window, base_url, f"session={sid}&token={token}")
    counts(page, SHOWN_AT_FIRST)
    live(page)
    time.sleep(0.01)
    admin(base_url, "PATCH", f"/sessions/{sid}", {"tokensValidAfter": "now"})
    row_of(page, "Alpha").locator("button.disc").click()
    page.wait_for_function("document.getElementById('state-title').textContent === 'The access token was refused'")
    assert "revoked" in page.text_content("#state-text")
    assert page.get_attribute("#live", "data-state") == "offline"
    assert take(errors, lambda e: e.startswith("HTTP 401: ") and f"/sessions/{sid}/" in e)
    page.close()


def test_a_page_without_a_token_says_it_needs_one(window, base_url, session, errors):
    page = open_page(window, base_url, f"session={session}")
    page.wait_for_function("document.getElementById('state-title').textContent === 'This server needs an access token'")
    assert "token=" in page.text_content("#state-text")
    assert take(errors, lambda e: e == f"HTTP 401: GET {base_url}/sessions/{session}")
    page.close()


class Proxy:
    """A TCP proxy to the server whose open connections the test cuts (`cut`), as a network
    that goes away would: the browser's event stream breaks, and new connections go through."""

    def __init__(self, target):
        self.target = target
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.lock = threading.Lock()
        self.sockets = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(self.target)
            with self.lock:
                self.sockets += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(source, sink):
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        for s in (source, sink):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def cut(self):
        with self.lock:
            cut, self.sockets = self.sockets, []
        for s in cut:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()

    def close(self):
        self.listener.close()
        self.cut()


def test_a_broken_stream_is_opened_again_with_the_token(window, base_url, session):
    """The stream's connection is cut (as a network that goes away would): the page opens the
    stream again, with its token and the last event id it saw, and is live again."""
    server = urllib.parse.urlsplit(base_url)
    proxy = Proxy((server.hostname, server.port))
    token = mint(base_url, session, "reader")
    page = window()
    page.goto(f"{proxy.url}/?session={session}&token={token}")
    counts(page, SHOWN_AT_FIRST)
    live(page)
    streams = lambda: [(u, h) for m, u, h in page.requests if is_stream(u)]
    before = len(streams())
    proxy.cut()
    deadline = time.monotonic() + 15
    while len(streams()) <= before and time.monotonic() < deadline:
        page.wait_for_timeout(100)
    assert len(streams()) > before
    url, headers = streams()[-1]
    assert headers.get("authorization") == "Bearer " + token and token not in url
    assert headers.get("last-event-id")  # resumed where it was
    # The stream is live again: an edit shows up.
    page.wait_for_function("document.getElementById('live').dataset.state === 'live'", timeout=5000)
    admin(base_url, "PATCH", f"/sessions/{session}/items/d", {"title": "Delta (renamed)"})
    page.wait_for_function(SHOWS_TITLE, arg="Delta (renamed)", timeout=3000)
    admin(base_url, "PATCH", f"/sessions/{session}/items/d", {"title": "Delta"})
    page.wait_for_function(SHOWS_TITLE, arg="Delta", timeout=3000)
    page.close()
    proxy.close()


def test_the_admin_token_loads_a_tree(window, base_url):
    """Any other token is the server's admin token: the page loads a tree (a new session) with it."""
    page = open_page(window, base_url, "token=" + ADMIN)
    assert page.url == base_url + "/"
    page.click("#state button.primary")
    page.wait_for_function(OPEN_OUTLINE_DONE)
    live(page)
    assert "token" not in page.url and page.locator("#status-access").is_hidden()
    assert all(h.get("authorization") == "Bearer " + ADMIN for m, u, h in api_requests(page, base_url))
    streams = [u for m, u, _ in page.requests if is_stream(u)]
    assert streams and ADMIN not in streams[-1]  # the token goes as a header, never in an address
    page.close()


def test_no_page_errors(reader, errors):
    reader.close()
    assert errors == []
