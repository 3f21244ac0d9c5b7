import TreeEngine
@testable import TreeFormats

/// A part of a fixture document: text (its UTF-8) or one raw byte (for invalid UTF-8
/// and control characters).
protocol FixturePiece {
    var fixtureBytes: [UInt8] { get }
}

extension String: FixturePiece {
    var fixtureBytes: [UInt8] { Array(utf8) }
}

extension Int: FixturePiece {
    var fixtureBytes: [UInt8] { [UInt8(self)] }
}

/// The bytes of `pieces`, concatenated.
func bytes(_ pieces: any FixturePiece...) -> [UInt8] {
    pieces.flatMap(\.fixtureBytes)
}

/// One malformed or rule-breaking upload document and the error it must produce.
struct InvalidDocument: CustomStringConvertible {
    var name: String
    var document: [UInt8]
    var kind: TreeInputError.Kind
    var byteOffset: Int
    /// JSON Pointer; empty for the document root.
    var path: String

    init(_ name: String, _ document: [UInt8], _ kind: TreeInputError.Kind, _ byteOffset: Int, _ path: String) {
        self.name = name
        self.document = document
        self.kind = kind
        self.byteOffset = byteOffset
        self.path = path
    }

    var description: String { name }
}

/// The corpus of bad upload documents (swift-foundation keeps its `fail/*.json` the
/// same way): every syntax error class of RFC 8259 and UTF-8, and every node rule.
enum InvalidDocuments {
    static let all: [InvalidDocument] = [
        InvalidDocument("empty", bytes(""), .syntax, 0, ""),
        InvalidDocument("whitespace-only", bytes("  ", 0x0A), .syntax, 3, ""),
        InvalidDocument("trailing-garbage", bytes("[] x"), .syntax, 3, ""),
        InvalidDocument("trailing-comma-array", bytes(#"[{"title":"a"},]"#), .syntax, 15, "/1"),
        InvalidDocument("trailing-comma-object", bytes(#"[{"title":"a",}]"#), .syntax, 14, "/0"),
        InvalidDocument("missing-colon", bytes(#"[{"title" "a"}]"#), .syntax, 10, "/0/title"),
        InvalidDocument("unterminated-string", bytes(#"[{"title":"abc"#), .syntax, 10, "/0/title"),
        InvalidDocument("bad-escape", bytes(#"[{"title":"a\x"}]"#), .syntax, 12, "/0/title"),
        InvalidDocument("lone-high-surrogate", bytes(#"[{"title":"\ud800"}]"#), .syntax, 11, "/0/title"),
        InvalidDocument("lone-low-surrogate", bytes(#"[{"title":"\udc00x"}]"#), .syntax, 11, "/0/title"),
        InvalidDocument("high-surrogate-then-bmp", bytes(#"[{"title":"\ud800\u0041"}]"#), .syntax, 11, "/0/title"),
        InvalidDocument("high-surrogate-then-high", bytes(#"[{"title":"\ud800\ud800"}]"#), .syntax, 11, "/0/title"),
        InvalidDocument("bad-hex", bytes(#"[{"title":"\u12G4"}]"#), .syntax, 11, "/0/title"),
        InvalidDocument("short-hex-at-end", bytes(#"[{"title":"\u12"#), .syntax, 11, "/0/title"),
        InvalidDocument("control-char", bytes(#"[{"title":"a"#, 0x01, #""}]"#), .syntax, 12, "/0/title"),
        InvalidDocument("raw-tab-in-string", bytes(#"[{"title":"a"#, 0x09, #"b"}]"#), .syntax, 12, "/0/title"),
        InvalidDocument("raw-newline-in-string", bytes(#"[{"title":"a"#, 0x0A, #"b"}]"#), .syntax, 12, "/0/title"),
        InvalidDocument("utf8-lone-continuation", bytes(#"[{"title":""#, 0x80, #""}]"#), .syntax, 11, "/0/title"),
        InvalidDocument("utf8-overlong-2", bytes(#"[{"title":""#, 0xC0, 0x80, #""}]"#), .syntax, 11, "/0/title"),
        InvalidDocument("utf8-overlong-2-c1", bytes(#"[{"title":""#, 0xC1, 0xBF, #""}]"#), .syntax, 11, "/0/title"),
        InvalidDocument("utf8-overlong-3", bytes(#"[{"title":""#, 0xE0, 0x80, 0x80, #""}]"#), .syntax, 11, "/0/title"),
        InvalidDocument("utf8-overlong-4", bytes(#"[{"title":""#, 0xF0, 0x8F, 0xBF, 0xBF, #""}]"#), .syntax, 11, "/0/title"),
        InvalidDocument("utf8-surrogate", bytes(#"[{"title":""#, 0xED, 0xA0, 0x80, #""}]"#), .syntax, 11, "/0/title"),
        InvalidDocument("utf8-above-10ffff", bytes(#"[{"title":""#, 0xF4, 0x90, 0x80, 0x80, #""}]"#), .syntax, 11, "/0/title"),
        InvalidDocument("utf8-f5", bytes(#"[{"title":""#, 0xF5, 0x80, 0x80, 0x80, #""}]"#), .syntax, 11, "/0/title"),
        InvalidDocument("utf8-ff", bytes(#"[{"title":"ab"#, 0xFF, #""}]"#), .syntax, 13, "/0/title"),
        InvalidDocument("utf8-truncated-at-end", bytes(#"[{"title":""#, 0xE2, 0x82), .syntax, 11, "/0/title"),
        InvalidDocument("utf8-truncated-in-string", bytes(#"[{"title":""#, 0xE2, 0x82, #"A"}]"#), .syntax, 11, "/0/title"),
        InvalidDocument("utf8-bad-in-long-string", bytes(#"[{"title":"0123456789abcdef"#, 0xE2, "(", 0xA1, #""}]"#), .syntax, 27, "/0/title"),
        InvalidDocument("utf8-in-data-key", bytes(#"[{"title":"a","data":{"k"#, 0xFF, #"":1}}]"#), .syntax, 24, "/0/data"),
        InvalidDocument("utf8-in-data", bytes(#"[{"title":"a","data":{"k":""#, 0xFF, #""}}]"#), .syntax, 27, "/0/data/k"),
        InvalidDocument("utf8-outside-string", bytes(#"[{"title":"a"}"#, 0xC2, 0xA0, "]"), .syntax, 14, ""),
        InvalidDocument("number-leading-zero", bytes(#"[{"title":"a","data":[1,01]}]"#), .syntax, 24, "/0/data/1"),
        InvalidDocument("number-minus-alone", bytes(#"[{"title":"a","data":-}]"#), .syntax, 22, "/0/data"),
        InvalidDocument("number-dot-no-digit", bytes(#"[{"title":"a","data":1.}]"#), .syntax, 23, "/0/data"),
        InvalidDocument("number-exponent-no-digit", bytes(#"[{"title":"a","data":1e+}]"#), .syntax, 24, "/0/data"),
        InvalidDocument("number-leading-plus", bytes(#"[{"title":"a","data":+1}]"#), .syntax, 21, "/0/data"),
        InvalidDocument("number-leading-dot", bytes(#"[{"title":"a","data":.5}]"#), .syntax, 21, "/0/data"),
        InvalidDocument("number-hex", bytes(#"[{"title":"a","data":0x10}]"#), .syntax, 22, "/0"),
        InvalidDocument("bad-literal-in-flag", bytes(#"[{"title":"a","expanded":tru}]"#), .syntax, 25, "/0/expanded"),
        InvalidDocument("literal-capitalized", bytes(#"[{"title":"a","data":True}]"#), .syntax, 21, "/0/data"),
        InvalidDocument("nan", bytes(#"[{"title":"a","data":NaN}]"#), .syntax, 21, "/0/data"),
        InvalidDocument("single-quotes", bytes(#"[{'title':"a"}]"#), .syntax, 2, "/0"),
        InvalidDocument("bom", bytes(0xEF, 0xBB, 0xBF, "[]"), .syntax, 0, ""),
        InvalidDocument("unclosed-array", bytes(#"[{"title":"a"}"#), .syntax, 14, ""),
        InvalidDocument("unclosed-children", bytes(#"{"nodes":[{"title":"a","children":["#), .syntax, 35, "/nodes/0/children/0"),
        InvalidDocument("unclosed-data", bytes(#"[{"title":"a","data":{"x":[1,2"#), .syntax, 30, "/0/data/x"),
        InvalidDocument("formfeed-whitespace", bytes("[", 0x0C, "]"), .syntax, 1, "/0"),
        InvalidDocument("comment", bytes("[/*x*/]"), .syntax, 1, "/0"),
        InvalidDocument("missing-comma-between-nodes", bytes(#"[{"title":"a"} {"title":"b"}]"#), .syntax, 15, ""),
        InvalidDocument("missing-comma-between-members", bytes(#"[{"title":"a" "id":1}]"#), .syntax, 14, "/0"),
        InvalidDocument("syntax-after-duplicate-key", bytes(#"{"nodes":[],"nodes":[] x"#), .syntax, 23, ""),
        InvalidDocument("syntax-after-rule-error", bytes(#"[{"title":5}, x]"#), .syntax, 14, "/1"),
        InvalidDocument("syntax-in-other-member", bytes(#"{"nodes":[],"expand":[1,]}"#), .syntax, 24, "/expand/1"),
        InvalidDocument("top-level-string", bytes(#""abc""#), .rule, 0, ""),
        InvalidDocument("top-level-number", bytes(" 42 "), .rule, 1, ""),
        InvalidDocument("missing-nodes", bytes(#"{"expand":"all"}"#), .rule, 0, ""),
        InvalidDocument("empty-object", bytes("{}"), .rule, 0, ""),
        InvalidDocument("nodes-not-array", bytes(#"{"nodes":{}}"#), .rule, 9, "/nodes"),
        InvalidDocument("duplicate-nodes", bytes(#"{"nodes":[],"nodes":[]}"#), .rule, 12, "/nodes"),
        InvalidDocument("duplicate-top-key", bytes(#"{"expand":1,"expand":2,"nodes":[]}"#), .rule, 12, "/expand"),
        InvalidDocument("node-not-object", bytes("[1]"), .rule, 1, "/0"),
        InvalidDocument("node-null", bytes(#"{"nodes":[{"title":"a"},null]}"#), .rule, 24, "/nodes/1"),
        InvalidDocument("node-array", bytes("[[]]"), .rule, 1, "/0"),
        InvalidDocument("missing-title", bytes(#"[{"id":"a"}]"#), .rule, 1, "/0"),
        InvalidDocument("missing-title-empty-node", bytes("[{}]"), .rule, 1, "/0"),
        InvalidDocument("missing-title-nested", bytes(#"[{"title":"a","children":[{"title":"b"},{"expanded":true}]}]"#), .rule, 40, "/0/children/1"),
        InvalidDocument("title-number", bytes(#"[{"title":5}]"#), .rule, 10, "/0/title"),
        InvalidDocument("title-null", bytes(#"[{"title":null}]"#), .rule, 10, "/0/title"),
        InvalidDocument("title-deep", bytes(#"{"nodes":[{"title":"a","children":[{"title":"b","children":[{"title":{}}]}]}]}"#), .rule, 69, "/nodes/0/children/0/children/0/title"),
        InvalidDocument("id-fraction", bytes(#"[{"title":"a","id":1.5}]"#), .rule, 19, "/0/id"),
        InvalidDocument("id-exponent", bytes(#"[{"title":"a","id":15e-1}]"#), .rule, 19, "/0/id"),
        InvalidDocument("id-exponent-too-big", bytes(#"[{"title":"a","id":1e300}]"#), .rule, 19, "/0/id"),
        InvalidDocument("id-true", bytes(#"[{"title":"a","id":true}]"#), .rule, 19, "/0/id"),
        InvalidDocument("id-null", bytes(#"[{"title":"a","id":null}]"#), .rule, 19, "/0/id"),
        InvalidDocument("id-array", bytes(#"[{"title":"a","id":[1]}]"#), .rule, 19, "/0/id"),
        InvalidDocument("id-too-big", bytes(#"[{"title":"a","id":9223372036854775808}]"#), .rule, 19, "/0/id"),
        InvalidDocument("id-too-small", bytes(#"[{"title":"a","id":-9223372036854775809}]"#), .rule, 19, "/0/id"),
        InvalidDocument("expanded-string", bytes(#"[{"title":"a","expanded":"yes"}]"#), .rule, 25, "/0/expanded"),
        InvalidDocument("expanded-null", bytes(#"[{"title":"a","expanded":null}]"#), .rule, 25, "/0/expanded"),
        InvalidDocument("has-children-number", bytes(#"[{"title":"a","hasChildren":1}]"#), .rule, 28, "/0/hasChildren"),
        InvalidDocument("children-object", bytes(#"[{"title":"a","children":{}}]"#), .rule, 25, "/0/children"),
        InvalidDocument("children-null", bytes(#"[{"title":"a","children":null}]"#), .rule, 25, "/0/children"),
        InvalidDocument("child-not-object", bytes(#"[{"title":"a","children":["b"]}]"#), .rule, 26, "/0/children/0"),
        InvalidDocument("unknown-key", bytes(#"[{"title":"a","name":"x"}]"#), .rule, 14, "/0/name"),
        InvalidDocument("unknown-key-escaped-path", bytes(#"[{"title":"a","a/b~c":1}]"#), .rule, 14, "/0/a~1b~0c"),
        InvalidDocument("unknown-key-case", bytes(#"[{"Title":"a"}]"#), .rule, 2, "/0/Title"),
        InvalidDocument("duplicate-title", bytes(#"[{"title":"a","title":"b"}]"#), .rule, 14, "/0/title"),
        InvalidDocument("duplicate-title-escaped", bytes(#"[{"title":"a","\u0074itle":"b"}]"#), .rule, 14, "/0/title"),
        InvalidDocument("duplicate-children", bytes(#"[{"title":"a","children":[],"children":[]}]"#), .rule, 28, "/0/children"),
        InvalidDocument("duplicate-data", bytes(#"[{"title":"a","data":1,"data":1}]"#), .rule, 23, "/0/data"),
        InvalidDocument("duplicate-id-mixed", bytes(#"[{"title":"a","id":1,"id":"1"}]"#), .rule, 21, "/0/id"),
    ]
}
