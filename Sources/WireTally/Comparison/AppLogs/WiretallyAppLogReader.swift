/// Reads the **wiretally app log**: JSON Lines written by an in-app network monitor, one object per
/// finished request. (README text for the integrator below.)
///
/// ### wiretally app log (JSON Lines)
///
/// One JSON object per line, written when a request finishes (any order; blank lines ignored):
///
/// ```json
/// {"url":"https://api.example.com/v1/items?page=2","method":"GET","status":200,"start":1795324582.000356,
///  "request_header_bytes":312,"request_body_bytes":0,"response_header_bytes":410,"response_body_bytes":5120,
///  "metrics":{"fetchStart":1795324582.000356,"domainLookupStart":1795324582.0005,"domainLookupEnd":1795324582.0121,
///    "connectStart":1795324582.0122,"secureConnectionStart":1795324582.0301,"connectEnd":1795324582.0702,
///    "requestStart":1795324582.0705,"requestEnd":1795324582.0706,"responseStart":1795324582.1190,
///    "responseEnd":1795324582.1240}}
/// ```
///
/// | field | meaning |
/// | --- | --- |
/// | `url` (required) | the absolute URL requested (fragment ignored) |
/// | `method` | request method (absent: not compared) |
/// | `status` | final status code (absent, null or 0: no response) |
/// | `start` | when the request started on the app's clock, seconds since the epoch (absent: `metrics.fetchStart`, else `metrics.requestStart`) |
/// | `request_header_bytes`, `request_body_bytes` | bytes the app counted for the request's start line + headers, and body (`URLSessionTaskMetrics`' `countOfRequestHeaderBytesSent`, `countOfRequestBodyBytesSent`) |
/// | `response_header_bytes`, `response_body_bytes` | likewise for the response (`countOfResponseHeaderBytesReceived`, `countOfResponseBodyBytesReceived`) |
/// | `response_transfer_bytes` | optional: the response's total bytes on the network when the monitor knows it (preferred for `down`) |
/// | `metrics` | optional: the `URLSessionTaskMetrics` transaction dates as epoch seconds (`Date.timeIntervalSince1970`); a phase that did not happen (reused connection, no TLS) is absent or null |
/// | `local_port`, `remote_address`, `remote_port` | optional: the connection used (lets wiretally match by connection instead of time) |
///
/// Byte counts that are absent, null or negative are unknown. Phases derived from `metrics` (ms):
/// dns = `domainLookupEnd − domainLookupStart`; connect = `(secureConnectionStart ?? connectEnd) −
/// connectStart` (TCP only); ssl = `connectEnd − secureConnectionStart`; ttfb = `responseStart −
/// requestStart`; total = `responseEnd − fetchStart` (or − `start`).
/// Also accepted: `start_ms` (epoch milliseconds) instead of `start`.
package enum WiretallyAppLogReader {
    package static func entries(path: String) throws -> [AppLogEntry] {
        try entries(bytes: AppLogFile.read(path), path: path)
    }

    package static func entries(bytes: [UInt8], path: String = "<app log>") throws -> [AppLogEntry] {
        var entries: [AppLogEntry] = []
        for (number, line, object) in try AppLogFile.jsonObjects(bytes, path: path) {
            guard let url = object.appMember("url")?.appString else {
                throw AppLogError.malformed(path: path, line: number, reason: "no url")
            }
            func bytes(_ key: String) -> Int? { object.appMember(key)?.appInt.flatMap { $0 >= 0 ? $0 : nil } }
            let metrics = object.appMember("metrics")
            func date(_ key: String) -> Double? { metrics?.appMember(key)?.appDouble.flatMap { $0 > 0 ? $0 : nil } }
            func span(_ from: Double?, _ to: Double?) -> Double? {
                guard let from, let to else { return nil }
                return max(0, to - from) * 1000
            }
            let start = object.appMember("start")?.appDouble ?? object.appMember("start_ms")?.appDouble.map { $0 / 1000 }
                ?? date("fetchStart") ?? date("requestStart")
            let secure = date("secureConnectionStart")
            let phases = AppLogPhases(
                dns: span(date("domainLookupStart"), date("domainLookupEnd")),
                connect: span(date("connectStart"), secure ?? date("connectEnd")),
                ssl: span(secure, date("connectEnd")),
                ttfb: span(date("requestStart"), date("responseStart")),
                total: span(date("fetchStart") ?? start, date("responseEnd")))
            entries.append(AppLogEntry(
                sequence: entries.count, line: number, source: String(decoding: line, as: UTF8.self),
                method: object.appMember("method")?.appString.flatMap { $0.isEmpty ? nil : $0.uppercased() }, url: url,
                status: object.appMember("status")?.appInt.flatMap { $0 > 0 ? $0 : nil }, start: start,
                requestHeaderBytes: bytes("request_header_bytes"), requestBodyBytes: bytes("request_body_bytes"),
                responseHeaderBytes: bytes("response_header_bytes"), responseBodyBytes: bytes("response_body_bytes"),
                responseTransferBytes: bytes("response_transfer_bytes"), phases: phases,
                localPort: bytes("local_port").flatMap { $0 > 0 ? $0 : nil },
                remoteAddress: object.appMember("remote_address")?.appString,
                remotePort: bytes("remote_port").flatMap { $0 > 0 ? $0 : nil }))
        }
        return entries
    }
}
