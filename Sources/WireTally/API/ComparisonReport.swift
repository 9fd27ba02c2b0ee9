/// What ``Comparison/run(_:appLog:level:)`` found. Its `description` is a table of every request
/// (method, URL, app bytes, wire bytes, error, the largest causes), meant for a test's failure message.
public struct ComparisonReport: Hashable, Sendable, CustomStringConvertible {
    /// The cause names of ``gapByCause``, in report order: `hidden_headers`, `cookies`,
    /// `compression_estimate`, `body_length`, `chunk_framing`, `hpack`, `http2_framing`, `qpack`,
    /// `http3_framing`, `tls_overhead`, `quic_overhead`, `tcp_ip_headers`, `pure_acks`,
    /// `setup_teardown`, `retransmissions`, `dns`, `other` (the README's `compare` section says
    /// what each counts).
    public static var causes: [String] { GapAttribution.causes }

    /// The wire level the byte counts were compared at.
    public var level: WireLevel
    /// The paired requests that have byte counts, in app-log order.
    public var requests: [RequestComparison]
    /// Requests no exchange matched (a URL or method that differs, a request the capture missed).
    public var unmatchedRequests: [AppRequest]
    /// Paired requests without any byte count: not compared.
    public var requestsWithoutByteCounts: [AppRequest]
    /// Exchanges no request matched (traffic the monitor did not see).
    public var unmatchedExchanges: [Exchange]
    /// Bytes the app counted for ``requests``.
    public var estimatedBytes: Int
    /// Bytes the wire carried for ``requests`` at ``level``.
    public var wireBytes: Int
    /// wire − estimated by cause, summed over ``requests``; adds up exactly to `wireBytes − estimatedBytes`.
    public var gapByCause: [String: Int]
    /// Median of the requests' signed error percent.
    public var medianErrorPercent: Double?
    /// The 95th percentile of the requests' absolute error percent.
    public var p95ErrorPercent: Double?
    /// App clock − capture clock, in milliseconds, when the requests had start times.
    public var clockOffsetMilliseconds: Double?

    /// estimatedBytes − wireBytes: negative when the app counted less than the wire carried.
    public var errorBytes: Int { estimatedBytes - wireBytes }
    /// 100 · ``errorBytes`` / ``wireBytes``; nil when the wire carried nothing.
    public var errorPercent: Double? { Self.percent(errorBytes, of: wireBytes) }

    /// The request whose error is largest in absolute percent.
    public var worstRequest: RequestComparison? { requests.max { abs($0.errorPercent ?? 0) < abs($1.errorPercent ?? 0) } }

    static func percent(_ part: Int, of whole: Int) -> Double? {
        whole > 0 ? 100 * Double(part) / Double(whole) : nil
    }

    public var description: String {
        var rows = [["method", "url", "app", "wire", "error", "error %", "largest causes (wire − app)"]]
        func percentText(_ value: Double?) -> String { value.map { EstimatorReport.format($0) } ?? "-" }
        func causesText(_ causes: [String: Int]) -> String {
            causes.filter { $0.value != 0 }.sorted { abs($0.value) > abs($1.value) || (abs($0.value) == abs($1.value) && $0.key < $1.key) }
                .prefix(3).map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        }
        for request in requests {
            rows.append([
                request.exchange.method ?? "-", request.exchange.url, "\(request.estimated)", "\(request.wire)",
                "\(request.errorBytes)", percentText(request.errorPercent), causesText(request.gapByCause),
            ])
        }
        rows.append(["", "total (\(level.rawValue))", "\(estimatedBytes)", "\(wireBytes)", "\(errorBytes)",
                     percentText(errorPercent), causesText(gapByCause)])
        let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        var text = rows.map { row -> Substring in
            let line = zip(row, widths).map { $0 + String(repeating: " ", count: $1 - $0.count) }.joined(separator: "  ")
            return line[..<(line.lastIndex { $0 != " " }.map(line.index(after:)) ?? line.startIndex)]
        }.joined(separator: "\n")
        for request in unmatchedRequests { text += "\nunmatched app request: \(request.method ?? "-") \(request.url)" }
        for exchange in unmatchedExchanges { text += "\nunmatched exchange: \(exchange.method ?? "-") \(exchange.url)" }
        return text + "\n"
    }
}
