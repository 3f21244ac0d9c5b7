/// Whether a node matches a `FilterQuery`: its text in the title or in any other field the
/// query searches, and every condition. (Leaves only is the caller's: it depends on the
/// node's place, not on its fields.)
final class NodeMatcher: Sendable {
    /// The text's matcher; titles and the texts of data values alike.
    let text: TitleMatcher
    /// The conditions, with a string operand's fold.
    let conditions: [(condition: FieldCondition, folded: [UInt8])]
    /// The fields the text is searched in (none without a text).
    let fields: [NodeField]
    /// The text in the title alone, no condition: every query before fields and conditions.
    let isTitleOnly: Bool

    var query: FilterQuery { text.query }

    init(_ query: FilterQuery) {
        text = TitleMatcher(query)
        fields = query.text.isEmpty ? [] : query.fields
        isTitleOnly = query.isTitleOnly
        let folds = text.folds
        conditions = query.conditions.map { condition in
            guard case .string(var operand) = condition.operand else { return (condition, []) }
            var folded: [UInt8] = []
            operand.withUTF8 { TitleMatcher.fold(UnsafeRawBufferPointer($0), into: &folded, scalarStarts: nil,
                                                 caseSensitive: query.caseSensitive, folds: folds) }
            return (condition, folded)
        }
    }

    /// Whether a node matches, given whether the text matches its `i`-th field
    /// (`query.fields[i]`) and whether it satisfies the `i`-th condition.
    @inline(__always)
    func matches(text field: (Int) -> Bool, condition: (Int) -> Bool) -> Bool {
        if !fields.isEmpty {
            var found = false
            for i in fields.indices where field(i) { found = true; break }
            if !found { return false }
        }
        for i in conditions.indices where !condition(i) { return false }
        return true
    }

    /// Whether the node in `slot` matches. Data fields are read from the forest's columns,
    /// or with `reader` from the node's data where there is no column.
    /// - Complexity: O(the fields' text lengths · the text's length)
    func matches(_ slot: Slot, in forest: Forest, reader: (any NodeDataReader)?, scratch: inout [UInt8]) -> Bool {
        if isTitleOnly { return forest.withTitle(of: NodeHandle(slot: slot)) { text.matches($0, scratch: &scratch) } }
        return matches(text: { i in
            forest.withField(fields[i], of: slot, reader: reader) { kind, value, _ in textMatches(kind, value, scratch: &scratch) }
        }, condition: { i in
            forest.withField(conditions[i].condition.field, of: slot, reader: reader) { kind, value, number in
                holds(i, kind, value, number, scratch: &scratch)
            }
        })
    }

    /// The fields whose value matches the text, in the query's order (none without a text).
    func matchedFields(_ slot: Slot, in forest: Forest, reader: (any NodeDataReader)?) -> [NodeField] {
        var scratch: [UInt8] = []
        return fields.filter { field in
            forest.withField(field, of: slot, reader: reader) { kind, value, _ in textMatches(kind, value, scratch: &scratch) }
        }
    }

    /// Whether the text matches a value: a string's text, a number's or a boolean's JSON
    /// text; never null, an array, an object or a missing value.
    @inline(__always)
    func textMatches(_ kind: FieldKind, _ value: UnsafeRawBufferPointer, scratch: inout [UInt8]) -> Bool {
        NodeMatcher.isSearchable(kind) && text.matches(value, scratch: &scratch)
    }

    @inline(__always)
    static func isSearchable(_ kind: FieldKind) -> Bool { kind == .string || kind == .number || kind == .boolean }

    /// Whether a value satisfies the `i`-th condition.
    @inline(__always)
    func holds(_ i: Int, _ kind: FieldKind, _ value: UnsafeRawBufferPointer, _ number: Double, scratch: inout [UInt8]) -> Bool {
        let (condition, folded) = conditions[i]
        let order: Int?
        switch (condition.operand, kind) {
        case (.null, .null):
            order = 0
        case (.boolean(let b), .boolean):
            let isTrue = value.count == 4  // "true"
            order = isTrue == b ? 0 : (isTrue ? 1 : -1)
        case (.number(let x), .number), (.number(let x), .string):
            // A string's number is NaN unless it is written as a JSON number.
            order = number.isNaN ? nil : number < x ? -1 : (number > x ? 1 : 0)
        case (.string, .string):
            TitleMatcher.fold(value, into: &scratch, scalarStarts: nil, caseSensitive: query.caseSensitive, folds: text.folds)
            order = scratch.withUnsafeBytes { v in folded.withUnsafeBytes { NaturalOrder.compare(v, $0) } }
        default:
            order = nil
        }
        return condition.holds(order)
    }
}
