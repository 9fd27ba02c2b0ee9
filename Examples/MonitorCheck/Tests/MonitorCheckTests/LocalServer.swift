import Foundation

/// An HTTP/1.1 server on 127.0.0.1 (a free port), one thread per connection, keep-alive:
/// `GET /bytes/N` answers N bytes; `POST` reads the body and answers `201` with a short text.
final class LocalServer: @unchecked Sendable {
    let port: UInt16
    private let listener: Int32

    init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Int32 in
                guard bind(listener, pointer, length) == 0, listen(listener, 8) == 0 else { return -1 }
                return getsockname(listener, pointer, &length)
            }
        }
        guard bound == 0 else { throw POSIXError(.EADDRNOTAVAIL) }
        port = UInt16(bigEndian: address.sin_port)
        Thread.detachNewThread { [self] in acceptConnections() }
    }

    /// Stops accepting (connections already open end when their client closes).
    func stop() { shutdown(listener, Int32(SHUT_RDWR)) }

    private func acceptConnections() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            Thread.detachNewThread { Self.serve(connection) }
        }
    }

    private static func serve(_ connection: Int32) {
        defer { close(connection) }
        var received: [UInt8] = []
        let separator = Array("\r\n\r\n".utf8)
        while true {
            var headEnd: Int?
            while headEnd == nil {
                headEnd = received.indices.dropLast(3).first { Array(received[$0 ..< $0 + 4]) == separator }
                if headEnd == nil, !receive(connection, into: &received) { return }
            }
            let head = String(decoding: received[..<headEnd!], as: UTF8.self)
            let lines = head.split(separator: "\r\n")
            let requestLine = lines.first?.split(separator: " ") ?? []
            let length = lines.dropFirst().compactMap { line -> Int? in
                let parts = line.split(separator: ":", maxSplits: 1)
                return parts.count == 2 && parts[0].lowercased() == "content-length" ? Int(parts[1].trimmingPrefix(" ")) : nil
            }.first ?? 0
            while received.count < headEnd! + 4 + length {
                if !receive(connection, into: &received) { return }
            }
            received.removeFirst(headEnd! + 4 + length)
            let method = requestLine.first.map(String.init) ?? ""
            let target = requestLine.dropFirst().first.map(String.init) ?? "/"
            let (status, body): (String, [UInt8])
            if method == "GET", target.hasPrefix("/bytes/"), let count = Int(target.dropFirst("/bytes/".count)) {
                (status, body) = ("200 OK", [UInt8](repeating: UInt8(ascii: "x"), count: count))
            } else if method == "POST" {
                (status, body) = ("201 Created", Array("stored \(length) bytes\n".utf8))
            } else {
                (status, body) = ("404 Not Found", Array("not found\n".utf8))
            }
            let response = "HTTP/1.1 \(status)\r\nContent-Type: application/octet-stream\r\nContent-Length: \(body.count)\r\n\r\n"
            let bytes = Array(response.utf8) + body
            var sent = 0
            while sent < bytes.count {
                let count = bytes[sent...].withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                guard count > 0 else { return }
                sent += count
            }
        }
    }

    private static func receive(_ connection: Int32, into received: inout [UInt8]) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 65536)
        let count = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return false }
        received += buffer[..<count]
        return true
    }
}
