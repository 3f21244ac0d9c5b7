import Testing
import TreeEngine
@testable import TreeFormats
@testable import TreeReference

@Suite("JSONValueTests")
struct JSONValueTests {
    @Test func parsesEveryKind() throws {
        let value = try JSONValue.parse(#" {"a": null, "b": [true, false], "c": -1.5e+3, "d": "x\ny\u00e9", "e": {}, "f": []} "#)
        #expect(value == .object([
            (key: "a", value: .null),
            (key: "b", value: .array([.bool(true), .bool(false)])),
            (key: "c", value: .number("-1.5e+3")),
            (key: "d", value: .string("x\nyé")),
            (key: "e", value: .object([])),
            (key: "f", value: .array([])),
        ]))
        #expect(value["c"] == .number("-1.5e+3"))
        #expect(value["zz"] == nil)
        #expect(value["b"]?.stringValue == nil)
        #expect(value["d"]?.stringValue == "x\nyé")
        #expect(value["a"]?.isNull == true)
        #expect(try JSONValue.parse("true").boolValue == true)
        #expect(try JSONValue.parse("2.5").doubleValue == 2.5)
    }

    @Test func objectEqualityIsOrdered() {
        let ab = JSONValue.object([(key: "a", value: .null), (key: "b", value: .null)])
        let ba = JSONValue.object([(key: "b", value: .null), (key: "a", value: .null)])
        #expect(ab != ba)
        #expect(ab == .object([(key: "a", value: .null), (key: "b", value: .null)]))
        #expect(JSONValue.number("1") != .number("1.0"))
        #expect(JSONValue.array([.null]) != .array([.null, .null]))
        #expect(JSONValue.string("1") != .number("1"))
    }

    @Test func intValueForEveryIntegralNumberInRange() throws {
        #expect(JSONValue.number("42").intValue == 42)
        #expect(JSONValue.number("-0").intValue == 0)
        #expect(JSONValue.number("-9223372036854775808").intValue == Int.min)
        #expect(JSONValue.number("9223372036854775807").intValue == Int.max)
        #expect(JSONValue.number("9223372036854775808").intValue == nil)
        // Written with a fraction or an exponent, the value is still an integer.
        #expect(JSONValue.number("1.0").intValue == 1)
        #expect(JSONValue.number("2.0").intValue == 2)
        #expect(JSONValue.number("2e0").intValue == 2)
        #expect(JSONValue.number("2E+0").intValue == 2)
        #expect(JSONValue.number("1e3").intValue == 1000)
        #expect(JSONValue.number("-0.0").intValue == 0)
        #expect(JSONValue.number("0e-7").intValue == 0)
        #expect(JSONValue.number("0.000").intValue == 0)
        #expect(JSONValue.number("250e-2").intValue == nil)
        #expect(JSONValue.number("2500e-2").intValue == 25)
        #expect(JSONValue.number("0.25e2").intValue == 25)
        #expect(JSONValue.number("-7.000e1").intValue == -70)
        #expect(JSONValue.number("9.223372036854775807e18").intValue == Int.max)
        #expect(JSONValue.number("-9.223372036854775808e18").intValue == Int.min)
        #expect(JSONValue.number("9.223372036854775808e18").intValue == nil)
        #expect(JSONValue.number("1000000000000000000000e-3").intValue == 1_000_000_000_000_000_000)
        // Not integers, or out of range.
        #expect(JSONValue.number("2.5").intValue == nil)
        #expect(JSONValue.number("0.1").intValue == nil)
        #expect(JSONValue.number("1e-1").intValue == nil)
        #expect(JSONValue.number("1e300").intValue == nil)
        #expect(JSONValue.number("1e19").intValue == nil)
        #expect(JSONValue.number("1e99999999999999999999").intValue == nil)
        #expect(JSONValue.number("1e-99999999999999999999").intValue == nil)
        #expect(JSONValue.number("0e99999999999999999999").intValue == 0)
        // Not numbers.
        #expect(JSONValue.number("").intValue == nil)
        #expect(JSONValue.number("12x").intValue == nil)
        #expect(JSONValue.number("1.").intValue == nil)
        #expect(JSONValue.string("42").intValue == nil)
        #expect(JSONValue.bool(true).intValue == nil)
        #expect(try JSONValue.parse(#"{"expandDepth": 2.0}"#)["expandDepth"]?.intValue == 2)
        #expect(try JSONValue.parse(#"{"expandDepth": 3}"#)["expandDepth"]?.intValue == 3)
    }

    @Test func serializesCompactly() throws {
        let text = #"{ "a" : [ 1 , 2.50 , -0 , 1E5 ] , "b" : "q\"\\\/\u0001\t\ud83d\ude00" , "c" : { "d" : null } , "e" : [ ] , "t" : true }"#
        let value = try JSONValue.parse(text)
        let serialized = String(decoding: value.serialize(), as: UTF8.self)
        #expect(serialized == #"{"a":[1,2.50,-0,1E5],"b":"q\"\\/\u0001\t😀","c":{"d":null},"e":[],"t":true}"#)
        #expect(try JSONValue.parse(value.serialize()) == value)
    }

    @Test func roundTripsRandomValues() throws {
        var generator = SeededRandom(seed: 42)
        for round in 0..<500 {
            let value = Self.randomValue(depth: 0, using: &generator)
            let bytes = value.serialize()
            let parsed = try JSONValue.parse(bytes)
            #expect(parsed == value, "round \(round): \(String(decoding: bytes, as: UTF8.self))")
            #expect(parsed.serialize() == bytes)
        }
    }

    static func randomValue(depth: Int, using generator: inout SeededRandom) -> JSONValue {
        let pick = generator.next() % (depth > 4 ? 4 : 6)
        switch pick {
        case 0: return .null
        case 1: return .bool(generator.next() % 2 == 0)
        case 2:
            let numbers = ["0", "-1", "3.25", "1e-7", "-0.5E+10", "123456789012345678901234567890"]
            return .number(numbers[Int(generator.next() % UInt64(numbers.count))])
        case 3: return .string(randomString(using: &generator))
        case 4:
            return .array((0..<Int(generator.next() % 4)).map { _ in randomValue(depth: depth + 1, using: &generator) })
        default:
            var members: [(key: String, value: JSONValue)] = []
            for index in 0..<Int(generator.next() % 4) {
                members.append((key: randomString(using: &generator) + "\(index)", value: randomValue(depth: depth + 1, using: &generator)))
            }
            return .object(members)
        }
    }

    static func randomString(using generator: inout SeededRandom) -> String {
        let pieces = ["a", "Z", " ", "\"", "\\", "/", "\n", "\t", "\u{0}", "\u{1F}", "\u{7F}", "é", "€", "😀", "~", "0123456789"]
        return (0..<Int(generator.next() % 8)).map { _ in pieces[Int(generator.next() % UInt64(pieces.count))] }.joined()
    }

    @Test func errorsCarryOffsetAndPath() throws {
        let cases: [(String, TreeInputError.Kind, Int, String)] = [
            ("", .syntax, 0, ""),
            ("   ", .syntax, 3, ""),
            ("{\"expanded\": tru}", .syntax, 13, "/expanded"),
            (#"{"a":[1,2,x]}"#, .syntax, 10, "/a/2"),
            (#"{"a":[1,2 3]}"#, .syntax, 10, "/a"),
            (#"{"a":1,}"#, .syntax, 7, ""),
            (#"{"a/b":{"c~":[01]}}"#, .syntax, 14, "/a~1b/c~0/0"),
            (#"{"a":1,"a":2}"#, .rule, 7, "/a"),
            (#"{"a":1,"a":2,}"#, .syntax, 13, ""),
            (#"[1] [2]"#, .syntax, 4, ""),
            (#""\ud800""#, .syntax, 1, ""),
            ("\"\u{1}\"", .syntax, 1, ""),
        ]
        for (text, kind, offset, path) in cases {
            do {
                let value = try JSONValue.parse(text)
                Issue.record("\(text.debugDescription) parsed as \(value)")
            } catch {
                #expect(error.kind == kind, "\(text.debugDescription): \(error)")
                #expect(error.byteOffset == offset, "\(text.debugDescription): \(error)")
                #expect(error.path == path, "\(text.debugDescription): \(error)")
            }
        }
    }

    @Test func invalidUTF8IsASyntaxError() {
        for bytes: [UInt8] in [[0x22, 0xC0, 0xAF, 0x22], [0x22, 0xED, 0xBF, 0xBF, 0x22], [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], [0x22, 0xE2, 0x82]] {
            #expect(throws: TreeInputError.self) { try JSONValue.parse(bytes) }
            do { _ = try JSONValue.parse(bytes) } catch { #expect(error.kind == .syntax && error.byteOffset == 1) }
        }
    }

    @Test func duplicateKeysInLargeObjects() throws {
        var text = "{"
        for index in 0..<100 { text += "\"k\(index)\":\(index)," }
        let valid = try JSONValue.parse(text + "\"last\":0}")
        guard case .object(let members) = valid else { Issue.record("not an object"); return }
        #expect(members.count == 101)
        do {
            _ = try JSONValue.parse(text + "\"k57\":0}")
            Issue.record("duplicate accepted")
        } catch {
            #expect(error.kind == .rule)
            #expect(error.message == #"duplicate key "k57""#)
            #expect(error.path == "/k57")
        }
    }

    @Test func depthIsLimitedWithoutRecursion() throws {
        let deep = String(repeating: "[", count: 1_000_000) + String(repeating: "]", count: 1_000_000)
        do {
            _ = try JSONValue.parse(deep)
            Issue.record("accepted")
        } catch {
            #expect(error.kind == .rule)
            #expect(error.byteOffset == 512)
            #expect(error.message.contains("512"))
        }
        let ok = try JSONValue.parse(String(repeating: "[", count: 512) + String(repeating: "]", count: 512))
        #expect(ok.serialize().count == 1024)
        do {
            _ = try JSONValue.parse(String(repeating: "{\"a\":", count: 1_000_000))
            Issue.record("accepted")
        } catch {
            #expect(error.kind == .rule)
        }
        // Malformed and too deep: the syntax error found before the limit wins.
        do {
            _ = try JSONValue.parse("[x" + String(repeating: "[", count: 1000))
        } catch {
            #expect(error.kind == .syntax)
            #expect(error.byteOffset == 1)
        }
    }

    @Test func parsesFromAnyByteCollection() throws {
        let bytes = Array(#"xx{"expanded":true}yy"#.utf8)
        #expect(try JSONValue.parse(bytes[2..<19]) == .object([(key: "expanded", value: .bool(true))]))
        #expect(try JSONValue.parse(AnyCollection(bytes[2..<19])) == .object([(key: "expanded", value: .bool(true))]))
        let error = #expect(throws: TreeInputError.self) { try JSONValue.parse(bytes[0..<19]) }
        #expect(error?.byteOffset == 0)
    }
}
