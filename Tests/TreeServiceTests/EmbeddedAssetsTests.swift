import Foundation
import HTTP1
import Testing
@testable import TreeService

/// The demo page and `openapi.yaml` come from files of the repository compiled into the binary
/// (Package.swift: `embedInCode`); the service serves them without reading any file at run time.
@Suite struct EmbeddedAssetsTests {
    /// The repository's root folder, from this file's place in it.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func file(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    static func get(_ target: String) -> (status: Int, contentType: String?, text: String) {
        let service = TreeService(configuration: ServiceConfiguration())
        let response = service.respond(to: HTTPRequest(method: "GET", target: target, headers: HTTPHeaders([]), body: []))
        guard case .bytes(let body) = response.body else { return (response.status, nil, "") }
        return (response.status, response.headers["content-type"], String(decoding: body, as: UTF8.self))
    }

    @Test func openAPIIsTheRepositoryFile() throws {
        let reply = Self.get("/openapi.yaml")
        #expect(reply.status == 200)
        #expect(reply.contentType == "application/yaml")
        #expect(reply.text == (try Self.file("openapi.yaml")))
    }

    /// The harness's service serves the same document: there is no other to serve.
    @Test func theHarnessServesTheRepositoryFile() throws {
        #expect(ServiceHarness().call("GET", "/openapi.yaml").text == (try Self.file("openapi.yaml")))
    }

    /// `/client/{file}` serves every compiled module of the TypeScript client, each as the
    /// repository has it, and nothing else.
    @Test func clientModulesAreTheRepositoryFiles() throws {
        let dist = Self.root.appendingPathComponent("clients/typescript/dist")
        let modules = try FileManager.default.contentsOfDirectory(atPath: dist.path).filter { $0.hasSuffix(".js") }.sorted()
        #expect(!modules.isEmpty)
        #expect(ClientModule.files.keys.sorted() == modules)
        for module in modules {
            let reply = Self.get("/client/" + module)
            #expect(reply.status == 200, "\(module)")
            #expect(reply.contentType == "text/javascript; charset=utf-8")
            #expect(reply.text == (try Self.file("clients/typescript/dist/" + module)), "\(module)")
        }
        // openapi.yaml names them as the `file` parameter's values.
        #expect(try Self.file("openapi.yaml").contains("enum: [\(modules.joined(separator: ", "))]"))
        #expect(Self.get("/client/index.d.ts").status == 404)
        #expect(Self.get("/client/demo.js").status == 404)
    }

    @Test func demoPageIsIndexHTMLWithItsFilesInline() throws {
        let reply = Self.get("/")
        #expect(reply.status == 200)
        #expect(reply.contentType == "text/html; charset=utf-8")
        let page = reply.text
        #expect(page.hasPrefix("<!doctype html>"))
        #expect(page.contains("<style>\n" + (try Self.file("Sources/TreeService/Demo/demo.css")) + "</style>\n</head>"))
        // The script is an ES module: it imports the TypeScript client from `/client/index.js`.
        #expect(page.contains("<script type=\"module\">\n" + (try Self.file("Sources/TreeService/Demo/demo.js")) + "</script>\n</body>\n</html>\n"))
        #expect((try Self.file("Sources/TreeService/Demo/demo.js")).contains(#"from "./client/index.js""#))
        // One request loads everything: no reference to another file of the demo is left.
        for reference in ["href=\"demo.css\"", "src=\"demo.js\"", "src=\"outline-small.json\""] {
            #expect(!page.contains(reference))
        }
        // The sample is a JSON data block with the whole of outline-small.json.
        let open = #"<script id="outline-sample" type="application/json">"#
        let block = try #require(page.components(separatedBy: open).dropFirst().first?.components(separatedBy: "</script>").first)
        let sample = try #require(try JSONSerialization.jsonObject(with: Data(block.utf8)) as? NSDictionary)
        let file = try JSONSerialization.jsonObject(with: Data(try Self.file("Sources/TreeService/Demo/outline-small.json").utf8))
        #expect(sample == file as? NSDictionary)
        #expect((sample["nodes"] as? [Any])?.count == 5)
    }

    @Test func assembleInlinesEachTagOnce() {
        let page = "<head>\n\(DemoPage.styleTag)\n</head>\n<body>\n\(DemoPage.sampleTag)\n\(DemoPage.scriptTag)\n</body>\n"
        let assembled = DemoPage.assemble(page: page, style: "a { }\n", script: "run();\n", sample: "[1]")
        #expect(assembled == """
            <head>
            <style>
            a { }
            </style>
            </head>
            <body>
            <script id="outline-sample" type="application/json">
            [1]
            </script>
            <script type="module">
            run();
            </script>
            </body>

            """)
    }
}
