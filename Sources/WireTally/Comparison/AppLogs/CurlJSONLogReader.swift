/// Reads curl `--write-out '%{json}'` logs (curl ≥ 7.70), one JSON object per line and transfer, in
/// the order curl finished them.
///
/// - method: `method` (curl ≥ 7.72); older curl: a guess, `POST` when `size_upload` > 0 else `GET`,
///   marked `methodIsGuess` (the matcher then ignores the method);
/// - url: `url_effective` (with `-L` the last hop: earlier redirect exchanges stay unmatched on the wire);
/// - status: `http_code` (0: no response → nil);
/// - bytes: request headers `size_request`, request body `size_upload`, response headers `size_header`,
///   response body `size_download` (as README's table: curl's `size_header` includes interim 1xx);
/// - connection: `local_port`, `remote_ip`, `remote_port` (0 / empty when no connection was made);
/// - phases (curl's times are cumulative seconds from the transfer's start): dns `time_namelookup`,
///   connect `time_connect − time_namelookup`, ssl `time_appconnect − time_connect` (the three only
///   when the transfer opened its connection, `num_connects` > 0, and the time is not 0), ttfb
///   `time_starttransfer − time_pretransfer`, total `time_total`.
///
/// **No absolute start time**: curl's `%{json}` has none (curl 8 neither, only durations). `start` is
/// nil and `relativeStart` the sum of the earlier lines' `time_total` (right for the transfers of one
/// sequential curl invocation, not for `--parallel`). The matcher therefore pairs curl entries by
/// connection and sequence: the k-th transfer with local port P is the k-th exchange of the
/// connection whose client port is P; transfers without a port match in log order (see `AppLogMatcher`).
package enum CurlJSONLogReader {
    package static func entries(path: String) throws -> [AppLogEntry] {
        try entries(bytes: AppLogFile.read(path), path: path)
    }

    package static func entries(bytes: [UInt8], path: String = "<curl>") throws -> [AppLogEntry] {
        var entries: [AppLogEntry] = []
        var elapsed = 0.0
        for (number, line, object) in try AppLogFile.jsonObjects(bytes, path: path) {
            guard let url = (object.appMember("url_effective") ?? object.appMember("url"))?.appString else {
                throw AppLogError.malformed(path: path, line: number, reason: "no url_effective")
            }
            func int(_ key: String) -> Int? { object.appMember(key)?.appInt.flatMap { $0 >= 0 ? $0 : nil } }
            func seconds(_ key: String) -> Double? { object.appMember(key)?.appDouble.flatMap { $0 >= 0 ? $0 : nil } }
            var method = object.appMember("method")?.appString.flatMap { $0.isEmpty ? nil : $0.uppercased() }
            let guessed = method == nil
            if guessed { method = (int("size_upload") ?? 0) > 0 ? "POST" : "GET" }
            let opened = (int("num_connects") ?? 0) > 0
            let lookup = seconds("time_namelookup") ?? 0, connected = seconds("time_connect") ?? 0
            let appConnected = seconds("time_appconnect") ?? 0
            var phases = AppLogPhases()
            if opened {
                phases.dns = seconds("time_namelookup").map { $0 * 1000 }
                if connected > 0 { phases.connect = max(0, connected - lookup) * 1000 }
                if appConnected > 0 { phases.ssl = max(0, appConnected - connected) * 1000 }
            }
            if let first = seconds("time_starttransfer"), first > 0 {
                phases.ttfb = max(0, first - (seconds("time_pretransfer") ?? 0)) * 1000
            }
            let total = seconds("time_total")
            phases.total = total.map { $0 * 1000 }
            let port = int("local_port").flatMap { $0 > 0 ? $0 : nil }
            var entry = AppLogEntry(
                sequence: entries.count, line: number, source: String(decoding: line, as: UTF8.self), method: method,
                url: url, status: int("http_code").flatMap { $0 > 0 ? $0 : nil }, start: nil, relativeStart: elapsed,
                requestHeaderBytes: int("size_request"), requestBodyBytes: int("size_upload"),
                responseHeaderBytes: int("size_header"), responseBodyBytes: int("size_download"), phases: phases,
                localPort: port, remoteAddress: object.appMember("remote_ip")?.appString.flatMap { $0.isEmpty ? nil : $0 },
                remotePort: int("remote_port").flatMap { $0 > 0 ? $0 : nil })
            entry.methodIsGuess = guessed
            entries.append(entry)
            elapsed += total ?? 0
        }
        return entries
    }
}
