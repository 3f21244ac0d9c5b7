/// Serializes a response head: status line, the responder's headers (validated), and the
/// framing headers the server owns.
enum ResponseHead {
    enum Framing: Equatable {
        case length(Int)
        case chunked
        /// HTTP/1.0 streamed body: ends when the connection closes.
        case closeDelimited
        /// 1xx, 204, 304: no body and no length.
        case none
    }

    /// Whether a status allows a body (RFC 9110 §6.4.1).
    static func allowsBody(_ status: Int) -> Bool {
        !(status < 200 || status == 204 || status == 304)
    }

    /// Whether a `Connection` header value contains the `close` option.
    static func asksToClose(_ headers: HTTPHeaders) -> Bool {
        for value in headers.values(for: "connection") {
            for token in value.split(separator: ",") {
                if String(token).trimmingOWS().asciiCaseInsensitiveEquals("close") { return true }
            }
        }
        return false
    }

    /// The head bytes, or nil if a header name or value would break the framing
    /// (not a token, or CR/LF/NUL in a value) or the status is out of range.
    /// - Complexity: O(total header bytes)
    static func serialize(
        status: Int, headers: HTTPHeaders, framing: Framing, keepAlive: Bool,
        requestVersion: HTTPVersion, reserving extra: Int = 0
    ) -> [UInt8]? {
        guard (200...999).contains(status) else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(128 + headers.count * 40 + extra)
        out.append(contentsOf: "HTTP/1.1 ".utf8)
        appendDecimal(status, to: &out)
        out.append(ByteClass.sp)
        out.append(contentsOf: HTTPStatus.reasonPhrase(status).utf8)
        out.append(contentsOf: "\r\nDate: ".utf8)
        out.append(contentsOf: HTTPDate.current())
        out.append(contentsOf: "\r\n".utf8)
        for field in headers {
            let name = field.name.utf8
            switch name.count {
            case 4 where field.name.asciiCaseInsensitiveEquals("date"): continue
            case 10 where field.name.asciiCaseInsensitiveEquals("connection"): continue
            case 14 where field.name.asciiCaseInsensitiveEquals("content-length"): continue
            case 17 where field.name.asciiCaseInsensitiveEquals("transfer-encoding"): continue
            default: break
            }
            guard !name.isEmpty, name.allSatisfy(ByteClass.isTokenChar) else { return nil }
            guard field.value.utf8.allSatisfy({ $0 == ByteClass.htab || $0 >= 0x20 && $0 != 0x7F }) else { return nil }
            out.append(contentsOf: name)
            out.append(UInt8(ascii: ":"))
            out.append(ByteClass.sp)
            out.append(contentsOf: field.value.utf8)
            out.append(contentsOf: "\r\n".utf8)
        }
        switch framing {
        case .length(let n):
            out.append(contentsOf: "Content-Length: ".utf8)
            appendDecimal(n, to: &out)
            out.append(contentsOf: "\r\n".utf8)
        case .chunked:
            out.append(contentsOf: "Transfer-Encoding: chunked\r\n".utf8)
        case .closeDelimited, .none:
            break
        }
        if !keepAlive {
            out.append(contentsOf: "Connection: close\r\n".utf8)
        } else if requestVersion == .http1_0 {
            out.append(contentsOf: "Connection: keep-alive\r\n".utf8)
        }
        out.append(contentsOf: "\r\n".utf8)
        return out
    }

    static let continueBytes: [UInt8] = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    @inline(__always)
    static func appendDecimal(_ value: Int, to out: inout [UInt8]) {
        if value < 10 {
            out.append(UInt8(ascii: "0") &+ UInt8(value))
            return
        }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var v = value
        var n = 0
        withUnsafeMutableBytes(of: &digits) { d in
            while v > 0 {
                d[n] = UInt8(ascii: "0") &+ UInt8(v % 10)
                v /= 10
                n += 1
            }
            while n > 0 {
                n -= 1
                out.append(d[n])
            }
        }
    }

    /// `size-in-hex CRLF`
    static func appendChunkSize(_ value: Int, to out: inout [UInt8]) {
        let hex: StaticString = "0123456789abcdef"
        var shift = (Int.bitWidth - value.leadingZeroBitCount + 3) / 4 * 4
        if shift == 0 { shift = 4 }
        while shift > 0 {
            shift -= 4
            out.append(hex.utf8Start[(value >> shift) & 0xF])
        }
        out.append(ByteClass.cr)
        out.append(ByteClass.lf)
    }
}

extension String {
    func trimmingOWS() -> String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return String(s)
    }
}
