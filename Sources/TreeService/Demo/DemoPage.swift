/// The browser demo served at `/`: one self-contained page (HTML, CSS, JavaScript).
enum DemoPage {
    static let html: [UInt8] = Array(#"""
<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>TreeSessions</title></head>
<body><p>The demo page is being built.</p></body></html>
"""#.utf8)
}
