/// The browser demo served at `/`: one self-contained page (HTML, CSS, JavaScript; no CDN, no
/// build step). The markup is here; the style sheet is in `DemoPage+Style.swift`, the script in
/// `DemoPage+Script.swift`, and the embedded outline sample in `DemoPage+Sample.swift`.
///
/// The page talks to the API of `API.md` only: it creates or attaches to a session, shows its
/// visible rows in a virtualized ARIA tree, and patches its row cache from the `changes` splices.
enum DemoPage {
    /// The whole page, UTF-8. Built once.
    static let html: [UInt8] = Array((head + style + body + "<script>\n" + sample + script + "</script>\n</body>\n</html>\n").utf8)

    static let head = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>TreeSessions demo</title>
<link rel="icon" href="data:,">

"""#

    static let body = #"""
</head>
<body>
<header class="bar">
  <h1>TreeSessions</h1>
  <form id="loader" class="group">
    <label>Sample
      <select id="sample">
        <option value="outline">Outline sample (38 nodes)</option>
        <option value="gen88k">Generated: 88,572 nodes (10 levels × 3)</option>
        <option value="gen797k">Generated: 797,160 nodes (12 levels × 3)</option>
        <option value="file">JSON file from disk…</option>
      </select>
    </label>
    <label>Expanded
      <select id="expand">
        <option value="all">all</option>
        <option value="none">none</option>
        <option value="1">to depth 1</option>
        <option value="2">to depth 2</option>
        <option value="3">to depth 3</option>
      </select>
    </label>
    <button id="load" type="submit">Load</button>
    <input id="file" type="file" accept=".json,application/json" hidden>
  </form>
  <span id="session" class="muted"></span>
</header>
<div class="bar toolbar">
  <input id="search" type="search" placeholder="Filter titles…" aria-label="Filter titles" aria-controls="tree" autocomplete="off" spellcheck="false">
  <select id="match" aria-label="Match mode">
    <option value="contains">contains</option>
    <option value="prefix">prefix</option>
    <option value="exact">exact</option>
  </select>
  <label title="Case-sensitive"><input id="case" type="checkbox"> Aa</label>
  <output id="counts" aria-live="polite"></output>
  <span class="fill"></span>
  <button id="expand-all" type="button">Expand all</button>
  <button id="collapse-all" type="button">Collapse all</button>
  <span class="group">
    <button id="expand-depth" type="button">Expand to depth</button>
    <input id="depth" type="number" min="0" max="999" value="2" aria-label="Depth">
  </span>
</div>
<div id="tree" role="tree" tabindex="0" aria-label="Visible rows" aria-busy="true">
  <div id="spacer" aria-hidden="true"></div>
  <div id="layer"></div>
  <p id="empty" aria-hidden="true" hidden></p>
</div>
<footer id="status" class="bar">
  <span id="status-request">Starting…</span>
  <span id="status-view"></span>
</footer>

"""#
}
