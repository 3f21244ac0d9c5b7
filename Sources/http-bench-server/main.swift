import Foundation
import HTTP1
import Synchronization

// A server of one fixed JSON document, for scripts/bench-http.sh (HTTP1 against nginx);
// /stream?mb=N streams N MiB chunked, for the streaming path; /events opens a push body
// (server-sent events) and /broadcast?bytes=N sends one N-byte event to every open one from
// one thread, answering how long the send loop took, for scripts/bench-push.sh.
// Usage: http-bench-server [--host 127.0.0.1] [--port 8080] [--loops N] [--max-connections N]

let arguments = CommandLine.arguments
func option(_ name: String) -> String? {
    guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count else { return nil }
    return arguments[i + 1]
}

/// 200 bytes of JSON, the same bytes nginx serves in the benchmark.
let payload: [UInt8] = Array(
    #"{"id":"bench","title":"A fixed JSON document for the HTTP benchmark","children":[1,2,3,4,5,6,7,8],"expanded":true,"depth":3,"tags":["alpha","beta","gamma"],"note":"same bytes from nginx"}"#
        .utf8)

/// The open push bodies of /events.
let streams = Mutex<[ObjectIdentifier: HTTPPushStream]>([:])

/// One event of `size` bytes (at least the framing) to every open stream, from this thread.
func broadcast(size: Int) -> [UInt8] {
    var event = Array("data: ".utf8)
    event += [UInt8](repeating: UInt8(ascii: "x"), count: max(0, size - 8))
    event += Array("\n\n".utf8)
    let all = streams.withLock { Array($0.values) }
    let started = ContinuousClock.now
    var sent = 0
    for stream in all where stream.send(event) { sent += 1 }
    let elapsed = ContinuousClock.now - started
    let micros = elapsed.components.seconds * 1_000_000 + elapsed.components.attoseconds / 1_000_000_000_000
    return Array(#"{"streams":\#(all.count),"sent":\#(sent),"bytes":\#(event.count),"sendMicros":\#(micros)}"#.utf8)
}

struct FixedResponder: HTTPResponder {
    func respond(to request: HTTPRequest) -> HTTPResponse {
        guard request.method == "GET" || request.method == "HEAD" else {
            return HTTPResponse(status: 405, headers: ["Allow": "GET, HEAD"])
        }
        switch request.pathSegments.first {
        case "events":
            return HTTPResponse(headers: ["Content-Type": "text/event-stream", "Cache-Control": "no-store"], body: .push { stream in
                let id = ObjectIdentifier(stream)
                streams.withLock { $0[id] = stream }
                stream.onEnd { streams.withLock { $0[id] = nil } }
            })
        case "broadcast":
            let size = Int(request.queryValue("bytes") ?? "200") ?? 200
            return HTTPResponse(status: 200, contentType: "application/json", body: broadcast(size: size))
        default:
            break
        }
        if request.pathSegments.first == "stream" {
            // /stream?mb=N: N MiB streamed in 4 KiB writes, to measure the chunked path.
            let mebibytes = Int(request.queryValue("mb") ?? "100") ?? 100
            return HTTPResponse(headers: ["Content-Type": "application/octet-stream"], body: .stream { writer in
                let piece = [UInt8](repeating: UInt8(ascii: "x"), count: 4096)
                for _ in 0..<(mebibytes * 256) { try writer.write(piece) }
            })
        }
        return HTTPResponse(status: 200, contentType: "application/json", body: payload)
    }
}

var configuration = HTTPServerConfiguration()
configuration.host = option("--host") ?? "127.0.0.1"
configuration.port = Int(option("--port") ?? "8080") ?? 8080
if let loops = option("--loops"), let n = Int(loops) { configuration.eventLoopCount = n }
if let limit = option("--max-connections"), let n = Int(limit) { configuration.maxConnections = n }

do {
    let server = HTTPServer(configuration: configuration, responder: FixedResponder())
    try server.start()
    print("http-bench-server listening on \(configuration.host):\(server.boundPort) (\(payload.count)-byte JSON)")
    try server.runUntilTerminated()
} catch {
    print("http-bench-server: \(error)")
    exit(1)
}
