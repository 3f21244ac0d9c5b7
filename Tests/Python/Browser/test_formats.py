"""Opening a file of any format in the demo: chosen with the file picker or dropped on the page.
Each test checks the rows the page shows against what the server holds for the new session
(its export as NDJSON: ids, titles, parents)."""
import json
import re
import urllib.request

import pytest

from browser_ui import load, open_outline, reach

CSV = "id,parentId,title,owner\r\nb1,a,\"Budget, 2026\",ann\r\na,,Finance,bob\r\nc,a,\"Quote \"\"Q1\"\"\",cy\r\n"
NDJSON = '{"id":2,"parentId":1,"title":"Child"}\n{"id":1,"parentId":null,"title":"Root","expanded":true}\n'
PATHS = "src/main.swift\nsrc/util/strings.swift\nREADME.md\ndocs/\n"
DOCUMENT = '{"store":{"book":[{"title":"Sayings","price":8.95}],"open":true}}'


@pytest.fixture(scope="module")
def page(context, base_url):
    p = context.new_page()
    open_outline(p, base_url)
    return p


def export(base_url, sid):
    request = urllib.request.Request(f"{base_url}/sessions/{sid}/tree", headers={"Accept": "application/x-ndjson"})
    with urllib.request.urlopen(request, timeout=10) as r:
        assert r.headers["Content-Type"].startswith("application/x-ndjson")
        return [json.loads(line) for line in r.read().decode().splitlines()]


def opened(page, previous):
    """Waits until the page attached to a session other than `previous`, fully loaded; its id."""
    page.wait_for_function("p => location.search.includes('session=') && !location.search.includes(p)", arg=previous)
    page.wait_for_function("document.getElementById('tree').getAttribute('aria-busy') === 'false'")
    return re.search(r"session=([^&]+)", page.url).group(1)


def titles(page):
    page.wait_for_timeout(100)
    return page.eval_on_selector_all(
        "#tree [role=treeitem]",
        "els => els.sort((a, b) => a.dataset.index - b.dataset.index).map(e => e.querySelector('.title').textContent)")


def choose(page, name, text, mime):
    with page.expect_file_chooser() as chooser:
        load(page, "file", "all")
    chooser.value.set_files(files=[{"name": name, "mimeType": mime, "buffer": text.encode()}])


def drop(page, name, text, mime):
    """A real drop event with a DataTransfer holding the file, on the tree."""
    reach(page, "#expand").select_option("all")
    page.evaluate("""([name, text, mime]) => {
        const data = new DataTransfer();
        data.items.add(new File([text], name, { type: mime }));
        const target = document.getElementById('tree');
        target.dispatchEvent(new DragEvent('dragover', { dataTransfer: data, bubbles: true, cancelable: true }));
        target.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
    }""", [name, text, mime])


def current(page):
    return re.search(r"session=([^&]+)", page.url).group(1)


def test_csv_from_the_file_picker(page, base_url):
    before = current(page)
    choose(page, "budget.csv", CSV, "text/csv")
    sid = opened(page, before)
    page.wait_for_function("document.getElementById('counts').textContent === '3 rows of 3 nodes'")
    assert titles(page) == ["Finance", "Budget, 2026", 'Quote "Q1"']
    nodes = export(base_url, sid)
    assert [(n["id"], n["parentId"]) for n in nodes] == [("a", None), ("b1", "a"), ("c", "a")]
    assert nodes[1]["data"] == {"owner": "ann"}


def test_ndjson_dropped_on_the_page(page, base_url):
    before = current(page)
    drop(page, "rows.ndjson", NDJSON, "")
    sid = opened(page, before)
    page.wait_for_function("document.getElementById('counts').textContent === '2 rows of 2 nodes'")
    assert titles(page) == ["Root", "Child"]
    assert [(n["id"], n["parentId"]) for n in export(base_url, sid)] == [(1, None), (2, 1)]


def test_path_list_dropped_on_the_page(page, base_url):
    before = current(page)
    drop(page, "files.txt", PATHS, "text/plain")
    sid = opened(page, before)
    page.wait_for_function("document.getElementById('counts').textContent === '6 rows of 6 nodes'")
    assert titles(page) == ["src", "main.swift", "util", "strings.swift", "README.md", "docs"]
    ids = [n["id"] for n in export(base_url, sid)]
    assert ids == ["src", "src/main.swift", "src/util", "src/util/strings.swift", "README.md", "docs"]


def test_any_json_document_dropped_on_the_page(page, base_url):
    before = current(page)
    drop(page, "store.json", DOCUMENT, "application/json")
    sid = opened(page, before)
    page.wait_for_function("document.getElementById('counts').textContent === '6 rows of 6 nodes'")
    assert titles(page) == ["store", "book", "[0]", "title: Sayings", "price: 8.95", "open: true"]
    ids = [n["id"] for n in export(base_url, sid)]
    assert ids == ["/store", "/store/book", "/store/book/0", "/store/book/0/title", "/store/book/0/price", "/store/open"]


def test_a_bad_file_says_where(page):
    before = current(page)
    drop(page, "broken.csv", "id,parentId,title\nx,nowhere,Lost\n", "text/csv")
    page.wait_for_function("/line 2/.test(document.getElementById('status-request').textContent)")
    assert current(page) == before
