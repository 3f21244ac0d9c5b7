import Foundation

/// The browser demo served at `/`: one page (no CDN, no build step) whose parts are plain files
/// beside this one — `index.html`, `demo.css`, `demo.js` and the outline sample
/// `outline-small.json` — compiled into the binary as package resources (`embedInCode` in
/// Package.swift). `index.html` refers to the others as a browser would; the page served puts
/// each one in place of the tag that refers to it. The script is an ES module
/// (`<script type="module">`, inline) that imports the repository's TypeScript client from
/// `./client/index.js`, which `ClientModule` serves: the page's other requests are those modules
/// and the API.
///
/// The page talks to the API of `docs/API.md` only, through the client: it creates or attaches
/// to a session, makes a view of its own for each browser tab (`POST /sessions/{sid}/views`,
/// kept in the tab's `sessionStorage`) and goes through it for everything else. The client's
/// `TreeRows` holds the view's rows for the virtualized ARIA tree: it fetches them by blocks,
/// patches them from the `changes` splices of the page's own change responses and of the view's
/// event stream (`GET /sessions/{sid}/views/{vid}/events`, read with `fetch`), and sends the
/// edits of the shared tree (rename, insert, delete, move) with `If-Match`; the checkboxes
/// select in the view's selection, and what is selected is deleted or moved in one batch.
/// `demo.js` keeps the page: the DOM, the keys, the dialogs.
///
/// Opened as `/?session={sid}&token={token}` (or `access_token=`), it keeps the token in the
/// tab's `sessionStorage`, takes it out of the address at once and sends it as
/// `Authorization: Bearer` with every request, the event stream's included. It reads a session
/// token's plain fields: a reader's page is read-only (no edit control), and one bound to a
/// view uses that view instead of making its own. A 401 is shown over the tree.
enum DemoPage {
    /// The whole page, UTF-8. Built once.
    static let html: [UInt8] = Array(assemble(
        page: text(PackageResources.index_html),
        style: text(PackageResources.demo_css),
        script: text(PackageResources.demo_js),
        sample: text(PackageResources.outline_small_json)).utf8)

    /// The tags of `index.html` that the served page replaces by the files they name.
    static let styleTag = #"<link rel="stylesheet" href="demo.css">"#
    static let sampleTag = #"<script id="outline-sample" type="application/json" src="outline-small.json"></script>"#
    static let scriptTag = #"<script type="module" src="demo.js"></script>"#

    /// `page` with the style sheet, the sample (a JSON data block the script reads) and the script
    /// (a module) inlined in place of their tags.
    static func assemble(page: String, style: String, script: String, sample: String) -> String {
        var page = page
        replace(styleTag, in: &page, by: "<style>\n" + inlined(style, closing: "</style") + "</style>")
        replace(sampleTag, in: &page, by: #"<script id="outline-sample" type="application/json">"# + "\n"
                + inlined(sample, closing: "</script") + "\n</script>")
        replace(scriptTag, in: &page, by: #"<script type="module">"# + "\n" + inlined(script, closing: "</script") + "</script>")
        return page
    }

    private static func text(_ bytes: [UInt8]) -> String {
        String(decoding: bytes, as: UTF8.self)
    }

    /// The content as it may stand inside its element: it must not end the element early.
    private static func inlined(_ content: String, closing: String) -> String {
        precondition(content.range(of: closing, options: .caseInsensitive) == nil,
                     "an inlined demo file contains \(closing)")
        return content
    }

    private static func replace(_ tag: String, in page: inout String, by replacement: String) {
        let parts = page.components(separatedBy: tag)
        precondition(parts.count == 2, "index.html must contain \(tag) once")
        page = parts[0] + replacement + parts[1]
    }
}
