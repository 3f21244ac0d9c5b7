import TreeEngine

/// A token that grants one role on one session, perhaps bound to one of its views, until it
/// expires (issue 38). Tokens are stateless: what they grant is written in them, signed with
/// HMAC-SHA256 under a server key (`TokenSigner`), so that every instance that knows the keys
/// accepts a token any of them minted, and a restart forgets nothing.
///
/// The text is the fields joined by dots, then the signature of everything before it:
/// `ts1.{sid}.{role}.{vid or -}.{issued}.{expires}.{key id}.{signature}` (times in
/// milliseconds since 1970, the signature 32 bytes in unpadded base64url). View ids, roles,
/// numbers and key ids hold no dot; a session id's dot (after an `--instance` name) is written
/// `~`, which ids never hold. The fields are readable by anyone who holds
/// the token (a page may show its role); only the signature needs the server's key.
struct AccessToken: Equatable, Sendable {
    /// What the holder may do (each role may do what the one before it may).
    enum Role: String, CaseIterable, Sendable, Comparable {
        /// Every read of the session and of its views, and its own views' state.
        case reader
        /// A reader, and edits of the tree.
        case editor
        /// An editor, and deleting the session, minting its tokens, changing its metadata.
        case owner

        static func < (a: Role, b: Role) -> Bool { allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)! }
    }

    var session: String
    var role: Role
    /// The one view its holder may read or change the state of (nil: any).
    var view: ViewID?
    /// When it was minted, in milliseconds since 1970 (UTC): a session refuses the tokens
    /// minted before its `tokensValidAfter`.
    var issued: Int64
    /// Milliseconds since 1970 (UTC) from which it is refused.
    var expires: Int64
    /// The id of the key that signed it, once verified (minting signs with the first key).
    var key: String? = nil

    static let prefix = "ts1"
}

/// A key that signs access tokens (`--signing-key-file`).
public struct SigningKey: Sendable, Equatable {
    /// A short name written in the tokens it signs: letters, digits, `-` and `_`.
    public let id: String
    public let secret: [UInt8]

    /// The fewest bytes a secret has.
    public static let minimumSecretBytes = 32

    /// - Precondition: `id` is a name (`TokenSigner.isName`), `secret` has at least 32 bytes.
    public init(id: String, secret: [UInt8]) {
        precondition(TokenSigner.isName(id) && secret.count >= SigningKey.minimumSecretBytes,
                     "a key id is a name, a secret 32 bytes or more")
        self.id = id
        self.secret = secret
    }
}

/// Why a token is refused.
enum TokenError: Error, Equatable {
    /// Not a token of this server's format.
    case malformed
    /// Signed with a key the server does not have (any more).
    case unknownKey
    /// Its fields are not those that were signed.
    case badSignature
    case expired
}

/// Mints and checks `AccessToken`s with a set of keys: the first signs, every one checks (so
/// that keys rotate: a new one first, the old one kept until its tokens expire).
struct TokenSigner: Sendable {
    let keys: [SigningKey]

    /// - Precondition: at least one key; ids distinct.
    init(keys: [SigningKey]) {
        precondition(!keys.isEmpty && Set(keys.map(\.id)).count == keys.count, "distinct keys")
        self.keys = keys
    }

    /// The text of `token`, signed with the first key.
    func mint(_ token: AccessToken) -> String {
        let session = String(decoding: token.session.utf8.map { $0 == UInt8(ascii: ".") ? UInt8(ascii: "~") : $0 }, as: UTF8.self)
        let key = keys[0]
        let fields = [AccessToken.prefix, session, token.role.rawValue, token.view?.text ?? "-", String(token.issued),
                      String(token.expires), key.id]
            .joined(separator: ".")
        return fields + "." + Base64URL.encode(HMAC.sha256(key: key.secret, fields.utf8))
    }

    /// The token `text` is, checked: its format, its key, its signature (compared in constant
    /// time), and that it has not expired at `now` (milliseconds since 1970).
    func verify(_ text: Substring, now: Int64) -> Result<AccessToken, TokenError> {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        func time(_ field: Substring) -> Int64? {
            guard let value = Int64(field), value >= 0, String(value) == field else { return nil }
            return value
        }
        guard parts.count == 8, parts[0] == AccessToken.prefix, TokenSigner.isSessionField(parts[1]),
              let role = AccessToken.Role(rawValue: String(parts[2])),
              let issued = time(parts[4]), let expires = time(parts[5]), TokenSigner.isName(parts[6]),
              let signature = Base64URL.decode(parts[7]), signature.count == SHA256.digestSize else { return .failure(.malformed) }
        var view: ViewID?
        if parts[3] != "-" {
            guard let id = ViewID(text: String(parts[3])) else { return .failure(.malformed) }
            view = id
        }
        guard let key = keys.first(where: { $0.id == parts[6] }) else { return .failure(.unknownKey) }
        let signed = text[..<parts[7].startIndex].dropLast()
        guard HMAC.equal(HMAC.sha256(key: key.secret, signed.utf8), signature) else { return .failure(.badSignature) }
        guard now < expires else { return .failure(.expired) }
        let session = String(decoding: parts[1].utf8.map { $0 == UInt8(ascii: "~") ? UInt8(ascii: ".") : $0 }, as: UTF8.self)
        return .success(AccessToken(session: session, role: role, view: view, issued: issued, expires: expires, key: key.id))
    }

    /// A session id as a token writes it: 1 to 128 letters, digits, `-`, `_` or `~` (a stored
    /// session's id has up to 128 of those or `.`, which is written `~`).
    static func isSessionField(_ text: some StringProtocol) -> Bool { isName(text, length: 1 ... 128, also: "~") }

    /// Letters, digits, `-` and `_`, 1 to 64 of them: what key ids are made of.
    static func isName(_ text: some StringProtocol) -> Bool { isName(text, length: 1 ... 64) }

    /// Whether `text` is ASCII letters, digits, `-`, `_` and the bytes of `also`, with a
    /// `length` in bytes: the names of tokens, keys and labels.
    static func isName(_ text: some StringProtocol, length: ClosedRange<Int>, also: String = "") -> Bool {
        length.contains(text.utf8.count) && text.utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c == 0x2d || c == 0x5f || also.utf8.contains(c)
        }
    }
}

/// Base64 with the URL's alphabet (`-`, `_`) and no padding (RFC 4648 §5).
enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var i = 0
        while i < bytes.count {
            let n = min(3, bytes.count - i)
            var group = UInt32(bytes[i]) << 16
            if n > 1 { group |= UInt32(bytes[i + 1]) << 8 }
            if n > 2 { group |= UInt32(bytes[i + 2]) }
            for k in 0 ... n { out.append(alphabet[Int(group >> UInt32(18 - 6 * k) & 63)]) }
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes of `text`, nil when it is not unpadded base64url (a length of 1 mod 4, a
    /// character outside the alphabet, or bits set past the last byte).
    static func decode(_ text: some StringProtocol) -> [UInt8]? {
        let chars = Array(text.utf8)
        guard chars.count % 4 != 1 else { return nil }
        var out: [UInt8] = []
        var group: UInt32 = 0, bits = 0
        for c in chars {
            guard let value = alphabet.firstIndex(of: c) else { return nil }
            group = group << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: group >> UInt32(bits)))
                group &= (1 << UInt32(bits)) - 1
            }
        }
        return group == 0 ? out : nil
    }
}
