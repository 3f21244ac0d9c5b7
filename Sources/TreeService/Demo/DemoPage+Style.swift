extension DemoPage {
    /// The style sheet: a full-height column (header, toolbar, the scrolling tree, status line),
    /// light and dark.
    static let style = #"""
<style>
:root {
  --row: 26px;
  --bg: #ffffff; --fg: #1d1d1f; --muted: #6e6e73; --line: #e3e3e8; --panel: #f6f6f8;
  --hover: #f2f4f7; --focus: #e3edfd; --accent: #1a66d9; --mark: #ffd84d; --error: #c62828;
  --skeleton: #ececf0;
  color-scheme: light dark;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #1c1c1e; --fg: #f2f2f7; --muted: #9a9aa1; --line: #38383c; --panel: #242426;
    --hover: #2a2a2e; --focus: #1f3350; --accent: #5b9cff; --mark: #8a6d00; --error: #ff6b6b;
    --skeleton: #2e2e32;
  }
}
* { box-sizing: border-box; }
html, body { height: 100%; margin: 0; }
body {
  display: flex; flex-direction: column; background: var(--bg); color: var(--fg);
  font: 14px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "DejaVu Sans", sans-serif;
}
.bar { display: flex; flex-wrap: wrap; align-items: center; gap: 8px 14px; padding: 8px 16px; }
header.bar { border-bottom: 1px solid var(--line); background: var(--panel); }
.toolbar { border-bottom: 1px solid var(--line); }
h1 { font-size: 16px; margin: 0 6px 0 0; letter-spacing: .01em; }
.group { display: flex; flex-wrap: wrap; align-items: center; gap: 8px; }
label { display: inline-flex; align-items: center; gap: 6px; }
.muted, output { color: var(--muted); }
.fill { flex: 1; }
select, input, button { font: inherit; color: inherit; }
select, input[type=search], input[type=number], button {
  height: 30px; border: 1px solid var(--line); border-radius: 6px; background: var(--bg); padding: 0 8px;
}
button { cursor: pointer; }
button:hover { border-color: var(--muted); }
#load { background: var(--accent); border-color: var(--accent); color: #fff; }
#search { width: 260px; }
#depth { width: 64px; }
a { color: var(--accent); }
#tree { flex: 1; position: relative; overflow: auto; outline: none; overscroll-behavior: contain; }
#layer { position: absolute; top: 0; left: 0; right: 0; overflow: hidden; contain: strict; }
#spacer { width: 1px; }
.row {
  position: absolute; top: 0; left: 0; right: 0; height: var(--row);
  display: flex; align-items: center; padding-right: 12px; white-space: nowrap; cursor: default;
  user-select: none; will-change: transform;
}
.row:hover { background: var(--hover); }
.row.focused { background: var(--focus); }
#tree:focus-visible .row.focused { box-shadow: inset 3px 0 0 var(--accent); }
.disc, .leaf { flex: none; width: 20px; height: 20px; margin-right: 4px; }
.disc {
  display: grid; place-items: center; padding: 0; border: 0; border-radius: 4px; background: none;
  color: var(--muted); cursor: pointer;
}
.disc:hover { background: var(--line); color: var(--fg); }
.disc::before {
  content: ""; width: 6px; height: 6px; margin-left: -2px;
  border-right: 2px solid currentColor; border-bottom: 2px solid currentColor;
  transform: rotate(-45deg); transition: transform .12s;
}
.row[aria-expanded="true"] .disc::before { transform: translateY(-3px) rotate(45deg); margin: 0; }
.leaf::before { content: ""; display: block; width: 4px; height: 4px; margin: 8px; border-radius: 50%; background: var(--line); }
.title { overflow: hidden; text-overflow: ellipsis; }
.row.context .title { color: var(--muted); }
mark { background: var(--mark); color: inherit; border-radius: 2px; padding: 0 1px; }
.row.loading::after {
  content: ""; display: block; height: 10px; width: 180px; margin-left: 35px; border-radius: 5px; background: var(--skeleton);
}
#empty { position: absolute; top: 24px; left: 0; right: 0; text-align: center; color: var(--muted); margin: 0; }
#status {
  justify-content: space-between; border-top: 1px solid var(--line); background: var(--panel);
  font: 12px/1.4 ui-monospace, "SF Mono", "DejaVu Sans Mono", Menlo, monospace; color: var(--muted); padding: 5px 16px;
}
#status .error { color: var(--error); }
</style>

"""#
}
