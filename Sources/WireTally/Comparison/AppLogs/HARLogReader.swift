/// Reads HAR 1.2 documents (Charles, Proxyman, Chrome DevTools, in-app loggers, wiretally's own
/// `--format har`) into `AppLogEntry`s, one per `log.entries[i]` (`line` = i).
///
/// - start: `startedDateTime` (ISO 8601 with `Z` or a `±hh:mm` offset);
/// - `request.method`, `request.url`, `request.headersSize`, `request.bodySize`;
/// - `response.status` (0 = no response → nil), `headersSize`, `bodySize` (when -1: `content.size`,
///   the body as the client delivered it — nghttp's HAR, which gives no other size: its DATA payload;
///   a decoded size differs from the body as sent by `compression_estimate`), `_transferSize`
///   (Chrome's and wiretally's bytes on the network, preferred for `down`);
/// - `timings`: `dns`, `ssl`, `connect` minus `ssl` (HAR's connect includes TLS), ttfb = `send + wait`,
///   total = `time`.
/// -1 (HAR's "unknown / does not apply") becomes nil everywhere.
package enum HARLogReader {
    package static func entries(path: String) throws -> [AppLogEntry] {
        try entries(bytes: AppLogFile.read(path), path: path)
    }

    package static func entries(bytes: [UInt8], path: String = "<har>") throws -> [AppLogEntry] {
        let document: JSONValue
        do {
            document = try AppLogJSON.parse(bytes[...])
        } catch let error as AppLogJSON.SyntaxError {
            throw AppLogError.malformed(path: path, line: 0, reason: "JSON error at byte \(error.offset): \(error.reason)")
        }
        guard let list = document.appPath("log.entries")?.appArray else {
            throw AppLogError.malformed(path: path, line: 0, reason: "no log.entries array")
        }
        return try list.enumerated().map { index, entry in
            try self.entry(entry, index: index, path: path)
        }
    }

    static func entry(_ entry: JSONValue, index: Int, path: String) throws -> AppLogEntry {
        func known(_ value: JSONValue?) -> Int? { value?.appInt.flatMap { $0 >= 0 ? $0 : nil } }
        func knownMs(_ value: JSONValue?) -> Double? { value?.appDouble.flatMap { $0 >= 0 ? $0 : nil } }
        guard let request = entry.appMember("request"), let url = request.appMember("url")?.appString else {
            throw AppLogError.malformed(path: path, line: index, reason: "entry without request.url")
        }
        let response = entry.appMember("response")
        let method = request.appMember("method")?.appString.flatMap { $0.isEmpty ? nil : $0.uppercased() }
        let status = response?.appMember("status")?.appInt.flatMap { $0 > 0 ? $0 : nil }
        let timings = entry.appMember("timings")
        let ssl = knownMs(timings?.appMember("ssl"))
        let connect = knownMs(timings?.appMember("connect")).map { max(0, $0 - (ssl ?? 0)) }
        let send = knownMs(timings?.appMember("send")), wait = knownMs(timings?.appMember("wait"))
        let ttfb = wait.map { $0 + (send ?? 0) }
        let phases = AppLogPhases(
            dns: knownMs(timings?.appMember("dns")), connect: connect, ssl: ssl, ttfb: ttfb,
            total: knownMs(entry.appMember("time")))
        // A missing response (wiretally writes status 0, `_transferSize` 0) has no transfer size.
        let transfer = status == nil ? nil : known(response?.appMember("_transferSize"))
        return AppLogEntry(
            sequence: index, line: index, source: "entries[\(index)]", method: method, url: url, status: status,
            start: entry.appMember("startedDateTime")?.appString.flatMap(ISO8601.seconds),
            requestHeaderBytes: known(request.appMember("headersSize")),
            requestBodyBytes: known(request.appMember("bodySize")),
            responseHeaderBytes: status == nil ? nil : known(response?.appMember("headersSize")),
            responseBodyBytes: status == nil
                ? nil : known(response?.appMember("bodySize")) ?? known(response?.appPath("content.size")),
            responseTransferBytes: transfer, phases: phases)
    }
}

/// ISO 8601 / RFC 3339 date-times as HAR writes them: `2026-11-22T05:16:21.123Z`,
/// `2026-11-22T06:16:21.123456+01:00`, `+0100`, no zone (taken as UTC), space instead of `T`.
enum ISO8601 {
    /// Seconds since the epoch, or nil when `text` is not such a date.
    static func seconds(_ text: String) -> Double? {
        let bytes = Array(text.utf8)
        var index = 0
        func number(_ digits: Int) -> Int64? {
            guard index + digits <= bytes.count else { return nil }
            var value: Int64 = 0
            for byte in bytes[index..<(index + digits)] {
                guard (0x30...0x39).contains(byte) else { return nil }
                value = value * 10 + Int64(byte - 0x30)
            }
            index += digits
            return value
        }
        func skip(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }
        guard let year = number(4), skip(UInt8(ascii: "-")), let month = number(2), skip(UInt8(ascii: "-")),
              let day = number(2), (1...12).contains(month), (1...31).contains(day) else { return nil }
        guard skip(UInt8(ascii: "T")) || skip(UInt8(ascii: "t")) || skip(UInt8(ascii: " ")),
              let hour = number(2), skip(UInt8(ascii: ":")), let minute = number(2), skip(UInt8(ascii: ":")),
              let second = number(2), hour < 24, minute < 60, second < 61 else { return nil }
        var fraction = 0.0
        if skip(UInt8(ascii: ".")) || skip(UInt8(ascii: ",")) {
            var scale = 0.1
            let start = index
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) {
                fraction += Double(bytes[index] - 0x30) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }
        var offset: Int64 = 0
        if index < bytes.count {
            if skip(UInt8(ascii: "Z")) || skip(UInt8(ascii: "z")) {
            } else if bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                let sign: Int64 = bytes[index] == UInt8(ascii: "-") ? -1 : 1
                index += 1
                guard let hours = number(2) else { return nil }
                _ = skip(UInt8(ascii: ":"))
                let minutes = index < bytes.count ? number(2) : 0
                guard let minutes else { return nil }
                offset = sign * (hours * 3600 + minutes * 60)
            } else {
                return nil
            }
        }
        guard index == bytes.count else { return nil }
        let whole = HARDate.days(fromCivil: year, month, day) * 86_400 + hour * 3600 + minute * 60 + second - offset
        return Double(whole) + fraction
    }
}
