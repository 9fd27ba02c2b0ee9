/// The app's timing phases against the wire's, over the matched pairs where both exist.
///
/// Wire values (`ExchangeTiming`): dns = `dns`, connect = `connect`, ssl = `ssl`, ttfb = `send + wait`
/// (first request packet → first response packet), total = `total`; -1 (did not happen) is skipped,
/// as is a phase the entry lacks. Per phase: how many pairs were compared and the median and 95th
/// percentile (nearest rank) of |app − wire| in ms.
package struct AppLogTimingComparison: Sendable {
    package enum Phase: String, CaseIterable, Sendable {
        case dns, connect, ssl, ttfb, total
    }

    package struct Statistics: Hashable, Sendable {
        package var compared: Int
        package var medianDiffMs: Double?
        package var p95DiffMs: Double?
        /// Median of app − wire (signed): positive when the app reports longer phases.
        package var medianSignedDiffMs: Double?
    }

    package var phases: [Phase: Statistics]

    package init(entries: [AppLogEntry], wire: [AppLogWireExchange], matches: [AppLogMatch]) {
        var differences: [Phase: [Double]] = [:]
        for match in matches {
            let app = entries[match.entry].phases, timing = wire[match.wire].timing
            for phase in Phase.allCases {
                guard let appValue = Self.value(phase, app), let wireValue = Self.value(phase, timing) else { continue }
                differences[phase, default: []].append(appValue - wireValue)
            }
        }
        var phases: [Phase: Statistics] = [:]
        for phase in Phase.allCases {
            let signed = differences[phase] ?? []
            let absolute = signed.map(abs).sorted()
            phases[phase] = Statistics(
                compared: signed.count, medianDiffMs: AppLogMatcher.median(absolute),
                p95DiffMs: absolute.isEmpty ? nil : absolute[max(0, Int((0.95 * Double(absolute.count)).rounded(.up)) - 1)],
                medianSignedDiffMs: AppLogMatcher.median(signed))
        }
        self.phases = phases
    }

    static func value(_ phase: Phase, _ phases: AppLogPhases) -> Double? {
        switch phase {
        case .dns: return phases.dns
        case .connect: return phases.connect
        case .ssl: return phases.ssl
        case .ttfb: return phases.ttfb
        case .total: return phases.total
        }
    }

    static func value(_ phase: Phase, _ timing: ExchangeTiming) -> Double? {
        func known(_ value: Double) -> Double? { value < 0 ? nil : value }
        switch phase {
        case .dns: return known(timing.dns)
        case .connect: return known(timing.connect)
        case .ssl: return known(timing.ssl)
        case .ttfb: return timing.send < 0 || timing.wait < 0 ? nil : timing.send + timing.wait
        case .total: return known(timing.total)
        }
    }

    /// `{"dns":{"compared","median_diff_ms","p95_diff_ms","median_signed_diff_ms"},…}` (null when
    /// nothing was compared).
    package var json: JSONValue {
        .object(Phase.allCases.map { phase in
            let statistics = phases[phase] ?? Statistics(compared: 0)
            return (phase.rawValue, .object([
                ("compared", .integer(statistics.compared)),
                ("median_diff_ms", AppLogReport.milliseconds(statistics.medianDiffMs)),
                ("p95_diff_ms", AppLogReport.milliseconds(statistics.p95DiffMs)),
                ("median_signed_diff_ms", AppLogReport.milliseconds(statistics.medianSignedDiffMs)),
            ]))
        })
    }
}

extension AppLogTimingComparison.Statistics {
    init(compared: Int) { self.init(compared: compared, medianDiffMs: nil, p95DiffMs: nil, medianSignedDiffMs: nil) }
}
