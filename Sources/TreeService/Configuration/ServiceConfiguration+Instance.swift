import TreeStorage

/// Instance names (`--instance`): several servers behind one proxy, each owning the
/// sessions whose ids start with its name and a dot (docs/SCALING.md).
extension ServiceConfiguration {
    /// Whether `name` can name an instance: 1 to 32 of `a-z`, `0-9` and `-`. (Never a dot,
    /// which ends the name in a session id; the random part never has one either.)
    /// - Complexity: O(n) in the name's length
    public static func isValidInstanceName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        return (1 ... 32).contains(bytes.count) && bytes.allSatisfy { b in
            (b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z")) || (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")) || b == UInt8(ascii: "-")
        }
    }

    /// The instance a session id names: the part before its first dot; nil for an id
    /// without one (ids of a server without `--instance`).
    static func instanceNamed(by sessionID: String) -> Substring? {
        guard let dot = sessionID.firstIndex(of: ".") else { return nil }
        return sessionID[..<dot]
    }

    /// The instance other than this one that `sessionID` names, if any. A server without a
    /// name names no instance, so no id names another one: it looks every id up.
    func otherInstance(named sessionID: String) -> Substring? {
        guard let instance, let named = Self.instanceNamed(by: sessionID), named != instance else { return nil }
        return named
    }

    /// The other instances whose sessions `directory` holds, sorted: a data directory
    /// belongs to one instance (the proxy routes its sessions' ids to it by name), so
    /// `tree-server` refuses to start on another instance's directory.
    /// - Complexity: one read of the directory of sessions
    public func otherInstances(in directory: DataDirectory) throws -> [String] {
        Set(try directory.storedSessions().compactMap { otherInstance(named: $0).map(String.init) }).sorted()
    }
}
