import Foundation

/// Diacritic-insensitive folding of single Unicode scalars, from tables built once.
///
/// The fold of a scalar `s` is: its lowercase mapping (unless case-sensitive), then
/// the canonical decomposition (NFD) of that, without the scalars whose canonical
/// combining class is not 0. Folding a text scalar by scalar and concatenating is
/// the same as lowercasing the whole text, normalizing it to NFD and dropping those
/// marks: NFD decomposes scalar by scalar and only reorders marks of class ≠ 0,
/// which are all dropped.
///
/// The tables hold every scalar below U+30000 whose fold is not the scalar itself; no
/// scalar from U+30000 up has a canonical decomposition, a combining class ≠ 0 or a
/// lowercase mapping other than itself. They are
/// computed in one pass each (lowercasing and NFD of one string of all assigned
/// scalars, separated by line feeds) the first time a diacritic-insensitive query is
/// matched: about 0.1 s, once per process.
enum TitleFolding {
    /// Folds for case-sensitive matching: NFD without marks, as UTF-8.
    static let caseSensitive = table(lowercasing: false)
    /// Folds for case-insensitive matching: lowercase, NFD without marks, as UTF-8.
    static let caseInsensitive = table(lowercasing: true)

    static func table(lowercasing: Bool) -> [UInt32: [UInt8]] {
        var scalars: [Unicode.Scalar] = []
        var joined = String.UnicodeScalarView()
        for v in UInt32(0x80) ..< 0x30000 {
            guard let s = Unicode.Scalar(v), s.properties.generalCategory != .unassigned else { continue }
            scalars.append(s)
            joined.append(s)
            joined.append("\n")
        }
        var text = String(joined)
        if lowercasing { text = text.lowercased() }  // scalar by scalar, as `lowercaseMapping`
        var table: [UInt32: [UInt8]] = [:]
        var piece: [UInt8] = []
        var i = 0
        for s in text.decomposedStringWithCanonicalMapping.unicodeScalars {
            if s == "\n" {
                let original = scalars[i]
                if !piece.elementsEqual(String(original).utf8) { table[original.value] = piece }
                piece.removeAll(keepingCapacity: true)
                i += 1
            } else if s.properties.canonicalCombiningClass.rawValue == 0 {
                piece.append(contentsOf: String(s).utf8)
            }
        }
        precondition(i == scalars.count, "NFD kept the separators")
        return table
    }
}
