import Foundation
import Testing
import TreeEngine
import TreeStorage
@testable import TreeService

/// `--max-body` and the journal's record limit agree: a change whose body `--max-body`
/// accepts fits one record (an insert near 1 GiB passed HTTP and then answered 507).
@Suite struct JournalLimitTests {
    /// Everything but the body, as long as a request line (8 KiB at most) can make it.
    @Test func aChangeRecordIsItsBodyAndAtMostTheOverheadBesides() {
        let line = String(repeating: "x", count: 8 << 10)
        let change = RecordedChange(route: .insertRows, view: FilterQuery(line, mode: .fuzzy, caseSensitive: true),
                                    item: nil, body: [], rows: RowsUpload(format: .paths(separator: "→→→→"), parent: ItemID(line)))
        let time = Date()
        let empty = JournalEntry.change(change).encoded(at: time).count
        var withBody = change
        withBody.body = Array(repeating: 0x61, count: 1000)
        #expect(JournalEntry.change(withBody).encoded(at: time).count == empty + 1000)
        #expect(empty <= JournalEntry.maxChangeOverhead)
        let item = RecordedChange(route: .itemPatch, view: FilterQuery(line), item: ItemID(line), body: [])
        #expect(JournalEntry.change(item).encoded(at: time).count <= JournalEntry.maxChangeOverhead)
        #expect(JournalEntry.maxJournaledBody + JournalEntry.maxChangeOverhead <= DataDirectory.maxRecordPayload)
        #expect(TreeService.maxBodyWithDataDirectory == JournalEntry.maxJournaledBody)
    }
}
