import Foundation
import Testing
import TreeStorage
import TreeFormats
@testable import TreeService

/// A data directory written by the release before the journal's record format 2 (its change
/// records are the requests that made the changes), made by `Fixtures/make-release-data.sh`
/// with one change of every route: this version opens it and serves exactly what that
/// release answered before it was killed.
@Suite struct ReleaseDataTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/release-1-data")

    static func expected(_ name: String) throws -> String {
        try String(contentsOf: fixture.appendingPathComponent("expected/\(name)"), encoding: .utf8)
            .trimmingCharacters(in: .newlines)
    }

    @Test func aDataDirectoryOfRecordFormat1IsServedAsItsReleaseLeftIt() throws {
        let copy = try TemporaryDirectory()
        try FileManager.default.removeItem(atPath: copy.path)
        try FileManager.default.copyItem(atPath: Self.fixture.appendingPathComponent("data").path, toPath: copy.path)
        let sid = try Self.expected("session-id.txt")
        let data = try DataDirectory(path: copy.path, fsync: .always)
        // Its session has the server's TTL, which was 0 (never) when it was made.
        let h = ServiceHarness(dataDirectory: data) { $0.sessionTTL = .zero }
        #expect(h.service.durability.eventCount(.replayStopped) == 0)
        #expect(h.service.durability.eventCount(.refusedOnReplay) == 0)
        let s = "/sessions/\(sid)"
        // The summary has every member it had then, with the same values (and new ones since).
        let summary = h.call("GET", s).json
        guard case .object(let then) = try JSONValue.parse(Array(try Self.expected("session.json").utf8)) else { Issue.record("not an object"); return }
        for (key, value) in then { #expect(summary.member(key) == value, "\(key)") }
        #expect(h.call("GET", "\(s)/tree").text == (try Self.expected("tree.json")))
        #expect(h.call("GET", "\(s)/rows?offset=0&limit=100").text == (try Self.expected("rows.json")))
        #expect(h.call("GET", "\(s)/rows?filter=alpha&offset=0&limit=100").text == (try Self.expected("rows-alpha.json")))
        #expect(h.call("GET", "\(s)/rows?filter=line&offset=0&limit=100").text == (try Self.expected("rows-line.json")))
        // Its generated ids go on where they stopped, and new records follow the old ones.
        let inserted = h.call("POST", "\(s)/items", json: #"{"nodes": [{"title": "after the upgrade"}]}"#)
        #expect(inserted.status == 201)
        #expect(inserted.text.contains(#""ids":["~9"]"#))
        h.service.shutDownStorage()
        data.close()
        let reopened = try DataDirectory(path: copy.path, fsync: .always)
        defer { reopened.close() }
        let again = ServiceHarness(dataDirectory: reopened) { $0.sessionTTL = .zero }
        #expect(again.call("GET", "\(s)/items/~9").status == 200)
        #expect(again.call("GET", s).json["version"] == .number("12"))
    }
}
