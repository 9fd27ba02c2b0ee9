import Synchronization

/// A monitor as in-app network monitors are usually written: it counts a request by rebuilding its
/// request line and headers (`METHOD target HTTP/1.1`, `Name: value` lines, the empty line) plus its
/// body, and a response by the body it received.
public final class ByteCountingMonitor: Sendable {
    private let counted = Mutex<[CountedRequest]>([])

    public init() {}

    /// Every request counted so far, in the order they finished.
    public var requests: [CountedRequest] { counted.withLock { $0 } }

    /// Counts one finished request.
    func record(
        url: String, method: String, target: String, headers: [(String, String)], bodyBytes: Int, start: Double,
        status: Int?, responseBodyBytes: Int
    ) {
        let requestLine = "\(method) \(target) HTTP/1.1\r\n".utf8.count
        let headerLines = headers.map { "\($0.0): \($0.1)\r\n".utf8.count }.reduce(0, +)
        let request = CountedRequest(
            url: url, method: method, status: status, start: start, requestHeaderBytes: requestLine + headerLines + 2,
            requestBodyBytes: bodyBytes, responseBodyBytes: responseBodyBytes)
        counted.withLock { $0.append(request) }
    }
}
