import Foundation
import Synchronization
import Testing
import TreeEngine
import TreeFormats
@testable import TreeService

/// The one write path: bodies become operations before the lock; every change checks
/// `If-Match`, moves the version by one and answers it as `ETag`.
@Suite struct WritePathTests {
    let h = ServiceHarness()

    /// Each change request of the API, as (method, path after the session, body).
    static let changes: [(String, String, String?)] = [
        ("PATCH", "", "{\"expandAll\": true}"),
        ("PATCH", "", "{\"collapseAll\": true}"),
        ("PATCH", "", "{\"expandDepth\": 1}"),
        ("PATCH", "/items/2", "{\"expanded\": true}"),
        ("PATCH", "/items/1.2.4.2", "{\"reveal\": true}"),
        ("PATCH", "/items/1.1.1", "{\"parentId\": null, \"index\": 0}"),
        ("PATCH", "/items/2", "{\"title\": \"Renamed\"}"),
        ("POST", "/items", "{\"nodes\": [{\"title\": \"new\"}], \"parentId\": \"4\"}"),
        ("DELETE", "/items/1.1", nil),
        ("POST", "/batch", "{\"operations\": [{\"op\": \"delete\", \"id\": \"1.1\"}, {\"op\": \"expandAll\"}]}"),
    ]

    @Test(arguments: changes)
    func everyChangeChecksIfMatchAndMovesTheVersionByOne(method: String, path: String, body: String?) {
        let sid = h.createSample()
        let stale = h.call(method, "/sessions/\(sid)\(path)?filter=a", json: body, headers: [("If-Match", "\"9\"")])
        #expect(stale.status == 412)
        #expect(stale.headers["etag"] == "\"1\"")
        #expect(h.call("GET", "/sessions/\(sid)")["version"]?.intValue == 1)
        let done = h.call(method, "/sessions/\(sid)\(path)?filter=a", json: body, headers: [("If-Match", "\"1\"")])
        #expect(done.status == (path == "/items" ? 201 : 200), "\(done.text)")
        #expect(done.headers["etag"] == "\"2\"")
        #expect(done["version"]?.intValue == 2)
        #expect(done["total"]?.intValue == h.call("GET", "/sessions/\(sid)/rows?filter=a&limit=0")["total"]?.intValue)
    }

    /// A body of the wrong shape is refused without waiting for the session, which
    /// another thread holds exclusively.
    @Test(arguments: [
        ("", "{\"expandDepth\": 1.5}"), ("", "{\"expandAll\": false}"),
        ("/items/2", "{\"title\": 5}"), ("/items/2", "{\"expanded\": true, \"recursive\": 1}"),
        ("/items/2", "{\"reveal\": false}"), ("/items/2", "{\"parentId\": []}"), ("/items/2", "{\"parentId\": null, \"index\": -1}"),
    ])
    func bodiesAreReadBeforeTheLock(path: String, body: String) throws {
        let sid = h.createSample()
        let session = try #require(h.service.registry.lookup(sid))
        let (reply, answeredWhileHeld) = h.whileAnotherThreadHolds(session, exclusively: true) {
            h.call("PATCH", "/sessions/\(sid)\(path)", json: body)
        }
        #expect(reply.status == 422)
        #expect(answeredWhileHeld, "PATCH \(path) \(body) waited for the session's lock")
    }

    /// Nodes to insert are read, with their syntax, limits and their own ids, without
    /// waiting for the session, which another thread holds exclusively.
    @Test(arguments: [
        ("{\"nodes\": [", 400), ("{\"nodes\": [{\"title\": 5}]}", 422),
        ("{\"nodes\": [{\"id\": \"x\", \"title\": \"a\"}, {\"id\": \"x\", \"title\": \"b\"}]}", 422),
    ])
    func insertedNodesAreReadBeforeTheLock(body: String, status: Int) throws {
        let sid = h.createSample()
        let session = try #require(h.service.registry.lookup(sid))
        let (reply, answeredWhileHeld) = h.whileAnotherThreadHolds(session, exclusively: true) {
            h.call("POST", "/sessions/\(sid)/items", json: body)
        }
        #expect(reply.status == status, "\(reply.text)")
        #expect(answeredWhileHeld, "POST /items \(body) waited for the session's lock")
    }

    /// Rows to insert are read the same way: a body with an error of its own is answered
    /// while another thread holds the session; rows naming its nodes go under them.
    @Test(arguments: [("id,parentId,title\na,,\"x\n", "text/csv", 400), ("id,parentId,title\na,,x\na,,y\n", "text/csv", 422),
                      ("{\"id\": \"a\", \"title\": 5}\n", "application/x-ndjson", 422)])
    func insertedRowsAreReadBeforeTheLock(body: String, contentType: String, status: Int) throws {
        let sid = h.createSample()
        let session = try #require(h.service.registry.lookup(sid))
        let (reply, answeredWhileHeld) = h.whileAnotherThreadHolds(session, exclusively: true) {
            h.call("POST", "/sessions/\(sid)/items", json: body, contentType: contentType)
        }
        #expect(reply.status == status, "\(reply.text)")
        #expect(answeredWhileHeld, "POST /items \(body) waited for the session's lock")
        let rows = h.call("POST", "/sessions/\(sid)/items", json: "id,parentId,title\nn1,2,under two\nn2,n1,deeper\nn3,,a root\n", contentType: "text/csv")
        #expect(rows.status == 201, "\(rows.text)")
        #expect(h.call("GET", "/sessions/\(sid)/items/n1")["parentId"]?.stringValue == "2")
        #expect(h.call("GET", "/sessions/\(sid)/items/n2")["parentId"]?.stringValue == "n1")
        let orphan = h.call("POST", "/sessions/\(sid)/items", json: "id,parentId,title\nm1,nosuchnode,x\n", contentType: "text/csv")
        #expect(orphan.status == 422, "\(orphan.text)")
        #expect(orphan["detail"]?.stringValue?.contains("names no node") == true, "\(orphan.text)")
    }

    /// An insert still answers for the session (404) and `If-Match` (412) before its body.
    @Test func anInsertChecksTheSessionAndIfMatchBeforeItsBody() {
        let sid = h.createSample()
        #expect(h.call("POST", "/sessions/nosuchsession/items", json: "{\"nodes\": [").status == 404)
        #expect(h.call("POST", "/sessions/\(sid)/items", json: "{\"nodes\": [", headers: [("If-Match", "\"9\"")]).status == 412)
        #expect(h.call("POST", "/sessions/\(sid)/items", json: "{\"nodes\": [", headers: [("If-Match", "\"1\"")]).status == 400)
    }

    /// Nodes to insert are checked on their own first, then against the session: a body
    /// with an error of its own answers that error even where an id before it is taken.
    @Test func anInsertsOwnErrorsComeBeforeTheSessions() {
        let sid = h.createSample()
        let taken = h.call("POST", "/sessions/\(sid)/items", json: "{\"nodes\": [{\"id\": \"1\", \"title\": \"a\"}]}")
        #expect(taken.status == 422, "\(taken.text)")
        #expect(taken["pointer"]?.stringValue == "/nodes/0/id")
        let both = h.call("POST", "/sessions/\(sid)/items", json: "{\"nodes\": [{\"id\": \"1\", \"title\": \"a\"}, {\"title\": \"b\", \"x\": 1}]}")
        #expect(both.status == 422, "\(both.text)")
        #expect(both["detail"]?.stringValue?.contains("duplicate") == false, "\(both.text)")
        #expect(both["pointer"]?.stringValue == "/nodes/1/x")
        #expect(h.call("GET", "/sessions/\(sid)")["version"]?.intValue == 1)
    }

    /// A batch's insert read before the lock is checked against the session as the
    /// operations before it leave it: an id an earlier insert took is refused (422, the
    /// whole batch), one an earlier delete freed is taken.
    @Test func aBatchInsertMeetsTheSessionAsTheOperationsBeforeLeaveIt() {
        let sid = h.createSample()
        let insert = "{\"op\": \"insert\", \"nodes\": [{\"id\": \"n\", \"title\": \"new\"}]}"
        let twice = h.call("POST", "/sessions/\(sid)/batch", json: "{\"operations\": [\(insert), \(insert)]}")
        #expect(twice.status == 422, "\(twice.text)")
        #expect(twice["pointer"]?.stringValue == "/operations/1/nodes/0/id")
        let freed = h.call("POST", "/sessions/\(sid)/batch", json: """
            {"operations": [{"op": "delete", "id": "1"}, {"op": "insert", "nodes": [{"id": "1", "title": "again"}]}]}
            """)
        #expect(freed.status == 200, "\(freed.text)")
        #expect(h.call("GET", "/sessions/\(sid)/items/1")["title"]?.stringValue == "again")
    }

    @Test func itemPatchesDecodeIntoOperations() throws {
        func decode(_ json: String) throws -> SessionOperation {
            guard case .object(let members) = try JSONValue.parse(Array(json.utf8)) else { throw CancellationError() }
            return try SessionOperation.itemPatch(ItemID("x"), Members(members.map { ($0.key, $0.value) }))
        }
        guard case .setExpanded(ItemID("x"), expanded: false, recursive: true) = try decode("{\"expanded\": false, \"recursive\": true}") else {
            Issue.record("expanded"); return
        }
        guard case .move(ItemID("x"), parent: ItemID("7")?, index: 2?) = try decode("{\"parentId\": 7.0, \"index\": 2e0}") else {
            Issue.record("move"); return
        }
        guard case .move(ItemID("x"), parent: nil, index: nil) = try decode("{\"parentId\": null}") else { Issue.record("move to roots"); return }
        guard case .update(ItemID("x"), title: "t"?, data: nil) = try decode("{\"title\": \"t\"}") else { Issue.record("update"); return }
        guard case .reveal(ItemID("x")) = try decode("{\"reveal\": true}") else { Issue.record("reveal"); return }
        #expect(throws: ServiceError.self) { try decode("{\"recursive\": true}") }
        #expect(!SessionOperation.reveal(ItemID("x")).editsTree)
        #expect(SessionOperation.delete(ItemID("x")).editsTree)
    }
}
