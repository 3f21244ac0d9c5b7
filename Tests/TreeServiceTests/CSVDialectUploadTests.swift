import Foundation
import Testing
import TreeFormats
@testable import TreeService

/// CSV as it comes, over HTTP: `;`, TAB (`text/tab-separated-values`) or `?separator=`, any
/// letter case, `?columns=id:ID,parentId:Parent,title:Name`; inserted rows too, and their
/// journal records replay them the same way.
@Suite struct CSVDialectUploadTests {
    let h = ServiceHarness()

    func titles(_ sid: String) -> [String] {
        h.call("PATCH", "/sessions/\(sid)", json: #"{"expandAll":true}"#)
        return (h.call("GET", "/sessions/\(sid)/rows?limit=100")["rows"]?.array ?? []).map { $0.member("title")!.stringValue! }
    }

    @Test(arguments: [
        ("", "text/csv", "id;parentId;title\n1;;Root\n2;1;Child\n"),
        ("", "text/tab-separated-values", "id\tparentId\ttitle\n1\t\tRoot\n2\t1\tChild\n"),
        ("", "text/csv", "Id,ParentID,Title\n1,,Root\n2,1,Child\n"),
        ("?separator=%7C", "text/csv", "id|parentId|title\n1||Root\n2|1|Child\n"),
        ("?columns=id:ID,parentId:Parent,title:Name", "text/csv", "ID,Parent,Name\n1,,Root\n2,1,Child\n"),
        ("?format=csv&columns=title:Name&separator=%3B", "text/plain", "id;parentId;Name\n1;;Root\n2;1;Child\n"),
    ])
    func anUploadAsItComes(_ query: String, _ type: String, _ body: String) throws {
        let reply = h.call("POST", "/sessions\(query)", json: body, contentType: type)
        #expect(reply.status == 201, "\(reply.text)")
        #expect(titles(try #require(reply["id"]?.stringValue)) == ["Root", "Child"])
    }

    @Test func otherColumnsAreTheData() throws {
        let reply = h.call("POST", "/sessions?columns=id:ID,parentId:Parent,title:Name", json: "ID,Parent,Name,Size\n1,,Root,10\n",
                           contentType: "text/csv")
        let sid = try #require(reply["id"]?.stringValue)
        #expect(h.call("GET", "/sessions/\(sid)/items/1")["data"] == .object([("Size", .string("10"))]))
    }

    @Test(arguments: [
        ("?columns=colour:Name", "text/csv", 400, #"query parameter columns: "colour" is not a column role (id, parentId, title, expanded, hasChildren, data)"#),
        ("?columns=id", "text/csv", 400, #"query parameter columns must be role:name pairs separated by commas (id:ID,parentId:Parent,title:Name), each role once, not "id""#),
        ("?columns=id:A,title:A", "text/csv", 400, "query parameter columns: two roles name the same column"),
        ("?separator=%3A", "text/csv", 400, #"query parameter separator of CSV rows must be one of , ; | or a tab (%09), not ":""#),
        ("?columns=id:ID", "application/x-ndjson", 400, "query parameter columns is for CSV rows"),
        ("?columns=id:ID,parentId:Parent,title:Label", "text/csv", 422, #"line 1: the header has no "Label" column (the title column, as columns names it) (line 1, column 1, byte 0)"#),
    ])
    func aWrongDialectIsAnswered(_ query: String, _ type: String, _ status: Int, _ detail: String) {
        let before = h.service.sessionCount
        let reply = h.call("POST", "/sessions\(query)", json: "ID,Parent,Name\n1,,Root\n", contentType: type)
        #expect(reply.status == status)
        #expect(reply["detail"]?.stringValue == detail)
        #expect(h.service.sessionCount == before)
    }

    @Test func aJournalRecordKeepsTheDialect() {
        for dialect in [CSVDialect(), CSVDialect(delimiter: 0x09), CSVDialect(columns: ["id": "ID", "title": "Name"]),
                        CSVDialect(delimiter: UInt8(ascii: ";"), columns: ["parentId": "Up"])] {
            let upload = RowsUpload(format: .csv(dialect), parent: nil)
            #expect(RowsUpload(code: upload.code, separator: upload.separator, parent: nil) == upload)
        }
        #expect(RowsUpload(code: 1, separator: "", parent: nil)?.format == .csv(CSVDialect()), "as records before dialects were written")
        #expect(RowsUpload(code: 1, separator: "x\u{0}id", parent: nil) == nil)
    }
}

extension DurabilityTests {
    /// Rows inserted in a dialect are replayed in it after a restart.
    @Test func rowsInsertedInADialectReplayAfterARestart() throws {
        var sid = "", rows = ""
        try withService { h in
            sid = h.createSample()
            let reply = h.call("POST", "/sessions/\(sid)/items?columns=id:Key,parentId:Up,title:Label",
                               json: "Key;Up;Label\nx;1;Inserted\ny;x;Below\n", contentType: "text/csv")
            #expect(reply.status == 201, "\(reply.text)")
            rows = Self.allRows(h, sid)
        }
        try withService { h in
            #expect(Self.allRows(h, sid) == rows)
            #expect(h.call("GET", "/sessions/\(sid)/items/y")["title"]?.stringValue == "Below")
        }
    }
}
