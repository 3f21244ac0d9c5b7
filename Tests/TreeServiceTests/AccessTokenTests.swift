import Testing
import TreeEngine
@testable import TreeService

/// Issue 38's signed tokens, before any route takes them: what is minted verifies, and any
/// change of a field, a foreign or dropped key, an expiry past, or a malformed text is refused.
@Suite struct AccessTokenTests {
    static let old = SigningKey(id: "k1", secret: Array(repeating: 7, count: 32))
    static let new = SigningKey(id: "k2", secret: Array((0 ..< 40).map { UInt8($0) }))
    let token = AccessToken(session: "l6ym2ygnhU9gQOThBuVhpQ", role: .editor, view: ViewID(0xc80d0d180294557c), issued: 1_799_990_000_000,
                            expires: 1_800_000_000_000)

    /// `token` as verifying it gives it: with the id of the key that signed it.
    func signed(_ token: AccessToken, _ key: String) -> AccessToken {
        var token = token
        token.key = key
        return token
    }

    @Test func aMintedTokenVerifiesUntilItExpires() throws {
        let signer = TokenSigner(keys: [Self.old])
        let text = signer.mint(token)
        #expect(text.hasPrefix("ts1.l6ym2ygnhU9gQOThBuVhpQ.editor.c80d0d180294557c.1799990000000.1800000000000.k1."))
        #expect(try signer.verify(text[...], now: 1_799_999_999_999).get() == signed(token, "k1"))
        #expect(signer.verify(text[...], now: 1_800_000_000_000) == .failure(.expired))
        var unbound = token
        unbound.view = nil
        unbound.role = .reader
        let plain = signer.mint(unbound)
        #expect(plain.contains(".reader.-."))
        #expect(try signer.verify(plain[...], now: 0).get() == signed(unbound, "k1"))
    }

    @Test func anyChangeBreaksTheSignature() {
        let signer = TokenSigner(keys: [Self.old])
        let text = signer.mint(token)
        let changes = [
            text.replacingOccurrences(of: ".editor.", with: ".owner."),
            text.replacingOccurrences(of: "l6ym2", with: "l6ym3"),
            text.replacingOccurrences(of: "c80d0d180294557c", with: "c80d0d180294557d"),
            text.replacingOccurrences(of: ".1800000000000.", with: ".1900000000000."),
            text.replacingOccurrences(of: ".1799990000000.", with: ".1799990000001."),
        ]
        for changed in changes { #expect(signer.verify(changed[...], now: 0) == .failure(.badSignature), "\(changed)") }
        // Another server's key with the same name.
        let other = TokenSigner(keys: [SigningKey(id: "k1", secret: Array(repeating: 8, count: 32))])
        #expect(other.verify(text[...], now: 0) == .failure(.badSignature))
    }

    @Test func keysRotate() throws {
        let before = TokenSigner(keys: [Self.old]).mint(token)
        let during = TokenSigner(keys: [Self.new, Self.old])
        #expect(try during.verify(before[...], now: 0).get() == signed(token, "k1"))
        #expect(during.mint(token).contains(".k2."))
        let after = TokenSigner(keys: [Self.new])
        #expect(after.verify(before[...], now: 0) == .failure(.unknownKey))
        #expect(try after.verify(during.mint(token)[...], now: 0).get() == signed(token, "k2"))
    }

    @Test func malformedTextsAreRefused() {
        let signer = TokenSigner(keys: [Self.old])
        let text = signer.mint(token)
        let parts = text.split(separator: ".").map(String.init)
        var malformed = ["", "ts1", text + ".x", String(text.dropLast()), text + "A", "ts2" + text.dropFirst(3)]
        for (i, bad) in [(2, "admin"), (3, "C80D0D180294557C"), (4, "01799990000000"), (5, "-1"), (6, "k 1"), (7, "!!")] {
            var p = parts
            p[i] = bad
            malformed.append(p.joined(separator: "."))
        }
        for bad in malformed { #expect(signer.verify(bad[...], now: 0) == .failure(.malformed), "\(bad)") }
    }

    @Test func base64URLRoundTripsAndIsCanonical() {
        for n in 0 ..< 70 {
            let bytes = (0 ..< n).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            let text = Base64URL.encode(bytes)
            #expect(!text.contains("=") && !text.contains("+") && !text.contains("/"))
            #expect(Base64URL.decode(text) == bytes)
        }
        #expect(Base64URL.encode(Array("foobar".utf8)) == "Zm9vYmFy")
        #expect(Base64URL.encode([0xfb, 0xff]) == "-_8")
        #expect(Base64URL.decode("Zm9vYg") == Array("foob".utf8))
        #expect(Base64URL.decode("Zm9vYh") == nil, "bits past the last byte")
        #expect(Base64URL.decode("Zm9vY") == nil, "a length of 1 mod 4")
        #expect(Base64URL.decode("Zm9v+g") == nil)
    }
}
