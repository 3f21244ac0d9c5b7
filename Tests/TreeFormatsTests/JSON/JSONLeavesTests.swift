import Testing
@testable import TreeFormats

/// `JSONLeaves.forEach`: each leaf of a document with its member path, as `GET …/fields`
/// counts them; checked against the same walk over the parsed `JSONValue`.
@Suite struct JSONLeavesTests {
    static func leaves(_ text: String, maxDepth: Int = 8) throws -> [String] {
        var out: [String] = []
        try Array(text.utf8).withUnsafeBytes { bytes in
            try JSONLeaves.forEach(in: bytes, prefix: "data", maxDepth: maxDepth) { path, kind in
                out.append(String(decoding: path, as: UTF8.self) + " " + String(describing: kind))
            }
        }
        return out
    }

    /// The same walk over the parsed value.
    static func expected(_ value: JSONValue, _ path: String, depth: Int, maxDepth: Int, _ out: inout [String]) {
        switch value {
        case .object(let members) where !members.isEmpty && depth < maxDepth:
            for (name, member) in members {
                let segment = name.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: ".", with: "\\.")
                expected(member, path + "." + segment, depth: depth + 1, maxDepth: maxDepth, &out)
            }
        case .object: out.append(path + " object")
        case .array: out.append(path + " array")
        case .string: out.append(path + " string")
        case .number: out.append(path + " number")
        case .bool: out.append(path + " boolean")
        case .null: out.append(path + " null")
        }
    }

    @Test(arguments: [
        #"{"size": 3, "owner": {"name": "al", "tags": ["x", {"y": 1}]}, "e": {}, "n": null, "t": true, "f": false}"#,
        #"{"a.b": 1, "c\\d": "\u002e", "e\u002ef": [], "\ud83d\ude00": -1.5e3}"#,
        #"  5  "#, #""text""#, #"[1, 2]"#, #"null"#, #"{}"#,
        #"{"d":{"d":{"d":{"d":{"d":{"d":{"d":{"d":{"d":{"d":1}}}}}}}}}}"#,
        #"{"a": {"b": {}, "c": [{"d": 1}]}, "z": {"y": {"x": "w"}}}"#,
    ])
    func leavesAreTheParsedValuesLeaves(_ text: String) throws {
        var want: [String] = []
        Self.expected(try JSONValue.parse(text), "data", depth: 0, maxDepth: 8, &want)
        #expect(try Self.leaves(text) == want)
        var shallow: [String] = []
        Self.expected(try JSONValue.parse(text), "data", depth: 0, maxDepth: 1, &shallow)
        #expect(try Self.leaves(text, maxDepth: 1) == shallow)
    }

    @Test func escapesNameOneMember() throws {
        #expect(try Self.leaves(#"{"a.b": 1, "a": {"b": 2}, "c\\": 3}"#) == [#"data.a\.b number"#, "data.a.b number", #"data.c\\ number"#])
    }

    @Test(arguments: [#"{"a": }"#, #"{"a" 1}"#, #"{"a": 1,}"#, #"[1"#, #"1 2"#, #""#, #"{"a": 1} x"#, #"tru"#])
    func notOneJSONValueThrows(_ text: String) {
        #expect(throws: TreeInputError.self) { try Self.leaves(text) }
    }
}
