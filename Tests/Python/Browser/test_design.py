"""The demo as a designer looks at it (issue 33): one compact toolbar that folds into a menu on
narrow screens, icons with labels, a constant indentation with guides, folder and leaf icons,
badges on collapsed rows of a filtered view, the focused row's `data` in a details pane, a
dialog whose default is not the destructive button, clear start, empty and error states, the
tree's name in the toolbar, type-ahead; and the screenshots at 1280 and 420 px for docs/DEMO.md.
"""
import json
import os
import re

import pytest

from browser_ui import OPEN_OUTLINE_DONE, call, open_outline, reach, view_path

INDENT, INDENT_START = 18, 8  # px per level, px before the first level (demo.css, demo.js)

# A product plan whose items carry data (an object of plain values, or with a list inside).
PLAN = [
    {"id": "app", "title": "Mobile app 3.0", "expanded": True,
     "data": {"owner": "Ana Ruiz", "status": "in progress", "due": "2026-03-31"}, "children": [
        {"id": "sync", "title": "Offline sync", "expanded": True,
         "data": {"owner": "Ben Ito", "status": "in progress", "estimate": 13}, "children": [
            {"id": "queue", "title": "Queue edits while offline", "data": {"owner": "Ben Ito", "status": "done", "estimate": 5}},
            {"id": "merge", "title": "Merge on reconnect",
             "data": {"owner": "Chloé Martin", "status": "review", "estimate": 8, "links": ["#412", "#418"]}},
            {"id": "conflicts", "title": "Conflict screen", "data": {"owner": "Chloé Martin", "status": "todo", "estimate": 3}}]},
        {"id": "search", "title": "Search everywhere", "data": {"owner": "Dev Patel", "status": "todo"}, "children": [
            {"title": "Search suggestions"}, {"title": "Sync search history"}, {"title": "Recent searches"}]},
        {"id": "onboarding", "title": "Onboarding", "children": [{"title": "Welcome tour"}, {"title": "Sign in with passkeys"}]}]},
    {"id": "web", "title": "Web dashboard", "expanded": True, "data": {"owner": "Eva Novak", "status": "planned"}, "children": [
        {"title": "Usage charts"}, {"title": "Team sync settings"}, {"title": "Export to CSV"}]},
    {"id": "ops", "title": "Operations", "expanded": True, "children": [
        {"id": "backups", "title": "Backups"}, {"title": "Status page"},
        {"title": "On-call rota", "data": {"owner": "Finn Berg", "rotation": "weekly"}}]},
]

ROWS = """() => [...document.querySelectorAll('#tree [role=treeitem]')]
  .sort((a, b) => a.dataset.index - b.dataset.index)
  .map(e => ({ index: +e.dataset.index, title: e.querySelector('.title').textContent, level: +e.getAttribute('aria-level'),
               expanded: e.getAttribute('aria-expanded'), indent: parseFloat(getComputedStyle(e).paddingLeft),
               guides: getComputedStyle(e).backgroundSize, guideImage: getComputedStyle(e).backgroundImage,
               icon: [...e.querySelector('.i').classList].find(c => c.startsWith('i-')),
               iconBox: (b => [b.width, b.height])(e.querySelector('.i').getBoundingClientRect()),
               iconMask: getComputedStyle(e.querySelector('.i')).maskImage,
               badge: e.querySelector('.badge')?.textContent ?? null }))"""

FOCUSED_TITLE = "() => document.querySelector('#tree .row.focused .title')?.textContent"


@pytest.fixture
def window(browser):
    """Opens pages in windows of a given size; their errors must be none but those expected."""
    opened = []

    def open_window(width=1280, height=800, expected_errors=0):
        ctx = browser.new_context(viewport={"width": width, "height": height}, device_scale_factor=1,
                                  color_scheme="light", locale="en-US")
        ctx.set_default_timeout(20000)
        page = ctx.new_page()
        page.errors = []
        page.on("pageerror", lambda e: page.errors.append(f"pageerror: {e}"))
        page.on("console", lambda m: page.errors.append(f"console: {m.text}") if m.type == "error" else None)
        opened.append((ctx, page, expected_errors))
        return page

    yield open_window
    for ctx, page, expected in opened:
        errors = page.errors
        ctx.close()
        assert len(errors) == expected, errors


def idle(page):
    page.wait_for_timeout(50)
    page.wait_for_function("document.getElementById('tree').getAttribute('aria-busy') === 'false' "
                           "&& !document.querySelector('#tree .row.loading')")


def plan_session(base_url):
    return call(base_url, "POST", "/sessions", {"nodes": PLAN})["id"]


def attach(page, base_url, sid):
    page.goto(f"{base_url}/?session={sid}")
    page.wait_for_function("document.getElementById('counts').textContent.endsWith(' nodes')")
    idle(page)


def click_row(page, title):
    page.locator("#tree [role=treeitem] .title", has_text=re.compile("^" + re.escape(title) + "$")).click()
    page.wait_for_function(f"({FOCUSED_TITLE})() === {json.dumps(title)}")


def box(page, selector):
    return page.locator(selector).bounding_box()


@pytest.mark.parametrize("width", [1280, 1200])
def test_one_compact_toolbar(window, base_url, width):
    """Every control of the toolbar on one line; the tree starts right under it."""
    page = window(width, 800)
    open_outline(page, base_url)
    bar = box(page, "#bar")
    assert bar["height"] <= 48, bar
    assert box(page, "#tree")["y"] <= bar["y"] + bar["height"] + 1
    tops = page.evaluate("""() => [...document.querySelectorAll('#bar > *, #bar-more > *')]
        .filter(e => e.id !== 'bar-more' && e.getBoundingClientRect().height > 0)
        .map(e => Math.round(e.getBoundingClientRect().top))""")
    assert max(tops) - min(tops) <= 8, tops


def test_the_toolbar_folds_into_a_menu_on_a_narrow_screen(window, base_url):
    page = window(420, 860)
    open_outline(page, base_url)
    assert box(page, "#tree")["y"] <= 72  # search, Menu and one line of counts above it
    assert page.evaluate("document.documentElement.scrollWidth") <= 420
    assert page.locator("#menu-toggle").is_visible() and not page.locator("#view-menu").is_visible()
    assert not page.locator("#details").is_visible()  # a sheet opened from the menu
    page.click("#menu-toggle")
    assert page.get_attribute("#menu-toggle", "aria-expanded") == "true"
    for control in ("#filter-menu", "#view-menu", "#help", "#details-toggle"):
        assert page.locator(control).is_visible(), control
    page.click("#view-menu > summary")
    page.click("#collapse-all")  # the action closes the menu
    page.wait_for_function("document.getElementById('counts').textContent === '5 rows of 38 nodes'")
    assert not page.locator("#bar-more").is_visible()
    # The details: a sheet over the lower part of the tree, with the edit buttons.
    click_row(page, "Lists")
    page.click("#menu-toggle")
    page.click("#details-toggle")
    assert page.locator("#details").is_visible() and page.locator("#edit-bar [data-action=rename]").is_visible()
    sheet, tree = box(page, "#details"), box(page, "#tree")
    assert sheet["width"] >= 400 and sheet["y"] > tree["y"] + 100
    assert page.text_content("#details-title") == "Lists"
    # The Open menu is in the toolbar, as an icon.
    page.click("#open-menu > summary")
    assert page.locator("#sample").is_visible() and page.locator("#load").is_visible()
    assert box(page, "#open-menu .menu-panel")["width"] <= 420


def test_distinct_actions_have_icons_and_labels(window, base_url):
    page = window()
    open_outline(page, base_url)
    buttons = page.evaluate("""() => [...document.querySelectorAll('#bar button, #bar summary, #edit-bar button')]
        .map(b => ({ id: b.id, action: b.dataset.action || null, text: b.textContent.trim(), label: b.getAttribute('aria-label'),
                     inSearch: !!b.closest('.search-box'), icon: !!b.querySelector('.i'),
                     mask: b.querySelector('.i') ? getComputedStyle(b.querySelector('.i')).maskImage : 'none' }))""")
    assert len(buttons) >= 16
    for b in buttons:
        assert b["icon"] and b["mask"].startswith("url(\"data:image/svg+xml"), b  # inline, no request
        assert not re.search("[↑↓←→]", b["text"]), b
        if b["inSearch"]:  # the match navigation and the highlight switch: icons in the search box, named
            assert b["label"] in ("Previous match", "Next match", "Highlight instead of filter"), b
        else:
            assert b["text"], b  # a label beside the icon
    texts = [b["text"] for b in buttons if b["text"]]
    assert len(texts) == len(set(texts)), texts
    moves = {b["action"]: b["text"] for b in buttons if b["action"]}
    assert moves["move-up"] == "Move up" and moves["move-down"] == "Move down"
    assert moves["outdent"] == "Outdent" and moves["indent"] == "Indent"


def test_indentation_is_constant_with_guides(window, base_url):
    """18 px a level at every depth (a 40-level chain), and one guide line per ancestor."""
    chain = {"title": "Level 39"}
    for level in range(38, -1, -1):
        chain = {"title": f"Level {level}", "expanded": True, "children": [chain]}
    sid = call(base_url, "POST", "/sessions", {"nodes": [chain]})["id"]
    page = window(1280, 1200)
    attach(page, base_url, sid)
    page.evaluate("document.getElementById('tree').scrollTop = 1e6")
    idle(page)
    rows = page.evaluate(ROWS)
    assert rows[-1]["title"] == "Level 39" and rows[-1]["level"] == 40
    for r in rows:
        level0 = r["level"] - 1
        assert r["indent"] == INDENT_START + INDENT * level0, r
        assert r["guides"].startswith(f"{INDENT * level0}px"), r
        assert "repeating-linear-gradient" in r["guideImage"], r
    steps = {b["indent"] - a["indent"] for a, b in zip(rows, rows[1:])}
    assert steps == {INDENT}


def test_folder_and_leaf_icons(window, base_url):
    page = window()
    attach(page, base_url, plan_session(base_url))
    click_row(page, "Search everywhere")
    rows = {r["title"]: r for r in page.evaluate(ROWS)}
    assert rows["Mobile app 3.0"]["icon"] == "i-folder-open" and rows["Mobile app 3.0"]["expanded"] == "true"
    assert rows["Search everywhere"]["icon"] == "i-folder" and rows["Search everywhere"]["expanded"] == "false"
    assert rows["Backups"]["icon"] == "i-file" and rows["Backups"]["expanded"] is None
    masks = {r["icon"]: r["iconMask"] for r in rows.values()}
    assert len(set(masks.values())) == 3 and all(m.startswith("url(") for m in masks.values())
    assert all(r["iconBox"] == [16, 16] for r in rows.values())


def test_badges_on_collapsed_rows_of_a_filtered_view(window, base_url):
    sid = plan_session(base_url)
    page = window()
    attach(page, base_url, sid)
    page.fill("#search", "sync")
    page.wait_for_function("document.getElementById('counts').textContent.startsWith('3 matches')")
    idle(page)
    reach(page, "#collapse-all").click()  # in the filtered view
    page.wait_for_function("document.getElementById('counts').textContent === '3 matches · 2 rows'")
    idle(page)
    server = call(base_url, "GET", f"{view_path(page)}/rows?filter=sync&limit=100")["rows"]  # the page's own view
    shown = page.evaluate(ROWS)
    assert [r["title"] for r in shown] == [r["title"] for r in server]
    for mine, theirs in zip(shown, server):
        n = theirs["matchesBelow"]
        assert mine["badge"] == (f"{n} {'match' if n == 1 else 'matches'}" if n else None), (mine, theirs)
    assert shown[0]["badge"] == "2 matches" and shown[1]["badge"] == "1 match"


def test_the_details_pane_shows_the_focused_rows_data(window, base_url):
    page = window()
    attach(page, base_url, plan_session(base_url))
    assert page.locator("#details").is_visible()
    assert box(page, "#details")["x"] >= box(page, "#tree")["x"] + box(page, "#tree")["width"] - 1  # beside the tree
    click_row(page, "Offline sync")
    assert page.text_content("#details-title") == "Offline sync"
    assert page.text_content("#details-id") == "sync"
    assert page.text_content("#details-place") == "level 2 · 1 of 3 siblings · expanded"
    table = page.eval_on_selector_all("#details-data tr", "trs => trs.map(tr => [...tr.cells].map(c => c.textContent))")
    assert table == [["owner", "Ben Ito"], ["status", "in progress"], ["estimate", "13"]]
    click_row(page, "Merge on reconnect")  # data with a list inside: its JSON
    assert json.loads(page.text_content("#details-data pre")) == PLAN[0]["children"][0]["children"][1]["data"]
    page.keyboard.press("ArrowDown")  # follows the focus
    page.wait_for_function("document.getElementById('details-title').textContent === 'Conflict screen'")
    click_row(page, "Backups")
    assert page.text_content("#details-data") == "none"
    # Hidden and shown again with the toolbar's Details button.
    page.click("#details-toggle")
    assert not page.locator("#details").is_visible() and page.get_attribute("#details-toggle", "aria-expanded") == "false"
    page.click("#details-toggle")
    assert page.locator("#details").is_visible()


def test_the_delete_dialog_defaults_to_cancel(window, base_url):
    sid = plan_session(base_url)
    page = window()
    attach(page, base_url, sid)
    click_row(page, "Offline sync")
    page.keyboard.press("Delete")
    page.wait_for_selector("#confirm[open]")
    assert page.evaluate("document.activeElement.id") == "confirm-cancel"
    page.keyboard.press("Enter")
    page.wait_for_selector("#confirm:not([open])", state="attached")
    page.wait_for_timeout(200)
    assert call(base_url, "GET", f"/sessions/{sid}/items/sync")["title"] == "Offline sync"
    page.click("#edit-bar [data-action=delete]")
    page.wait_for_selector("#confirm[open]")
    page.click("#confirm-delete")
    page.wait_for_function("![...document.querySelectorAll('#tree .title')].some(t => t.textContent === 'Offline sync')")


def test_start_empty_and_expired_states(window, base_url):
    page = window(expected_errors=1)  # the 404 of the expired session
    page.goto(base_url + "/?session=no-such-session")
    page.wait_for_selector("#state:not([hidden])")
    assert page.text_content("#state-title") == "This session has expired — start a new one"
    assert "no-such-session" in page.text_content("#state-text")
    assert page.get_attribute("#tree", "aria-busy") == "false"
    page.click("#state button.primary")  # Start a new session
    page.wait_for_function(OPEN_OUTLINE_DONE)
    assert page.locator("#state").is_hidden()
    assert "no-such-session" not in page.url
    # An empty tree says so and offers to add an item.
    empty = call(base_url, "POST", "/sessions", {"nodes": []})["id"]
    page.goto(f"{base_url}/?session={empty}")
    page.wait_for_selector("#state:not([hidden])")
    assert page.text_content("#state-title") == "The tree is empty"
    page.click("#state button.primary")  # Add an item
    page.wait_for_function("document.activeElement.id === 'editor'")
    page.keyboard.type("First")
    page.keyboard.press("Enter")
    page.wait_for_function("document.querySelector('#row-0 .title')?.textContent === 'First'")
    assert page.locator("#state").is_hidden()
    # No title matches: a button clears the filter.
    page.fill("#search", "zzz")
    page.wait_for_selector("#state:not([hidden])")
    assert page.text_content("#state-title") == "No title matches “zzz”"
    page.click("#state button.primary")
    page.wait_for_function("document.getElementById('counts').textContent.startsWith('1 row of ')")
    assert page.input_value("#search") == "" and page.locator("#state").is_hidden()


def test_the_toolbar_names_the_tree_shown(window, base_url, tmp_path):
    page = window()
    open_outline(page, base_url)
    assert page.text_content("#tree-name") == "Outline sample · 38 nodes"
    sid = plan_session(base_url)
    attach(page, base_url, sid)
    assert page.text_content("#tree-name") == f"Session {sid} · 20 nodes"
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(PLAN), encoding="utf-8")
    with page.expect_file_chooser() as chooser:
        reach(page, "#sample").select_option("file")
        reach(page, "#load").click()
    chooser.value.set_files(str(path))
    page.wait_for_function("document.getElementById('tree-name').textContent === 'plan.json · 20 nodes'")


def test_type_ahead_moves_to_the_next_title_starting_with_the_letters(window, base_url):
    page = window()
    open_outline(page, base_url)
    page.locator("#row-0 .title").click()

    def typed(keys, title):
        for key in keys:
            page.keyboard.press(key)
        page.wait_for_function(f"({FOCUSED_TITLE})() === {json.dumps(title)}")

    typed(["d"], "Distinct Sections")
    typed(["d"], "Diffable Data Source")  # the same letter again: the next one
    page.wait_for_timeout(800)  # a pause starts a new prefix
    page.keyboard.type("list w", delay=40)  # a space inside a prefix is part of it
    page.wait_for_function(f"({FOCUSED_TITLE})() === 'List with Custom Cells'")
    page.wait_for_timeout(800)
    typed(["End"], "Custom Configurations")
    typed(["Shift+C"], "Compositional Layout")  # around the end; letter case does not matter
    assert page.get_attribute("#tree", "aria-activedescendant") == "row-0"
    page.wait_for_timeout(800)
    page.keyboard.press(" ")  # a space alone is not type-ahead
    page.wait_for_timeout(100)
    assert page.evaluate(FOCUSED_TITLE) == "Compositional Layout"


def test_screenshots_at_1280_and_420(window, base_url):
    path = os.environ.get("SCREENSHOT")
    if not path:
        pytest.skip("SCREENSHOT not set")
    folder = os.path.dirname(path)
    for width, height in ((1280, 720), (420, 820)):
        page = window(width, height)
        attach(page, base_url, plan_session(base_url))  # a session each: views keep their expansion
        page.fill("#search", "sync")
        page.wait_for_function("document.getElementById('counts').textContent.startsWith('3 matches')")
        idle(page)
        page.locator("#tree [role=treeitem]", has_text="Web dashboard").locator("button.disc").click()
        page.wait_for_function("!!document.querySelector('#tree .badge')")
        page.locator("#tree [role=treeitem]", has_text="Offline sync").locator("button.disc").click()
        page.wait_for_function("document.getElementById('counts').textContent === '3 matches · 8 rows'")
        click_row(page, "Offline sync")
        if width < 760:  # the details, as a sheet opened from the menu
            page.click("#menu-toggle")
            page.click("#details-toggle")
        idle(page)
        shot = os.path.join(folder, f"demo-{width}.png")
        page.screenshot(path=shot)
        assert os.path.getsize(shot) > 10000
