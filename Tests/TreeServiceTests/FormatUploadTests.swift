import Foundation
import HTTP1
import Testing
import TreeEngine
import TreeFormats
import TreeStorage
@testable import TreeReference
@testable import TreeService

/// The tree in other forms through the service: uploads and inserts by `Content-Type` or
/// `format`, exports by `Accept`, errors with their line, the journal of row inserts.
@Suite struct FormatUploadTests {
    let h = ServiceHarness()

    /// The rows of the unfiltered view as `title@level`, all expanded first.
    func outline(_ sid: String) -> [String] {
        h.call("PATCH", "/sessions/\(sid)", json: #"{"expandAll":true}"#)
        let rows = h.call("GET", "/sessions/\(sid)/rows?limit=1000")["rows"]?.array ?? []
        return rows.map { "\($0.member("title")!.stringValue!)@\($0.member("level")!.intValue!)" }
    }

    func create(_ body: String, _ type: String, query: String = "") -> ServiceHarness.Reply {
        h.call("POST", "/sessions\(query)", json: body, contentType: type)
    }

    func export(_ sid: String, accept: String? = nil, query: String = "") -> ServiceHarness.Reply {
        h.call("GET", "/sessions/\(sid)/tree\(query)", headers: accept.map { [("Accept", $0)] } ?? [])
    }

    /// `find /usr | curl --data-binary @- …?format=paths`: accepted (it answered 422), each
    /// id its line, exported as it came; an absolute line inserted under a parent is refused.
    @Test func anAbsolutePathListAsFindPrintsIt() {
        let list = "/usr\n/usr/lib\n/usr/lib/x\n/usr/share/\n"
        let created = create(list, "text/plain")
        #expect(created.status == 201, "\(created.text)")
        let sid = created["id"]!.stringValue!
        #expect(outline(sid) == ["usr@0", "lib@1", "x@2", "share@1"])
        #expect(h.call("GET", "/sessions/\(sid)/items/%2Fusr%2Flib%2Fx")["title"]?.stringValue == "x")
        #expect(export(sid, accept: "text/plain").text == list)
        let under = h.call("POST", "/sessions/\(sid)/items?parentId=%2Fusr", json: "/new\n", contentType: "text/plain")
        #expect(under.status == 422)
        #expect(h.call("POST", "/sessions/\(sid)/items?parentId=%2Fusr", json: "new/a\n", contentType: "text/plain").status == 201)
        #expect(h.call("GET", "/sessions/\(sid)/items/%2Fusr%2Fnew%2Fa")["title"]?.stringValue == "a")
    }

    /// An id a body gives is at most 4,096 bytes, in every format and in inserts: one
    /// longer answers 422 naming its length, and nothing is made (a 100 KB id was taken, and
    /// its 201's `Location` was 100 KB). An inserted path's id (the parent's and the path)
    /// too; an uploaded path list's ids are composed and not bound by it.
    @Test func idsAreAtMost4096Bytes() {
        let most = String(repeating: "x", count: 4096), over = String(repeating: "y", count: 4097)
        for id in [most, over] {
            let bodies: [(String, String)] = [
                (#"[{"id":"\#(id)","title":"t"}]"#, "application/json"),
                ("id,parentId,title\n\(id),,t\n", "text/csv"),
                (#"{"id":"\#(id)","title":"t"}"# + "\n", "application/x-ndjson"),
            ]
            for (body, type) in bodies {
                let created = create(body, type)
                if id == most {
                    #expect(created.status == 201, "\(type): \(created.text)")
                } else {
                    #expect(created.status == 422, "\(type): \(created.text)")
                    #expect(created.text.contains("an id of 4097 bytes: ids are at most 4096 bytes"), "\(type): \(created.text)")
                }
            }
        }
        let sid = create(#"[{"id":"root","title":"r"}]"#, "application/json")["id"]!.stringValue!
        let refused = h.call("POST", "/sessions/\(sid)/items", json: #"{"parentId":"root","nodes":[{"id":"\#(over)","title":"t"}]}"#)
        #expect(refused.status == 422, "\(refused.text)")
        let path = String(repeating: "p", count: 4092)
        #expect(h.call("POST", "/sessions/\(sid)/items?parentId=root", json: path + "\n", contentType: "text/plain").status == 422)
        #expect(h.call("GET", "/sessions/\(sid)")["version"]?.intValue == 1, "nothing was made")
        #expect(h.call("POST", "/sessions/\(sid)/items?parentId=root", json: String(path.dropFirst()) + "\n", contentType: "text/plain").status == 201)
    }

    /// A path separator may not start with `n`, `r` or `"`: `\n` would read both as a line
    /// feed and as the separator, so two names could share one id.
    @Test func aSeparatorThatEscapesUseIsRefused() {
        for separator in ["n", "r/", "%22", "n%CC%88"] {
            let reply = create("a\n", "text/plain", query: "?separator=\(separator)")
            #expect(reply.status == 400, "\(separator): \(reply.text)")
            #expect(reply.text.contains("not starting with n, r or"), "\(separator): \(reply.text)")
        }
        #expect(create("a->b\n", "text/plain", query: "?separator=-%3E").status == 201)
    }

    @Test func eachFormatOpensASession() {
        let csv = create("id,parentId,title,owner\r\nb,a,\"Budget, 2026\",ann\r\na,,Finance,bob\r\n", "text/csv; charset=utf-8")
        #expect(csv.status == 201, "\(csv.text)")
        #expect(outline(csv["id"]!.stringValue!) == ["Finance@0", "Budget, 2026@1"])

        let ndjson = create("{\"id\":2,\"parentId\":1,\"title\":\"Child\"}\n{\"id\":1,\"title\":\"Root\"}\n", "application/x-ndjson")
        #expect(ndjson.status == 201, "\(ndjson.text)")
        #expect(outline(ndjson["id"]!.stringValue!) == ["Root@0", "Child@1"])

        let paths = create("src/a.swift\nsrc/util/\nREADME.md\n", "text/plain")
        #expect(paths.status == 201, "\(paths.text)")
        #expect(outline(paths["id"]!.stringValue!) == ["src@0", "a.swift@1", "util@1", "README.md@0"])

        let document = create(#"{"store":{"book":[{"title":"Sayings"}],"open":true}}"#, "application/json", query: "?format=document")
        #expect(document.status == 201, "\(document.text)")
        #expect(outline(document["id"]!.stringValue!) == ["store@0", "book@1", "[0]@2", "title: Sayings@3", "open: true@1"])
    }

    @Test func theFormatParameterWinsOverContentType() {
        // What `curl --data-binary @-` sends without -H.
        let reply = create("a/b\na/c\n", "application/x-www-form-urlencoded", query: "?format=paths")
        #expect(reply.status == 201, "\(reply.text)")
        #expect(reply["nodeCount"]?.intValue == 3)
        let separator = create("a::b\n", "text/plain", query: "?separator=::")
        #expect(outline(separator["id"]!.stringValue!) == ["a@0", "b@1"])
    }

    /// The rows of the unfiltered view as they are (nothing expanded first).
    func visible(_ reply: ServiceHarness.Reply) -> [String] {
        guard let sid = reply["id"]?.stringValue else { return ["no session: \(reply.text)"] }
        let rows = h.call("GET", "/sessions/\(sid)/rows?limit=1000")["rows"]?.array ?? []
        return rows.map { "\($0.member("title")!.stringValue!)@\($0.member("level")!.intValue!)" }
    }

    @Test func expandIsAQueryParameterForEveryFormat() {
        let csv = "id,parentId,title,expanded\na,,A,false\nb,a,B,true\nc,b,C,\nd,,D,\n"
        #expect(visible(create(csv, "text/csv")) == ["A@0", "D@0"])
        #expect(visible(create(csv, "text/csv", query: "?expand=all")) == ["A@0", "B@1", "C@2", "D@0"])
        #expect(visible(create(csv, "text/csv", query: "?expand=1")) == ["A@0", "B@1", "D@0"])
        #expect(visible(create(csv, "text/csv", query: "?expand=none")) == ["A@0", "D@0"])
        #expect(visible(create(csv, "text/csv", query: "?expand=000000000000000002")) == ["A@0", "B@1", "C@2", "D@0"])
        #expect(visible(create("x/y/z\n", "text/plain", query: "?expand=all")) == ["x@0", "y@1", "z@2"])
        #expect(visible(create(#"{"a":{"b":1}}"#, "application/json", query: "?format=document&expand=all")) == ["a@0", "b: 1@1"])
        #expect(visible(create(#"[{"title":"p","children":[{"title":"q"}]}]"#, "application/json", query: "?expand=all")) == ["p@0", "q@1"])
        #expect(visible(create("{\"id\":1,\"title\":\"R\"}\n{\"id\":2,\"parentId\":1,\"title\":\"S\"}\n", "application/x-ndjson", query: "?expand=0")) == ["R@0"])
    }

    @Test func aBadOrRepeatedExpandCreatesNothing() {
        let before = h.service.registry.count
        for query in ["?expand=some", "?expand=-1", "?expand=", "?expand=1.5", "?expand=1000000000000000000"] {
            let reply = create("a/b\n", "text/plain", query: query)
            #expect(reply.status == 400, "\(query): \(reply.text)")
            #expect(reply["type"]?.stringValue?.hasSuffix("bad-query-parameter") == true, "\(query)")
        }
        let twice = create(#"{"nodes":[{"title":"p"}],"expand":"all"}"#, "application/json", query: "?expand=all")
        #expect(twice.status == 400, "\(twice.text)")
        #expect(twice["detail"]?.stringValue?.contains("twice") == true)
        #expect(h.service.registry.count == before)
    }

    @Test func unknownTypesAndCharsetsAndSeparatorsAreRefused() {
        let before = h.service.registry.count
        #expect(create("<tree/>", "application/xml").status == 415)
        #expect(create("a\n", "text/plain; charset=latin1").status == 415)
        #expect(create("a\n", "text/plain", query: "?format=xml").status == 400)
        #expect(create("a\n", "text/plain", query: "?separator=%5C").status == 400)
        #expect(h.call("POST", "/sessions", json: "a\n", contentType: "").status == 415)
        #expect(h.service.registry.count == before)
    }

    @Test(arguments: [
        // (content type, body, status, type slug, line, column or nil)
        ("text/csv", "id,parentId,title\na,,A\nb,zz,B\n", 422, "invalid-node", 3, nil),
        ("text/csv", "id,parentId,title\na,,A\"x\n", 400, "malformed-body", 2, 5),
        ("text/csv", "id,title\na,A\n", 422, "invalid-node", 1, nil),
        ("text/csv", "id,parentId,title\na,,A\na,,B\n", 422, "invalid-node", 3, nil),
        ("text/csv", "id,parentId,title\na,b,A\nb,a,B\n", 422, "invalid-node", 2, nil),
        ("application/x-ndjson", "{\"id\":1,\"title\":\"A\"}\n{\"id\":2,\"title\":}\n", 400, "malformed-json", 2, 17),
        ("application/x-ndjson", "{\"id\":1,\"title\":\"A\"}\n\n{\"id\":2}\n", 422, "invalid-node", 3, nil),
        ("text/plain", "a/b\na//c\n", 422, "invalid-node", 2, nil),
    ] as [(String, String, Int, String, Int, Int?)])
    func errorsNameTheirLineAndCreateNothing(type: String, body: String, status: Int, slug: String, line: Int, column: Int?) {
        let before = h.service.registry.count
        let reply = create(body, type)
        #expect(reply.status == status, "\(reply.text)")
        #expect(reply["type"]?.stringValue == "urn:treesessions:problem:\(slug)")
        #expect(reply["line"]?.intValue == line, "\(reply.text)")
        if let column { #expect(reply["column"]?.intValue == column, "\(reply.text)") }
        #expect(reply["detail"]?.stringValue?.contains("line \(line)") == true)
        #expect(h.service.registry.count == before)
    }

    @Test func limitsApplyAsForJSON() {
        let small = ServiceHarness { $0.maxNodesPerSession = 2 }
        #expect(small.call("POST", "/sessions", json: "a\nb\nc\n", contentType: "text/plain").status == 429)
        #expect(small.call("POST", "/sessions", json: "id,parentId,title\n1,,a\n2,,b\n3,,c\n", contentType: "text/csv").status == 429)
        let deep = ServiceHarness { $0.maxDepth = 3 }
        let tooDeep = deep.call("POST", "/sessions", json: "a/b/c/d\n", contentType: "text/plain")
        #expect(tooDeep.status == 422, "\(tooDeep.text)")
        #expect(deep.call("POST", "/sessions", json: "a/b/c\n", contentType: "text/plain").status == 201)
    }

    @Test func exportsFollowAcceptAndRoundTrip() throws {
        let sid = h.createSample(expand: "1")
        let nested = export(sid).text
        for (accept, type) in [("text/csv", "text/csv"), ("application/x-ndjson", "application/x-ndjson"),
                               ("text/*;q=0.5, application/json;q=0.4", "text/csv")] {
            let reply = export(sid, accept: accept)
            #expect(reply.status == 200)
            #expect(reply.headers["content-type"]?.hasPrefix(type) == true, "\(accept)")
            #expect(reply.headers["vary"] == "Accept")
            // Posted back, the same tree (the sample's ids are strings, so CSV keeps them too).
            let copy = create(reply.text, type)
            #expect(copy.status == 201, "\(copy.text)")
            #expect(export(copy["id"]!.stringValue!).text == nested, "\(accept)")
        }
        #expect(export(sid, accept: "*/*").headers["content-type"] == "application/json")
        #expect(export(sid, query: "?format=ndjson").headers["content-type"] == "application/x-ndjson")
        let refused = export(sid, accept: "image/png")
        #expect(refused.status == 406)
        #expect(refused["type"]?.stringValue == "urn:treesessions:problem:not-acceptable")
        // A tree not read from a JSON document cannot be written as one.
        let notADocument = export(sid, query: "?format=document")
        #expect(notADocument.status == 406)
        #expect(notADocument["detail"]?.stringValue?.hasPrefix("the tree cannot be written as a JSON document: the tree was not read from a JSON document") == true)
    }

    /// A session uploaded as a JSON document exports as that document: the same values (as
    /// written), keys and member order. (`format=document` on an export answered 400.)
    @Test func aDocumentComesBackAsTheDocument() throws {
        let document = #"{"store":{"book":[{"title":"A","price":12.50},{"title":"B\n\u00e9","tags":[]}],"a/b~c":{},"owner":null},"n":-1e3,"list":[1,[true,"x"],{}]}"#
        let created = create(document, "application/json", query: "?format=document")
        let sid = try #require(created["id"]?.stringValue)
        let exported = export(sid, query: "?format=document")
        #expect(exported.status == 200)
        #expect(exported.headers["content-type"] == "application/json")
        #expect(exported.headers["etag"] == "\"1-document\"")
        #expect(exported.json == (try JSONValue.parse(document)), "\(exported.text)")
        #expect(exported.text.contains("12.50") && exported.text.contains(#""B\n\u00e9""#), "values as written")
        // A new title changes no value; an inserted node with no pointer id cannot be written.
        #expect(h.call("PATCH", "/sessions/\(sid)/items/%2Fn", json: #"{"title":"renamed"}"#).status == 200)
        #expect(export(sid, query: "?format=document").json == (try JSONValue.parse(document)))
        #expect(h.call("POST", "/sessions/\(sid)/items", json: #"[{"title":"new"}]"#).status == 201)
        let edited = export(sid, query: "?format=document")
        #expect(edited.status == 406)
        #expect(edited["detail"]?.stringValue?.contains("is not its parent's JSON Pointer and one token") == true, "\(edited.text)")
    }

    @Test func eachFormHasItsOwnEntityTag() {
        let sid = h.createSample()
        let json = export(sid), csv = export(sid, accept: "text/csv")
        #expect(json.headers["etag"] == "\"1\"")
        #expect(csv.headers["etag"] == "\"1-csv\"")
        let cached = h.call("GET", "/sessions/\(sid)/tree", headers: [("Accept", "text/csv"), ("If-None-Match", "\"1-csv\"")])
        #expect(cached.status == 304)
        #expect(cached.headers["etag"] == "\"1-csv\"")
        #expect(cached.headers["vary"] == "Accept")
        // The JSON form's tag does not validate the CSV form.
        #expect(h.call("GET", "/sessions/\(sid)/tree", headers: [("Accept", "text/csv"), ("If-None-Match", "\"1\"")]).status == 200)
        #expect(h.call("GET", "/sessions/\(sid)/tree", headers: [("If-None-Match", "\"1\"")]).status == 304)
    }

    @Test func pathListsRoundTripAndRefuseWhatTheyCannotHold() {
        let paths = "src/main.swift\nsrc/a\\/b.txt\nsrc/util/\nREADME.md\n"
        let sid = create(paths, "text/plain")["id"]!.stringValue!
        let exported = export(sid, accept: "text/plain")
        #expect(exported.status == 200)
        #expect(exported.text == "src/\nsrc/main.swift\nsrc/a\\/b.txt\nsrc/util/\nREADME.md\n" ||
                exported.text == "src\nsrc/main.swift\nsrc/a\\/b.txt\nsrc/util/\nREADME.md\n", "\(exported.text)")
        let again = create(exported.text, "text/plain")["id"]!.stringValue!
        #expect(export(again).text == export(sid).text)
        let twins = create(#"[{"title":"x"},{"title":"x"}]"#, "application/json")["id"]!.stringValue!
        let refused = export(twins, accept: "text/plain")
        #expect(refused.status == 406, "\(refused.text)")
        // The next form Accept takes, when the path list cannot hold the tree.
        let fallback = export(twins, accept: "text/plain, application/json;q=0.1")
        #expect(fallback.status == 200)
        #expect(fallback.headers["content-type"] == "application/json")
    }

    @Test func rowsInsertUnderExistingAndNewParents() {
        let sid = h.createSample()
        let version = h.call("GET", "/sessions/\(sid)")["version"]!.intValue!
        let csv = "id,parentId,title\nn2,n1,Inner\nn1,1.1,Under Getting Started\nn3,,New root\nn4,2,Under 2\n"
        let reply = h.call("POST", "/sessions/\(sid)/items", json: csv, contentType: "text/csv")
        #expect(reply.status == 201, "\(reply.text)")
        #expect(reply["ids"] == .array([.string("n1"), .string("n3"), .string("n4")]))
        #expect(reply["version"]?.intValue == version + 1)
        let tree = h.call("GET", "/sessions/\(sid)/items/n2")
        #expect(tree["path"].map { String(decoding: $0.serialize(), as: UTF8.self) }?.contains("1.1") == true, "\(tree.text)")
        #expect(h.call("GET", "/sessions/\(sid)/items/n3")["parentId"] == .null)
        // Rows are refused whole: a duplicate of an existing id changes nothing.
        let duplicate = h.call("POST", "/sessions/\(sid)/items", json: "{\"id\":\"x\",\"title\":\"X\"}\n{\"id\":\"1\",\"title\":\"Again\"}\n",
                               contentType: "application/x-ndjson")
        #expect(duplicate.status == 422)
        #expect(duplicate["line"]?.intValue == 2)
        #expect(h.call("GET", "/sessions/\(sid)")["version"]?.intValue == version + 1)
        #expect(h.call("GET", "/sessions/\(sid)/items/x").status == 404)
        #expect(h.call("POST", "/sessions/\(sid)/items?parentId=1", json: csv, contentType: "text/csv").status == 400)
    }

    @Test func pathsInsertUnderAParentAndReuseItsFolders() {
        let sid = create("src/a.swift\nsrc/lib/b.swift\n", "text/plain")["id"]!.stringValue!
        let reply = h.call("POST", "/sessions/\(sid)/items?parentId=src", json: "lib/c.swift\nnew/d.swift\n", contentType: "text/plain")
        #expect(reply.status == 201, "\(reply.text)")
        #expect(reply["ids"] == .array([.string("src/lib/c.swift"), .string("src/new")]))
        #expect(outline(sid) == ["src@0", "a.swift@1", "lib@1", "b.swift@2", "c.swift@2", "new@1", "d.swift@2"])
        #expect(h.call("POST", "/sessions/\(sid)/items?parentId=nope", json: "x\n", contentType: "text/plain").status == 404)
    }
}

/// Row and path inserts are journaled with their format and come back after a restart.
@Suite struct FormatJournalTests {
    /// Makes a session with `write` on a service over a fresh data directory (returning its
    /// id), stops the service, and answers its tree as the service had it and as a service
    /// restarted on the same directory has it.
    static func treeBeforeAndAfterRestart(_ write: (ServiceHarness) -> String) throws -> (before: String, after: String) {
        let directory = try TemporaryDirectory()
        let clock = TestClock()
        var sid = "", before = ""
        do {
            let data = try DataDirectory(path: directory.path, fsync: .batch)
            let h = ServiceHarness(clock: clock, dataDirectory: data)
            sid = write(h)
            before = h.call("GET", "/sessions/\(sid)/tree").text
            h.service.shutDownStorage()
            data.close()
        }
        let data = try DataDirectory(path: directory.path, fsync: .batch)
        defer { data.close() }
        let h = ServiceHarness(clock: clock, dataDirectory: data)
        return (before, h.call("GET", "/sessions/\(sid)/tree").text)
    }

    @Test func rowInsertsReplayAfterARestart() throws {
        let (before, after) = try Self.treeBeforeAndAfterRestart { h in
            let sid = h.createSample()
            #expect(h.call("POST", "/sessions/\(sid)/items", json: "id,parentId,title\nr1,1,Row one\nr2,r1,Row two\n", contentType: "text/csv").status == 201)
            #expect(h.call("POST", "/sessions/\(sid)/items", json: "{\"id\":9,\"parentId\":\"r2\",\"title\":\"Nine\"}\n", contentType: "application/x-ndjson").status == 201)
            #expect(h.call("POST", "/sessions/\(sid)/items?parentId=r1&separator=%3A", json: "p:q\n", contentType: "text/plain").status == 201)
            return sid
        }
        #expect(after == before)
        #expect(before.contains("\"r1:p:q\""), "\(before)")
    }

    @Test func aPathListUnderTheEmptyIdComesBackUnderIt() throws {
        let (before, after) = try Self.treeBeforeAndAfterRestart { h in
            let sid = h.call("POST", "/sessions", json: "{\"id\":\"\",\"title\":\"Empty id\"}\n", contentType: "application/x-ndjson")["id"]!.stringValue!
            #expect(h.call("POST", "/sessions/\(sid)/items?parentId=", json: "a\n", contentType: "text/plain").status == 201)
            return sid
        }
        #expect(before.contains("\"children\""), "\(before)")
        #expect(after == before)
    }
}
