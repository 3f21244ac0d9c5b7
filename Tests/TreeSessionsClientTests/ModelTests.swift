import Foundation
import Testing
@testable import TreeSessionsClient

/// The generated models write the JSON the API takes and read back what they wrote:
/// presence, explicit `null`, the alternatives of a `oneOf`.
@Suite struct ModelTests {
    static func json<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    static func roundTrip<T: Codable & Equatable>(_ value: T, _ expected: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let text = try json(value)
        #expect(text == expected, sourceLocation: sourceLocation)
        let back = try JSONDecoder().decode(T.self, from: Data(text.utf8))
        #expect(back == value, sourceLocation: sourceLocation)
    }

    @Test func explicitNullsAndAbsentMembers() throws {
        // A move to the roots says `"parentId": null`; an insert at the end of the roots may leave
        // `parentId` out or say null, and the two stay apart.
        try Self.roundTrip(PatchItemBody.moveItem(MoveItem(parentId: nil, index: 0)), #"{"index":0,"parentId":null}"#)
        try Self.roundTrip(InsertItemsBody.asChildren(InsertAsChildren(nodes: [Node(title: "a")])), #"{"nodes":[{"title":"a"}]}"#)
        try Self.roundTrip(InsertItemsBody.asChildren(InsertAsChildren(nodes: [], parentId: .null)), #"{"nodes":[],"parentId":null}"#)
        try Self.roundTrip(InsertItemsBody.asChildren(InsertAsChildren(nodes: [], parentId: .value(7), index: 2)),
                           #"{"index":2,"nodes":[],"parentId":7}"#)
        try Self.roundTrip(PatchViewBody.setSort(SetSort(sort: nil)), #"{"sort":null}"#)
        try Self.roundTrip(PatchViewBody.setSort(SetSort(sort: "-data.size,title")), #"{"sort":"-data.size,title"}"#)
        try Self.roundTrip(SessionSettingsBody(name: .null, ttl: .value(0)), #"{"name":null,"ttl":0}"#)
        // `data: null` stores null; no `data` leaves it.
        try Self.roundTrip(UpdateItem(data: .null), #"{"data":null}"#)
        try Self.roundTrip(UpdateItem(title: "t"), #"{"title":"t"}"#)
    }

    @Test func unionsPickTheirAlternative() throws {
        try Self.roundTrip(BatchOperation.delete(DeleteOperation(id: "5")), #"{"id":"5","op":"delete"}"#)
        try Self.roundTrip(BatchOperation.insertBefore(InsertBeforeOperation(nodes: [], before: 3)), #"{"before":3,"nodes":[],"op":"insert"}"#)
        try Self.roundTrip(BatchOperation.insertAsChildren(InsertAsChildrenOperation(nodes: [], parentId: .null)),
                           #"{"nodes":[],"op":"insert","parentId":null}"#)
        try Self.roundTrip(BatchOperation.expandAll(ExpandAllOperation()), #"{"op":"expandAll"}"#)
        try Self.roundTrip(PatchSessionBody.expandAll(ExpandAll()), #"{"expandAll":true}"#)
        try Self.roundTrip(PatchSessionBody.sessionSettingsBody(SessionSettingsBody(owner: .value("ops"))), #"{"owner":"ops"}"#)
        try Self.roundTrip(CreateSessionBody.nodes([Node(id: 1, title: "x", data: ["k": [1, 2.5, nil, true]])]),
                           #"[{"data":{"k":[1,2.5,null,true]},"id":1,"title":"x"}]"#)
        try Self.roundTrip(CreateSessionBody.upload(SessionUpload(nodes: [], expand: .depth(2))), #"{"expand":2,"nodes":[]}"#)
        try Self.roundTrip(Expand.mode(.all), #""all""#)
        try Self.roundTrip(InsertItemsBody.nodes([Node(title: "n")]), #"[{"title":"n"}]"#)
    }

    @Test func nodeIdsKeepTheirType() throws {
        let row = try JSONDecoder().decode(Row.self, from: Data(#"{"index":0,"id":42,"title":"a","level":0,"expanded":false,"hasChildren":false,"parentId":"42x","data":null}"#.utf8))
        #expect(row.id == .integer(42))
        #expect(row.parentId == .string("42x"))
        #expect(row.data == .null)
        let noData = try JSONDecoder().decode(Row.self, from: Data(#"{"index":0,"id":"a","title":"a","level":0,"expanded":false,"hasChildren":false,"parentId":null}"#.utf8))
        #expect(noData.data == nil)
        #expect(noData.parentId == nil)
        #expect(try Self.json(row).contains(#""data":null"#))
        #expect(try !Self.json(noData).contains("data"))
        #expect(try Self.json(noData).contains(#""parentId":null"#))
    }

    @Test func responsesAndEvents() throws {
        let text = #"{"version":3,"total":18,"changes":[{"index":2,"removed":0,"inserted":5}],"reload":[{"index":0,"count":18}],"results":[{"index":8,"ids":["new"]},{"index":null},{}]}"#
        let batch = try JSONDecoder().decode(BatchResponse.self, from: Data(text.utf8))
        #expect(batch.results[1].index == .null)
        #expect(batch.results[2].index == nil)
        #expect(try Self.json(batch.results[1]) == #"{"index":null}"#)
        let event = try JSONDecoder().decode(ChangeEvent.self, from: Data(text.utf8))
        #expect(event == .batch(batch))
        let item = try JSONDecoder().decode(ChangeEvent.self, from: Data(#"{"version":2,"total":1,"changes":[],"reload":[],"index":null}"#.utf8))
        guard case .itemChange(let change) = item else { Issue.record("read as \(item)"); return }
        #expect(change.index == nil)
        #expect(item.response.version == 2)
        let plain = try JSONDecoder().decode(ChangeEvent.self, from: Data(#"{"version":4,"total":1,"changes":[],"reload":[]}"#.utf8))
        #expect(plain == .change(ChangeResponse(version: 4, total: 1, changes: [], reload: [])))
        let aggregates = try JSONDecoder().decode([String: AggregateValue].self, from: Data(#"{"count":3,"sum:data.size":{"value":1512,"count":2},"max:data.x":{"value":null,"count":0}}"#.utf8))
        #expect(aggregates["count"] == .count(3))
        #expect(aggregates["sum:data.size"] == .statistic(AggregateStatistic(value: 1512, count: 2)))
        #expect(aggregates["max:data.x"] == .statistic(AggregateStatistic(value: nil, count: 0)))
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(DeleteOperation.self, from: Data(#"{"op":"move","id":1}"#.utf8)) }
    }

    @Test func problemKeepsEveryMember() throws {
        let body = Data(#"{"type":"urn:treesessions:problem:invalid-node","title":"Unprocessable Content","status":422,"detail":"duplicate id \"1\" at /1/id","pointer":"/1/id","byteOffset":28}"#.utf8)
        let problem = Problem.from(status: 422, contentType: "application/problem+json", body: body, etag: nil)
        #expect(problem.slug == "invalid-node")
        #expect(problem.status == 422)
        #expect(problem.pointer == "/1/id")
        #expect(problem.byteOffset == 28)
        #expect(problem.members["byteOffset"] == 28)
        #expect(problem.detail == #"duplicate id "1" at /1/id"#)
        let back = try JSONDecoder().decode(Problem.self, from: try JSONEncoder().encode(problem))
        #expect(back.members == problem.members)
        let plain = Problem.from(status: 502, contentType: "text/html", body: Data("<h1>Bad gateway</h1>".utf8), etag: nil)
        #expect(plain.status == 502)
        #expect(plain.detail == "<h1>Bad gateway</h1>")
    }

    @Test func problemsFromTheServer() async throws {
        try await withTreeServer { server in
            let client = server.client()
            let error = await #expect(throws: Problem.self) {
                try await client.createSession(.nodes([Node(id: "1", title: "a"), Node(id: "1", title: "b")]))
            }
            #expect(error?.status == 422)
            #expect(error?.slug == "invalid-node")
            #expect(error?.pointer == "/1/id")
            let missing = await #expect(throws: Problem.self) { try await client.session("AAAAAAAAAAAAAAAAAAAAAA") }
            #expect(missing?.status == 404)
            let summary = try await client.createSession(.nodes([Node(id: "a/b %+?", title: "odd id")]))
            let item = try await client.item(summary.id, "a/b %+?")
            #expect(item.title == "odd id")
            await #expect(throws: NotModified.self) { try await client.session(summary.id, ifNoneMatch: ETag.version(summary.version)) }
        }
    }
}
