#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Foundation

/// The command-line tools some tests drive, found on `PATH` (nil when not installed). A test
/// that needs one says so with a visible skip:
/// `@Test(.enabled(if: Tool.curl != nil, "curl is not installed"))`.
public enum Tool {
    public static let curl: String? = find("curl")
    public static let python3: String? = find("python3")

    /// The product `name` of this package, which `swift build --build-tests` builds beside
    /// the test bundle (nil when it is not there).
    public static func builtBesideTests(_ name: String) -> String? {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let path = directory.appendingPathComponent(name).path
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }

    /// The first executable `name` in a directory of `PATH`.
    public static func find(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for directory in path.split(separator: ":") where !directory.isEmpty {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}

public struct ProcessResult: Sendable {
    /// The exit status (or the signal that ended it).
    public var status: Int32
    /// What the process wrote to standard output.
    public var output: [UInt8]
    /// What it wrote to standard error, for failure messages.
    public var errorText: String
    public var text: String { String(decoding: output, as: UTF8.self) }
}

/// Runs `executable` with `arguments`, writes `stdin` to it, and returns its exit status and
/// outputs. A process still running after `timeout` is terminated, so a stuck tool fails the
/// test instead of hanging the run.
///
/// The writer, the standard-error reader and the watchdog are threads of their own, not
/// Dispatch work: the tests block the few threads of the global pool (its width is the core
/// count), and work queued there could wait behind them for as long as they block.
public func runProcess(_ executable: String, _ arguments: [String], stdin: [UInt8]? = nil,
                       timeout: Duration = .seconds(60)) throws -> ProcessResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let output = Pipe(), errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    let input = stdin.map { _ in Pipe() }
    process.standardInput = input ?? FileHandle.nullDevice
    try process.run()

    let exited = DispatchSemaphore(value: 0)
    let watchdog = Thread {
        if exited.wait(timeout: .now() + .nanoseconds(Int(timeout / .nanoseconds(1)))) == .timedOut {
            // SIGKILL, not `terminate()`: a child spawned from a pool thread inherits that
            // thread's signal mask, in which SIGTERM is blocked.
            kill(process.processIdentifier, SIGKILL)
        }
    }
    watchdog.start()
    if let input, let stdin {
        let writer = input.fileHandleForWriting
        Thread {
            try? writer.write(contentsOf: stdin)
            try? writer.close()
        }.start()
    }
    let collected = Collected()
    let errorsRead = DispatchSemaphore(value: 0)
    let errorReader = errors.fileHandleForReading
    Thread {
        collected.text = String(decoding: errorReader.readDataToEndOfFile(), as: UTF8.self)
        errorsRead.signal()
    }.start()

    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    exited.signal()
    errorsRead.wait()
    return ProcessResult(status: process.terminationStatus, output: [UInt8](data), errorText: collected.text)
}

/// Which output of a started process a test reads.
public enum ProcessStream: Sendable { case output, errors }

/// Starts `executable` with `arguments` (and `environment`, nil: this process's), gives
/// `body` the process and the reading end of `stream` (the other output is discarded), and
/// kills it (SIGKILL) when `body` returns.
public func withProcess<R>(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                           reading stream: ProcessStream, _ body: (Process, FileHandle) throws -> R) throws -> R {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let environment { process.environment = environment }
    let pipe = Pipe()
    process.standardOutput = stream == .output ? pipe : FileHandle.nullDevice
    process.standardError = stream == .errors ? pipe : FileHandle.nullDevice
    try process.run()
    defer {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
    return try body(process, pipe.fileHandleForReading)
}

/// What `handle` gives until it holds `marker` or ends (a started process's first lines).
public func read(_ handle: FileHandle, until marker: String) -> String {
    var text = ""
    while !text.contains(marker) {
        let data = handle.availableData
        if data.isEmpty { break }
        text += String(decoding: data, as: UTF8.self)
    }
    return text
}

/// The port of tree-server's "listening on …:PORT" line in `log` (what `read(_:until:)` gave
/// of a server started with `--port 0`); nil when there is no such line.
public func listeningPort(in log: String) -> Int? {
    guard let line = log.split(separator: "\n").first(where: { $0.contains("listening on") }) else { return nil }
    return line.split(separator: ":").last.flatMap { Int($0.prefix { $0.isNumber }) }
}

/// Standard error as read on another thread; read back after that thread has signalled.
private final class Collected: @unchecked Sendable {
    var text = ""
}

/// One curl exchange.
public struct CurlResult: Sendable {
    /// The HTTP status of the last response (0 if there was none).
    public var status: Int
    /// The response header sections exactly as received (status lines included, CRLF).
    public var headers: String
    public var body: [UInt8]
    /// curl's own exit status (0: success) and error message.
    public var exitStatus: Int32
    public var errorText: String
    public var text: String { String(decoding: body, as: UTF8.self) }
}

/// Runs curl (`Tool.curl`) with `arguments` (silent, errors shown, at most 30 s); with `body`,
/// uploads it from standard input (`--data-binary @-`). The one way the tests call curl.
public func curl(_ arguments: [String], body: [UInt8]? = nil) throws -> CurlResult {
    guard let executable = Tool.curl else { throw CurlMissing() }
    let headerFile = FileManager.default.temporaryDirectory.appendingPathComponent("curl-headers-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: headerFile) }
    var all = ["-s", "-S", "--max-time", "30", "-D", headerFile.path, "-o", "-", "-w", "\n%{http_code}"] + arguments
    if body != nil { all += ["--data-binary", "@-"] }
    let result = try runProcess(executable, all, stdin: body)
    // `-w` put the status on a last line of its own.
    var bytes = result.output
    let newline = bytes.lastIndex(of: UInt8(ascii: "\n")) ?? 0
    let status = Int(String(decoding: bytes[(bytes.isEmpty ? 0 : newline + 1)...], as: UTF8.self)) ?? 0
    if !bytes.isEmpty { bytes.removeSubrange(newline...) }
    let headers = (try? String(contentsOf: headerFile, encoding: .utf8)) ?? ""
    return CurlResult(status: status, headers: headers, body: bytes, exitStatus: result.status, errorText: result.errorText)
}

public struct CurlMissing: Error, CustomStringConvertible {
    public var description: String { "curl is not installed (not found on PATH)" }
}
