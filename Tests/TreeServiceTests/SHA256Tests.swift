import Testing
@testable import TreeService

/// SHA-256 against the examples of FIPS 180-4 (and the NIST byte-oriented vectors), and
/// HMAC-SHA256 against RFC 4231's test cases: the signatures of access tokens rest on them.
@Suite struct SHA256Tests {
    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined() }
    static func bytes(hex: String) -> [UInt8] {
        var out: [UInt8] = [], chars = Array(hex)
        while chars.count >= 2 { out.append(UInt8(String(chars[0 ..< 2]), radix: 16)!); chars.removeFirst(2) }
        return out
    }

    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        ("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
         "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"),
    ])
    func theStandardsExamples(message: String, digest: String) {
        #expect(Self.hex(SHA256.hash(Array(message.utf8))) == digest)
    }

    @Test func aMillionAsFedInUnevenPieces() {
        var h = SHA256()
        var left = 1_000_000, piece = 1
        while left > 0 {
            let n = min(piece, left)
            h.update(repeatElement(UInt8(ascii: "a"), count: n))
            left -= n
            piece = piece * 7 % 997 + 1
        }
        #expect(Self.hex(h.finish()) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// Messages of 55, 56, 63, 64 and 65 bytes put the padding's length on either side of a
    /// block's end.
    @Test func paddingAtEveryBlockEnd() {
        let digests = [
            55: "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318",
            56: "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a",
            63: "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34",
            64: "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb",
            65: "635361c48bb9eab14198e76ea8ab7f1a41685d6ad62aa9146d301d4f17eb0ae0",
        ]
        for (n, digest) in digests {
            #expect(Self.hex(SHA256.hash(repeatElement(UInt8(ascii: "a"), count: n))) == digest, "\(n) bytes")
        }
    }

    /// RFC 4231, test cases 1 to 7 (case 5's MAC truncated to 128 bits).
    @Test(arguments: [
        (String(repeating: "0b", count: 20), Array("Hi There".utf8),
         "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        ("4a656665", Array("what do ya want for nothing?".utf8),
         "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        (String(repeating: "aa", count: 20), [UInt8](repeating: 0xdd, count: 50),
         "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
        ("0102030405060708090a0b0c0d0e0f10111213141516171819", [UInt8](repeating: 0xcd, count: 50),
         "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
        (String(repeating: "0c", count: 20), Array("Test With Truncation".utf8), "a3b6167473100ee06e0c796c2955552b"),
        (String(repeating: "aa", count: 131), Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
         "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
        (String(repeating: "aa", count: 131),
         Array("This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm.".utf8),
         "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
    ])
    func rfc4231(key: String, message: [UInt8], mac: String) {
        let got = Self.hex(HMAC.sha256(key: Self.bytes(hex: key), message))
        #expect(got.hasPrefix(mac) && (mac.count == 32 || got == mac))
    }

    @Test func macsCompareByEveryByte() {
        let mac = HMAC.sha256(key: [1, 2, 3], Array("m".utf8))
        #expect(HMAC.equal(mac, mac))
        var other = mac
        other[31] ^= 1
        #expect(!HMAC.equal(mac, other))
        #expect(!HMAC.equal(mac, mac.dropLast()))
    }
}
