import Testing
@testable import TreeEngine
import TreeStorage

/// Issue 37: the pieces of a typed condition on their own: natural order, operands that
/// differ only canonically, and the bytes a query's fields and conditions are kept as.
@Suite struct FieldConditionTests {
    func order(_ a: String, _ b: String) -> Int {
        Array(a.utf8).withUnsafeBytes { x in Array(b.utf8).withUnsafeBytes { y in NaturalOrder.compare(x, y) } }
    }

    @Test func naturalOrderComparesDigitRunsByValue() {
        #expect(order("item 2", "item 10") == -1)
        #expect(order("item 10", "item 9") == 1)
        #expect(order("a01", "a1") != 0, "equal values, other texts: the bytes decide")
        #expect(order("a01", "a1") == -order("a1", "a01"))
        #expect(order("2026-01-01", "2025-12-31") == 1)
        #expect(order("", "0") == -1)
        #expect(order("abc", "abc") == 0)
    }

    @Test func operandsDifferByScalarsAsFilterTextsDo() {
        let composed = FieldCondition(.title, .equal, .string("é"))
        let decomposed = FieldCondition(.title, .equal, .string("e\u{301}"))
        #expect(composed != decomposed)
        #expect(Set([composed, decomposed]).count == 2)
        #expect(FilterQuery("", conditions: [composed]) != FilterQuery("", conditions: [decomposed]))
    }

    @Test func fieldsAndConditionsReadBackFromTheirBytes() {
        let query = FilterQuery("x", fields: [.title, .data(FieldPath(["a.b", "ü"]))], conditions: [
            FieldCondition(.data(FieldPath(["size"])), .greaterOrEqual, .number(-1.5e300)),
            FieldCondition(.title, .notEqual, .string("Zürich, \"quoted\"")),
            FieldCondition(.data(FieldPath(["ok"])), .equal, .boolean(false)),
            FieldCondition(.data(FieldPath(["n"])), .less, .null),
        ])
        let bytes = FilterQueryBytes.bytes(of: query)
        var o = 0
        let back = bytes.withUnsafeBytes { FilterQueryBytes.read($0, at: &o) }
        #expect(back?.fields == query.fields)
        #expect(back?.conditions == query.conditions)
        #expect(o == bytes.count)
        // Cut anywhere, they do not read.
        for cut in 0 ..< bytes.count {
            var at = 0
            #expect(Array(bytes[..<cut]).withUnsafeBytes { FilterQueryBytes.read($0, at: &at) } == nil, "cut at \(cut)")
        }
    }
}
