import Foundation
import Synchronization
import HTTP1
import HTTPTestSupport
import Testing
import TreeEngine
import TreeFormats
@testable import TreeService

/// The service behind the real HTTP server on a loopback port, driven by curl.
@Suite(.serialized, .timeLimit(.minutes(1)), .enabled(if: Tool.curl != nil, "curl is not installed"))
struct LoopbackTests {
    static func create(_ base: String, _ json: [UInt8]) throws -> String {
        let r = try curl(["-X", "POST", "-H", "Content-Type: application/json", "\(base)/sessions"], body: json)
        try #require(r.status == 201, "create: \(r.status) \(r.text)")
        return try #require(r.json["id"]?.stringValue)
    }

    @Test func exportStreamsAndPostsBackToTheSameTree() throws {
        try withServiceServer { base, _ in
            let sid = try Self.create(base, ServiceHarness.sample)
            _ = try curl(["-X", "PATCH", "-H", "Content-Type: application/json", "\(base)/sessions/\(sid)/items/2"],
                     body: Array("{\"expanded\": true}".utf8))
            let export = try curl(["\(base)/sessions/\(sid)/tree"])
            #expect(export.status == 200)
            #expect(export.headers.lowercased().contains("transfer-encoding: chunked"))
            let again = try Self.create(base, export.body)
            let a = try curl(["\(base)/sessions/\(sid)/rows?limit=1000"]).json["rows"]
            let b = try curl(["\(base)/sessions/\(again)/rows?limit=1000"]).json["rows"]
            #expect(a != nil && a == b)
            let secondExport = try curl(["\(base)/sessions/\(again)/tree"])
            #expect(secondExport.body == export.body)
        }
    }

    @Test func ifMatchRaceHasExactlyOneWinner() throws {
        try withServiceServer { base, _ in
            let sid = try Self.create(base, ServiceHarness.sample)
            let statuses = Mutex<[Int]>([])
            DispatchQueue.concurrentPerform(iterations: 8) { i in
                let r = try? curl(["-X", "PATCH", "-H", "Content-Type: application/json", "-H", "If-Match: \"1\"",
                               "\(base)/sessions/\(sid)/items/\(i % 5 + 1)"], body: Array("{\"expanded\": true}".utf8))
                statuses.withLock { $0.append(r?.status ?? 0) }
            }
            let all = statuses.withLock { $0 }
            #expect(all.filter { $0 == 200 }.count == 1)
            #expect(all.filter { $0 == 412 }.count == 7)
            #expect(try curl(["\(base)/sessions/\(sid)"]).json["version"]?.intValue == 2)
        }
    }

    @Test func errorsFromTheHTTPLayerAreProblemDocuments() throws {
        try withServiceServer { base, _ in
            let big = [UInt8](repeating: UInt8(ascii: " "), count: 2 << 20)
            let tooLarge = try curl(["-X", "POST", "-H", "Content-Type: application/json", "\(base)/sessions"], body: big)
            #expect(tooLarge.status == 413)
            #expect(tooLarge.headers.lowercased().contains("content-type: application/problem+json"))
            #expect(tooLarge.json["status"]?.intValue == 413)
            let head = try curl(["-I", "\(base)/healthz"])
            #expect(head.status == 200)
            let badEscape = try curl(["\(base)/sessions/%zz"])
            #expect(badEscape.status == 400)
            #expect(badEscape.json["type"]?.stringValue?.hasPrefix("urn:treesessions:problem:") == true)
        }
    }
}

extension CurlResult {
    var json: JSONValue { (try? JSONValue.parse(body)) ?? .null }
}
