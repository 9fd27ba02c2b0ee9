/// One app log compared with the wire: read, matched, estimates and timings, and its JSON.
///
/// The integrator's `compare` command, per `--app-log LOG`:
/// ```swift
/// let log = try AppLog.read(path: LOG)                       // format sniffed
/// let wire = exchanges.map { AppLogWireExchange($0.exchange, id: $0.id, connection: $0.connection) }
/// let report = AppLogReport(log: log, wire: wire)            // matching + timings
/// // report.estimates: (entry, wire, TrafficEstimate) per matched pair → the gap-by-cause code
/// let json = report.json(extra: [("up", …), ("down", …), ("gap_by_cause", …)])
/// ```
/// Build the `AppLogWireExchange`s once the run is over (the ledger has then attributed every
/// packet, teardown included).
package struct AppLogReport: Sendable {
    package var log: AppLog
    package var wire: [AppLogWireExchange]
    package var result: AppLogMatchResult
    package var timings: AppLogTimingComparison

    package init(log: AppLog, wire: [AppLogWireExchange], matcher: AppLogMatcher = AppLogMatcher()) {
        self.log = log
        self.wire = wire
        result = matcher.match(log.entries, wire)
        timings = AppLogTimingComparison(entries: log.entries, wire: wire, matches: result.matches)
    }

    /// What each matched entry says its exchange cost (entries without byte counts are left out),
    /// with the wire exchange it was matched to.
    package var estimates: [(entry: AppLogEntry, wire: AppLogWireExchange, estimate: TrafficEstimate, match: AppLogMatch)] {
        result.matches.compactMap { match in
            log.entries[match.entry].estimate.map { (log.entries[match.entry], wire[match.wire], $0, match) }
        }
    }

    /// `{"path","format","entries","matched","host_only","unmatched_app","unmatched_wire","clock_offset_ms",
    /// <extra>…,"timings":{…},"unmatched":{"app":[{"line","method","url","start"}],"wire":[{"id","conn","index","method","url","start"}]}}`.
    /// `extra` (the integrator's `up`, `down`, `gap_by_cause`) goes before `timings`.
    package func json(extra: [(String, JSONValue)] = []) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("path", .string(log.path)),
            ("format", .string(log.format.rawValue)),
            ("entries", .integer(log.entries.count)),
            ("matched", .integer(result.matches.count)),
            ("host_only", .integer(result.matches.filter(\.hostOnly).count)),
            ("unmatched_app", .integer(result.unmatchedEntries.count)),
            ("unmatched_wire", .integer(result.unmatchedWire.count)),
            ("clock_offset_ms", Self.milliseconds(result.clockOffsetMs)),
        ]
        members += extra
        members.append(("timings", timings.json))
        members.append(("unmatched", .object([
            ("app", .array(result.unmatchedEntries.map { index in
                let entry = log.entries[index]
                return .object([
                    ("line", .integer(entry.line)),
                    ("method", entry.method.map(JSONValue.string) ?? .null),
                    ("url", .string(entry.url)),
                    ("start", entry.start.map { .number(Self.seconds($0)) } ?? .null),
                ])
            })),
            ("wire", .array(result.unmatchedWire.map { index in
                let exchange = wire[index]
                return .object([
                    ("id", .integer(exchange.id)),
                    ("conn", .integer(exchange.connectionID)),
                    ("index", .integer(exchange.index)),
                    ("method", exchange.method.map(JSONValue.string) ?? .null),
                    ("url", exchange.url.map { .string($0.description) } ?? .null),
                    ("start", .number(Self.seconds(exchange.start))),
                ])
            })),
        ])))
        return .object(members)
    }

    /// Milliseconds with three decimals (microseconds), null when nil.
    static func milliseconds(_ value: Double?) -> JSONValue {
        guard let value, value.isFinite else { return .null }
        return .number(RecordEncoding.milliseconds(Int64((value * 1_000_000).rounded())))
    }

    /// Epoch seconds with six decimals.
    static func seconds(_ value: Double) -> String {
        Timestamp(nanoseconds: Int64((value * 1_000_000).rounded()) * 1000).formatted(digits: 6)
    }
}
