import Testing
import TreeEngine
@testable import TreeFormats

@Suite("JSONWriterTests")
struct JSONWriterTests {
    func written(_ body: (inout JSONWriter) -> Void) -> String {
        var writer = JSONWriter(reservingCapacity: 16)
        body(&writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    @Test func escapesOnlyWhatJSONRequires() {
        #expect(written { $0.string("plain é 😀 / ~ \u{7F}") } == "\"plain é 😀 / ~ \u{7F}\"")
        #expect(written { $0.string("q\"b\\n\nr\rt\tb\u{8}f\u{C}z\u{0}u\u{1F}") }
            == #""q\"b\\n\nr\rt\tb\bf\fz\u0000u\u001f""#)
        #expect(written { $0.string("") } == #""""#)
        #expect(written { $0.string(UnsafeRawBufferPointer(start: nil, count: 0)) } == #""""#)
    }

    @Test func everyASCIIByteRoundTripsThroughTheParser() throws {
        let all = String(decoding: (0..<128).map { UInt8($0) }, as: UTF8.self) + "é€😀\u{10FFFF}"
        var writer = JSONWriter()
        writer.string(all)
        #expect(try JSONValue.parse(writer.bytes) == .string(all))
        // Through the upload parser too, as a title.
        var document = JSONWriter()
        document.raw("[{\"title\":")
        document.string(all)
        document.raw("}]")
        let result = record(document.bytes)
        #expect(result.error == nil)
        #expect(result.sink.events == [.begin, .title(all), .end])
    }

    @Test func specialBytesAtEveryOffsetOfLongStrings() throws {
        for length in 0..<24 {
            for special in ["\"", "\\", "\n", "\u{1}", "é", "\u{1F}", " "] {
                for tail in ["", "abcdefghijklmnop"] {
                    let text = String(repeating: "x", count: length) + special + tail
                    var writer = JSONWriter()
                    writer.string(text)
                    #expect(try JSONValue.parse(writer.bytes) == .string(text), "\(text.debugDescription)")
                }
            }
        }
    }

    @Test func integers() {
        #expect(written { $0.int(0) } == "0")
        #expect(written { $0.int(-7) } == "-7")
        #expect(written { $0.int(1234567890) } == "1234567890")
        #expect(written { $0.int(.max) } == "9223372036854775807")
        #expect(written { $0.int(.min) } == "-9223372036854775808")
        #expect(written { $0.int64(.min) } == "-9223372036854775808")
        for value in [1, 9, 10, 99, 100, 101, 65535, -1, -10, -100] {
            #expect(written { $0.int(value) } == String(value))
        }
    }

    @Test func literalsRawAndValues() {
        let text = written { writer in
            writer.raw("{\"a\":")
            writer.bool(true)
            writer.byte(UInt8(ascii: ","))
            writer.raw("\"b\":")
            writer.null()
            writer.raw(",\"c\":")
            writer.value(.array([.number("1.5"), .string("s"), .object([(key: "k", value: .bool(false))])]))
            writer.raw(",\"d\":")
            [UInt8]("{\"raw\": [1, 2]}".utf8).withUnsafeBytes { writer.raw($0) }
            writer.raw(",\"e\":")
            writer.raw([UInt8]("[]".utf8))
            writer.raw("}")
        }
        #expect(text == #"{"a":true,"b":null,"c":[1.5,"s",{"k":false}],"d":{"raw": [1, 2]},"e":[]}"#)
    }
}
