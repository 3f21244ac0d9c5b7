import Testing
@testable import TreeService

/// The API's times: written to the millisecond, read as RFC 3339 §5.6 allows.
@Suite struct RFC3339Tests {
    @Test func timesRoundTrip() {
        for ms: Int64 in [0, 1, 999, 86_399_999, 86_400_000, 951_782_400_000, 1_800_000_000_123, 253_402_300_799_999] {
            #expect(RFC3339.parse(RFC3339.format(milliseconds: ms)) == ms, "\(ms)")
        }
        #expect(RFC3339.format(milliseconds: 0) == "1970-01-01T00:00:00.000Z")
        #expect(RFC3339.format(milliseconds: 951_782_400_000) == "2000-02-29T00:00:00.000Z")
        #expect(RFC3339.format(milliseconds: 1_800_000_000_123) == "2027-01-15T08:00:00.123Z")
    }

    @Test func whatRFC3339AllowsIsRead() {
        let base: Int64 = 1_800_000_000_000
        #expect(RFC3339.parse("2027-01-15T08:00:00Z") == base)
        #expect(RFC3339.parse("2027-01-15t08:00:00z") == base)
        #expect(RFC3339.parse("2027-01-15T08:00:00.5Z") == base + 500)
        #expect(RFC3339.parse("2027-01-15T08:00:00.123456Z") == base + 123, "cut to the millisecond")
        #expect(RFC3339.parse("2027-01-15T09:30:00+01:30") == base)
        #expect(RFC3339.parse("2027-01-15T07:00:00-01:00") == base)
        #expect(RFC3339.parse("2024-02-29T00:00:00Z") != nil)
    }

    @Test(arguments: ["", "2027-01-15", "2027-01-15 08:00:00Z", "2027-01-15T08:00:00", "2027-1-15T08:00:00Z", "2027-02-29T00:00:00Z",
                      "2020-02-30T00:00:00Z", "2100-02-29T00:00:00Z", "2027-13-01T00:00:00Z", "2027-04-31T00:00:00Z", "2027-01-15T24:00:00Z",
                      "2027-01-15T08:60:00Z", "2027-01-15T08:00:60Z", "2027-01-15T08:00:00.Z", "2027-01-15T08:00:00+0100", "1969-12-31T23:59:59Z",
                      "1970-01-01T00:30:00+01:00", "2027-01-15T08:00:00Zx", "２０２７-01-15T08:00:00Z"])
    func whatItDoesNotAllowIsRefused(_ text: String) {
        #expect(RFC3339.parse(text) == nil)
    }
}
