/// What a server's callers prove themselves with: admin tokens (`--token`, `--token-file`),
/// and the keys that sign and check the tokens it mints for sessions (`--signing-key-file`).
/// tree-server reads the files; `TreeService.replaceCredentials` takes them again (SIGHUP).
public struct Credentials: Sendable, Equatable {
    /// Tokens that allow everything on every session. None: the server is open to anyone.
    public var adminTokens: [String] = []
    /// The keys of session tokens: the first signs, every one checks. None: a key made at
    /// start, so tokens do not outlive the process.
    public var signingKeys: [SigningKey] = []

    public init(adminTokens: [String] = [], signingKeys: [SigningKey] = []) {
        self.adminTokens = adminTokens
        self.signingKeys = signingKeys
    }

    /// The tokens of a token file: one per line; blank lines and lines starting with `#` are
    /// skipped, and spaces around a token are not part of it.
    public static func adminTokens(file text: String) throws(CredentialsError) -> [String] {
        var tokens: [String] = []
        for (number, line) in lines(text) {
            do {
                tokens.append(try adminToken(String(line)))
            } catch {
                throw CredentialsError("line \(number): \(error.description)")
            }
        }
        guard !tokens.isEmpty else { throw CredentialsError("the file holds no token") }
        return tokens
    }

    /// `text` as an admin token (`--token`, a line of a token file): printable ASCII without
    /// spaces (what an `Authorization` header carries), not starting with `ts1.` (the session
    /// tokens' prefix).
    public static func adminToken(_ text: String) throws(CredentialsError) -> String {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7f }) else {
            throw CredentialsError("a token is printable ASCII without spaces (what an Authorization header can carry)")
        }
        guard !text.hasPrefix(AccessToken.prefix + ".") else {
            throw CredentialsError("an admin token may not start with \(AccessToken.prefix). (the session tokens' prefix)")
        }
        return text
    }

    /// The keys of a signing-key file: one per line, `ID SECRET` (the id 1 to 64 letters,
    /// digits, `-` or `_`; the secret at least 32 bytes of text, e.g. `openssl rand -base64
    /// 32`); the first line's key signs. Blank lines and lines starting with `#` are skipped.
    public static func signingKeys(file text: String) throws(CredentialsError) -> [SigningKey] {
        var keys: [SigningKey] = []
        for (number, line) in lines(text) {
            let fields = line.split(whereSeparator: \.isWhitespace)
            guard fields.count == 2 else { throw CredentialsError("line \(number): a key is written as ID SECRET") }
            let (id, secret) = (String(fields[0]), Array(fields[1].utf8))
            guard TokenSigner.isName(id) else {
                throw CredentialsError("line \(number): a key id is 1 to 64 letters, digits, - or _")
            }
            guard secret.count >= SigningKey.minimumSecretBytes else {
                throw CredentialsError("line \(number): the secret of key \(id) has \(secret.count) bytes; it needs \(SigningKey.minimumSecretBytes) or more")
            }
            guard !keys.contains(where: { $0.id == id }) else { throw CredentialsError("line \(number): key id \(id) is given twice") }
            keys.append(SigningKey(id: id, secret: secret))
        }
        guard !keys.isEmpty else { throw CredentialsError("the file holds no key") }
        return keys
    }

    /// The lines that say something, trimmed, with their numbers (from 1).
    private static func lines(_ text: String) -> [(Int, Substring)] {
        text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().compactMap { k, line in
            let trimmed = line.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed()
            let kept = Substring(trimmed)
            return kept.isEmpty || kept.hasPrefix("#") ? nil : (k + 1, kept)
        }
    }
}

/// Why a token file or a key file was refused.
public struct CredentialsError: Error, CustomStringConvertible, Equatable {
    public let description: String
    init(_ description: String) { self.description = description }
}
