import Foundation
import Synchronization
import HTTP1
import Testing
import TreeEngine
import TreeFormats
@testable import TreeService

/// The service behind the real HTTP server on a loopback port, driven by curl.
@Suite(.serialized) struct LoopbackTests {
    /// A running server on a free port; stopped when the test ends.
    final class Running: Sendable {
        let server: HTTPServer
        let base: String
        init(_ configure: (inout ServiceConfiguration) -> Void = { _ in }) throws {
            var configuration = ServiceConfiguration()
            configure(&configuration)
            var http = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
            http.errorRenderer = TreeService.httpErrorRenderer
            http.maxBodySize = 1 << 20
            server = HTTPServer(configuration: http, responder: TreeService(configuration: configuration))
            try server.start()
            base = "http://127.0.0.1:\(server.boundPort)"
        }
        deinit { server.shutdown(deadline: .seconds(2)) }
    }

    struct CurlResult {
        let status: Int
        let headers: String
        let body: [UInt8]
        var json: JSONValue { (try? JSONValue.parse(body)) ?? .null }
    }

    /// Runs curl; `-w` appends the status on its own last line.
    static func curl(_ args: [String], body: [UInt8]? = nil) throws -> CurlResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        let headerFile = FileManager.default.temporaryDirectory.appendingPathComponent("h-\(UUID().uuidString)")
        var all = ["curl", "-s", "-S", "-D", headerFile.path, "-o", "-", "-w", "\n%{http_code}"] + args
        if body != nil { all += ["--data-binary", "@-"] }
        process.arguments = all
        let output = Pipe(), input = Pipe()
        process.standardOutput = output
        process.standardInput = input
        try process.run()
        if let body {
            DispatchQueue.global().async {
                input.fileHandleForWriting.write(Data(body))
                try? input.fileHandleForWriting.close()
            }
        } else {
            try input.fileHandleForWriting.close()
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        var bytes = [UInt8](data)
        let newline = bytes.lastIndex(of: UInt8(ascii: "\n")) ?? 0
        let status = Int(String(decoding: bytes[(newline + 1)...], as: UTF8.self)) ?? 0
        bytes.removeSubrange(newline...)
        let headers = (try? String(contentsOf: headerFile, encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(at: headerFile)
        return CurlResult(status: status, headers: headers, body: bytes)
    }

    static func create(_ server: Running, _ json: [UInt8]) throws -> String {
        let r = try curl(["-X", "POST", "-H", "Content-Type: application/json", "\(server.base)/sessions"], body: json)
        precondition(r.status == 201, "create: \(r.status) \(String(decoding: r.body, as: UTF8.self))")
        return r.json["id"]!.stringValue!
    }

    @Test func exportStreamsAndPostsBackToTheSameTree() throws {
        let server = try Running()
        let sid = try Self.create(server, ServiceHarness.sample)
        _ = try Self.curl(["-X", "PATCH", "-H", "Content-Type: application/json", "\(server.base)/sessions/\(sid)/items/2"],
                          body: Array("{\"expanded\": true}".utf8))
        let export = try Self.curl(["\(server.base)/sessions/\(sid)/tree"])
        #expect(export.status == 200)
        #expect(export.headers.lowercased().contains("transfer-encoding: chunked"))
        let again = try Self.create(server, export.body)
        let a = try Self.curl(["\(server.base)/sessions/\(sid)/rows?limit=1000"]).json["rows"]
        let b = try Self.curl(["\(server.base)/sessions/\(again)/rows?limit=1000"]).json["rows"]
        #expect(a != nil && a == b)
        let secondExport = try Self.curl(["\(server.base)/sessions/\(again)/tree"])
        #expect(secondExport.body == export.body)
    }

    @Test func ifMatchRaceHasExactlyOneWinner() throws {
        let server = try Running()
        let sid = try Self.create(server, ServiceHarness.sample)
        let statuses = Mutex<[Int]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { i in
            let r = try? Self.curl(["-X", "PATCH", "-H", "Content-Type: application/json", "-H", "If-Match: \"1\"",
                                    "\(server.base)/sessions/\(sid)/items/\(i % 5 + 1)"], body: Array("{\"expanded\": true}".utf8))
            statuses.withLock { $0.append(r?.status ?? 0) }
        }
        let all = statuses.withLock { $0 }
        #expect(all.filter { $0 == 200 }.count == 1)
        #expect(all.filter { $0 == 412 }.count == 7)
        #expect(try Self.curl(["\(server.base)/sessions/\(sid)"]).json["version"]?.intValue == 2)
    }

    @Test func errorsFromTheHTTPLayerAreProblemDocuments() throws {
        let server = try Running()
        let big = [UInt8](repeating: UInt8(ascii: " "), count: 2 << 20)
        let tooLarge = try Self.curl(["-X", "POST", "-H", "Content-Type: application/json", "\(server.base)/sessions"], body: big)
        #expect(tooLarge.status == 413)
        #expect(tooLarge.headers.lowercased().contains("content-type: application/problem+json"))
        #expect(tooLarge.json["status"]?.intValue == 413)
        let head = try Self.curl(["-I", "\(server.base)/healthz"])
        #expect(head.status == 200)
        let badEscape = try Self.curl(["\(server.base)/sessions/%zz"])
        #expect(badEscape.status == 400)
        #expect(badEscape.json["type"]?.stringValue?.hasPrefix("urn:treesessions:problem:") == true)
    }
}
