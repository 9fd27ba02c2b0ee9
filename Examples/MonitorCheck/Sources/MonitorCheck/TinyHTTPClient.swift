#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A small HTTP/1.1 client over one keep-alive TCP connection to an IPv4 address, reporting each
/// request to its monitor.
public final class TinyHTTPClient {
    public struct Response {
        public var status: Int
        public var body: [UInt8]
    }

    public enum Failure: Error { case connect(Int32), closed, malformed }

    private let host: String
    private let port: UInt16
    private let monitor: ByteCountingMonitor
    private let socket: Int32
    private var received: [UInt8] = []

    public init(host: String, port: UInt16, monitor: ByteCountingMonitor) throws {
        self.host = host
        self.port = port
        self.monitor = monitor
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        inet_pton(AF_INET, host, &address.sin_addr)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw Failure.connect(errno) }
    }

    deinit { close(socket) }

    /// Sends one request and reads its response (`Content-Length` bodies only).
    public func send(_ method: String, _ target: String, body: [UInt8] = []) throws -> Response {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        let start = Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
        var headers = [("Host", "\(host):\(port)"), ("User-Agent", "MonitorCheck/1.0"), ("Accept", "*/*")]
        if !body.isEmpty || method == "POST" { headers.append(("Content-Length", "\(body.count)")) }
        var head = "\(method) \(target) HTTP/1.1\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        try write(Array((head + "\r\n").utf8) + body)
        let response = try readResponse()
        monitor.record(
            url: "http://\(host):\(port)\(target)", method: method, target: target, headers: headers, bodyBytes: body.count,
            start: start, status: response.status, responseBodyBytes: response.body.count)
        return response
    }

    private func write(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw Failure.closed }
            sent += count
        }
    }

    private func readResponse() throws -> Response {
        let separator = Array("\r\n\r\n".utf8)
        var headEnd: Int?
        while headEnd == nil {
            headEnd = received.indices.dropLast(3).first { Array(received[$0 ..< $0 + 4]) == separator }
            if headEnd == nil { try receive() }
        }
        let head = String(decoding: received[..<headEnd!], as: UTF8.self)
        let lines = head.split(separator: "\r\n")
        guard let statusLine = lines.first, let status = Int(statusLine.split(separator: " ").dropFirst().first ?? "") else {
            throw Failure.malformed
        }
        let length = lines.dropFirst().compactMap { line -> Int? in
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
            return Int(parts[1].trimmingPrefix(" "))
        }.first ?? 0
        let bodyStart = headEnd! + 4
        while received.count < bodyStart + length { try receive() }
        let body = Array(received[bodyStart ..< bodyStart + length])
        received.removeFirst(bodyStart + length)
        return Response(status: status, body: body)
    }

    private func receive() throws {
        var buffer = [UInt8](repeating: 0, count: 65536)
        let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { throw Failure.closed }
        received += buffer[..<count]
    }
}
