import Foundation
import HTTP1

// A server of one fixed JSON document, for scripts/bench-http.sh (HTTP1 against nginx);
// /stream?mb=N streams N MiB chunked, for the streaming path.
// Usage: http-bench-server [--host 127.0.0.1] [--port 8080]

let arguments = CommandLine.arguments
func option(_ name: String) -> String? {
    guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count else { return nil }
    return arguments[i + 1]
}

/// 200 bytes of JSON, the same bytes nginx serves in the benchmark.
let payload: [UInt8] = Array(
    #"{"id":"bench","title":"A fixed JSON document for the HTTP benchmark","children":[1,2,3,4,5,6,7,8],"expanded":true,"depth":3,"tags":["alpha","beta","gamma"],"note":"same bytes from nginx"}"#
        .utf8)

struct FixedResponder: HTTPResponder {
    func respond(to request: HTTPRequest) -> HTTPResponse {
        guard request.method == "GET" || request.method == "HEAD" else {
            return HTTPResponse(status: 405, headers: ["Allow": "GET, HEAD"])
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

do {
    let server = HTTPServer(configuration: configuration, responder: FixedResponder())
    try server.start()
    print("http-bench-server listening on \(configuration.host):\(server.boundPort) (\(payload.count)-byte JSON)")
    try server.runUntilTerminated()
} catch {
    print("http-bench-server: \(error)")
    exit(1)
}
