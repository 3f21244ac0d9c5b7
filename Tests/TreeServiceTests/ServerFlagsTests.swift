#if canImport(Glibc)
import Foundation
import HTTPTestSupport
import Testing
@testable import TreeService

/// What an operator sees of tree-server's flags, on the real executable: `--version`, and a
/// wrong flag answered in one line that points to `--help` (not the whole usage), exit 2;
/// `--shutdown-timeout` and what an upload in flight gets when SIGTERM cannot wait for it.
@Suite(.timeLimit(.minutes(1))) struct ServerFlagsTests {
    static let server = Tool.builtBesideTests("tree-server")

    @Test(.enabled(if: server != nil, "tree-server is not built beside the tests (swift build --build-tests)"))
    func versionIsTheAPIsVersion() throws {
        let result = try runProcess(Self.server!, ["--version"])
        #expect(result.status == 0)
        #expect(result.text == "tree-server \(TreeService.version)\n")
        let spec = String(decoding: PackageResources.openapi_yaml, as: UTF8.self)
        #expect(spec.contains("\n  version: \(TreeService.version)\n"), "openapi.yaml's info.version is the server's")
    }

    @Test(.enabled(if: server != nil, "tree-server is not built beside the tests (swift build --build-tests)"),
          arguments: [
            (["--bogus"], "tree-server: unknown option --bogus; see tree-server --help\n"),
            (["--port"], "tree-server: --port needs a value; see tree-server --help\n"),
            (["--access-log", "yes"], "tree-server: --access-log must be true or false, not \"yes\"; see tree-server --help\n"),
            (["--shutdown-timeout", "-1"], "tree-server: --shutdown-timeout needs an integer ≥ 0, not \"-1\"; see tree-server --help\n"),
            (["--access-log=0"], "tree-server: --access-log must be true or false, not \"0\"; see tree-server --help\n"),
            // A change is one journal record: with a data directory the body must fit it.
            (["--data-dir", "unused-data", "--max-body", "1073741824"],
             "tree-server: --max-body can be at most \(TreeService.maxBodyWithDataDirectory) with a data directory (a change and its body are one journal record), not 1073741824; see tree-server --help\n"),
          ])
    func aWrongFlagIsOneLine(_ arguments: [String], _ expected: String) throws {
        // The wrong flag last, after flags that would start a server of no consequence.
        let result = try runProcess(Self.server!, ["--data-dir", "none", "--port", "0"] + arguments)
        #expect(result.status == 2)
        #expect(result.errorText.split(separator: "\n").last.map { String($0) + "\n" } == expected, "\(result.errorText)")
        #expect(!result.errorText.contains("usage:"))
    }

    /// An upload still arriving when SIGTERM's `--shutdown-timeout` runs out is answered 503,
    /// "not processed", and the server exits 0 without waiting for the rest of it.
    @Test(.enabled(if: server != nil, "tree-server is not built beside the tests (swift build --build-tests)"))
    func anUploadCutByShutdownIsAnswered() throws {
        try withProcess(Self.server!, ["--data-dir", "none", "--port", "0", "--shutdown-timeout", "1"], reading: .errors) { process, errors in
            let log = read(errors, until: "listening on")
            let port = try #require(listeningPort(in: log))
            let client = try HTTPTestClient(port: port)
            client.send("POST /sessions HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n[{\"title\":")
            usleep(200_000)
            let signalled = ContinuousClock.now
            kill(process.processIdentifier, SIGTERM)
            let response = try #require(client.readResponse())
            #expect(response.status == 503)
            #expect(response.headers["connection"] == "close")
            #expect(response.text.contains("it was not processed"), "\(response.text)")
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            #expect(ContinuousClock.now - signalled < .seconds(5))
        }
    }

    /// The token and key files are read at start and again on SIGHUP: admin tokens rotate
    /// without a restart; a file that cannot be read keeps what was there.
    @Test(.enabled(if: server != nil, "tree-server is not built beside the tests (swift build --build-tests)"))
    func sighupReadsTheCredentialFilesAgain() throws {
        let directory = try TemporaryDirectory()
        let tokens = directory.path + "/tokens", keys = directory.path + "/keys"
        try "# admins\nfirst-token\n".write(toFile: tokens, atomically: true, encoding: .utf8)
        try "k1 \(String(repeating: "k", count: 40))\n".write(toFile: keys, atomically: true, encoding: .utf8)
        try withProcess(Self.server!, ["--data-dir", "none", "--port", "0", "--token-file", tokens, "--signing-key-file", keys],
                        reading: .errors) { process, errors in
            let log = read(errors, until: "listening on")
            #expect(log.contains("1 admin token(s); session tokens signed with the keys of \(keys)"), "\(log)")
            let port = try #require(listeningPort(in: log))
            let client = try HTTPTestClient(port: port)
            func status(_ token: String) throws -> Int { try client.request("GET", "/sessions", headers: [("Authorization", "Bearer \(token)")]).status }
            #expect(try status("first-token") == 200)
            #expect(try status("second-token") == 401)
            try "second-token\n".write(toFile: tokens, atomically: true, encoding: .utf8)
            kill(process.processIdentifier, SIGHUP)
            #expect(read(errors, until: "SIGHUP").contains("credentials read again"))
            #expect(try status("first-token") == 401)
            #expect(try status("second-token") == 200)
            try "".write(toFile: tokens, atomically: true, encoding: .utf8)
            kill(process.processIdentifier, SIGHUP)
            #expect(read(errors, until: "SIGHUP").contains("credentials kept as they were"))
            #expect(try status("second-token") == 200)
        }
        try withProcess(Self.server!, ["--data-dir", "none", "--port", "0"], reading: .errors) { _, errors in
            #expect(read(errors, until: "listening on").contains("tree-server: open: no admin token"))
        }
    }
}
#endif
