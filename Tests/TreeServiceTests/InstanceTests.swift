import Foundation
import HTTP1
import HTTPTestSupport
import Testing
import TreeStorage
@testable import TreeService

/// `--instance NAME`: the ids an instance issues carry its name, and it answers 404 for an
/// id that names another instance without looking it up.
@Suite struct InstanceTests {
    @Test(arguments: ["a", "b", "eu-west-2", "x9", String(repeating: "z", count: 32)])
    func aNameOfLowercaseLettersDigitsAndDashesIsValid(name: String) {
        #expect(ServiceConfiguration.isValidInstanceName(name))
    }

    @Test(arguments: ["", "A", "a.b", "a_b", "a b", "é", "a/b", String(repeating: "z", count: 33)])
    func anyOtherNameIsRefused(name: String) {
        #expect(!ServiceConfiguration.isValidInstanceName(name))
    }

    @Test func aNamedInstanceIssuesIdsThatStartWithItsName() {
        let h = ServiceHarness { $0.instance = "a" }
        let reply = h.call("POST", "/sessions", json: "{\"nodes\": \(ServiceHarness.sampleNodes)}")
        #expect(reply.status == 201)
        let id = reply["id"]?.stringValue ?? ""
        #expect(id.hasPrefix("a."))
        #expect(id.count == 2 + 22)
        #expect(!id.dropFirst(2).contains("."))
        #expect(reply.headers["location"] == "/sessions/\(id)")
        #expect(h.call("GET", "/sessions/\(id)/rows").status == 200)
        #expect(h.call("GET", "/sessions/\(id)").status == 200)
    }

    @Test func anUnnamedInstanceIssuesIdsWithoutADot() {
        let h = ServiceHarness()
        let id = h.createSample()
        #expect(id.count == 22)
        #expect(!id.contains("."))
    }

    /// Creates a session on a server named `creator` over a fresh data directory, then runs
    /// `body` with a server named `server` started on that directory (the session loaded)
    /// and the session's id.
    func restarted(createdBy creator: String?, servedBy server: String?, _ body: (ServiceHarness, String) throws -> Void) throws {
        let directory = try TemporaryDirectory()
        var sid = ""
        do {
            let data = try DataDirectory(path: directory.path, fsync: .off)
            let h = ServiceHarness(dataDirectory: data) { $0.instance = creator }
            sid = h.createSample()
            h.service.shutDownStorage()
            data.close()
        }
        let data = try DataDirectory(path: directory.path, fsync: .off)
        defer { data.close() }
        let h = ServiceHarness(dataDirectory: data) { $0.instance = server }
        defer { h.service.shutDownStorage() }
        try body(h, sid)
    }

    @Test func anIdNamingAnotherInstanceAnswers404WithoutALookup() throws {
        // A session of instance b, loaded by instance a (as when b's data directory is given
        // to a): it is in a's registry, but a never looks an id of b up.
        try restarted(createdBy: "b", servedBy: "a") { h, foreign in
            #expect(foreign.hasPrefix("b."))
            #expect(h.service.registry.lookup(foreign) != nil)
            for target in ["/sessions/\(foreign)", "/sessions/\(foreign)/rows", "/sessions/\(foreign)/tree",
                           "/sessions/\(foreign)/items/1", "/sessions/\(foreign)/rows?filter=ce"] {
                let reply = h.call("GET", target)
                #expect(reply.status == 404, "\(target)")
                #expect(reply.headers["content-type"] == "application/problem+json")
                #expect(reply.text.contains("instance b"), "\(reply.text)")
            }
            #expect(h.call("DELETE", "/sessions/\(foreign)").status == 404)
            #expect(h.call("PATCH", "/sessions/\(foreign)", json: "{\"expandAll\": true}").status == 404)
            #expect(h.call("POST", "/sessions/\(foreign)/items", json: "{\"nodes\": [{\"title\": \"x\"}]}").status == 404)
            // Still there, unchanged: nothing dropped it or changed it.
            let session = try #require(h.service.registry.lookup(foreign))
            #expect(session.state.withReadLock { $0.core.version } == 1)
            // An id of an instance that does not exist at all is 404 too.
            #expect(h.call("GET", "/sessions/zz.\(foreign.dropFirst(2))/rows").status == 404)
            // The instance's own sessions are served.
            let own = h.createSample()
            #expect(h.call("GET", "/sessions/\(own)/rows").status == 200)
        }
    }

    @Test func aNamedInstanceStillServesAnIdWithoutAName() throws {
        // Sessions created before the instance had a name keep their ids.
        try restarted(createdBy: nil, servedBy: "a") { h, sid in
            #expect(h.call("GET", "/sessions/\(sid)/rows").status == 200)
        }
    }

    @Test func anUnnamedInstanceLooksEveryIdUp() throws {
        // It names no instance, so no id names another one: a dotted id is looked up, and is
        // served when this server was started on a named instance's data directory.
        try restarted(createdBy: "b", servedBy: nil) { h, sid in
            #expect(h.call("GET", "/sessions/\(sid)/rows").status == 200)
            #expect(h.call("GET", "/sessions/c.\(sid.dropFirst(2))/rows").status == 404)
        }
    }

    @Test func aDataDirectoryHoldingAnotherInstancesSessionsIsNamed() throws {
        let directory = try TemporaryDirectory()
        try withDurableServer(directory.path, { $0.instance = "b" }) { _, port in
            let client = try HTTPTestClient(port: port)
            let reply = try client.request("POST", "/sessions", json: Array("{\"nodes\": [{\"title\": \"x\"}]}".utf8))
            #expect(reply.status == 201)
        }
        let data = try DataDirectory(path: directory.path, fsync: .batch)
        defer { data.close() }
        var named = ServiceConfiguration()
        named.instance = "b"
        #expect(try named.otherInstances(in: data) == [])
        named.instance = "a"
        #expect(try named.otherInstances(in: data) == ["b"])
        #expect(try ServiceConfiguration().otherInstances(in: data) == [])
    }
}
