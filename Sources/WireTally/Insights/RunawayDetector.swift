/// Requests of one endpoint in one time window.
package struct RateWindow: Equatable, Sendable {
    /// Window bounds, nanoseconds since the epoch (`end` exclusive).
    package var start: Int64
    package var end: Int64
    package var requests: Int
    /// Seconds of the window during which the endpoint was observed (the part inside the span from its
    /// first to its last request): edge windows are partial, and their rate is per covered second.
    package var coveredSeconds: Double

    package init(start: Int64, end: Int64, requests: Int, coveredSeconds: Double) {
        self.start = start
        self.end = end
        self.requests = requests
        self.coveredSeconds = coveredSeconds
    }

    package var widthSeconds: Double { Double(end - start) / 1e9 }

    /// Requests per minute over the covered part of the window (0 when nothing of it was covered).
    package var ratePerMinute: Double { coveredSeconds > 0 ? Double(requests) * 60 / coveredSeconds : 0 }

    /// Fixed windows of `width` nanoseconds aligned on multiples of `width` since the epoch, from the
    /// window of the first time to the window of the last; `times` need not be sorted.
    package static func windows(of times: [Int64], width: Int64) -> [RateWindow] {
        guard let first = times.min(), let last = times.max(), width > 0 else { return [] }
        func index(_ time: Int64) -> Int64 { time >= 0 ? time / width : (time - width + 1) / width }
        let firstIndex = index(first), lastIndex = index(last)
        var counts = [Int](repeating: 0, count: Int(lastIndex - firstIndex + 1))
        for time in times { counts[Int(index(time) - firstIndex)] += 1 }
        return counts.enumerated().map { offset, count in
            let start = (firstIndex + Int64(offset)) * width
            return RateWindow(start: start, end: start + width, requests: count,
                              coveredSeconds: covered(start: start, end: start + width, first: first, last: last))
        }
    }

    /// Seconds of `[start, end)` inside `[first, last]`; a single-instant span covers its window fully.
    static func covered(start: Int64, end: Int64, first: Int64, last: Int64) -> Double {
        if first == last { return Double(end - start) / 1e9 }
        return Double(max(0, min(end, last) - max(start, first))) / 1e9
    }
}

/// One flag of an endpoint, with the evidence that raised it.
package struct EndpointFlag: Sendable {
    package enum Kind: String, Sendable, CaseIterable {
        /// The request rate keeps growing (a timer created again and again and never cancelled…).
        case runaway
        /// The same request (method, URL, body) again within a short interval.
        case duplicate
        /// A window whose rate is far above the endpoint's usual rate.
        case burst
    }
    package var kind: Kind
    /// Machine-readable evidence (the JSON `evidence.<kind>` object).
    package var evidence: JSONValue
    /// One line for people.
    package var summary: String
}

/// One request as the duplicate detector sees it: when, and what (a hash of method, URL and body).
package struct RequestEvent: Sendable, Equatable {
    package var time: Int64
    package var identity: UInt64
    package init(time: Int64, identity: UInt64) {
        self.time = time
        self.identity = identity
    }
}

/// Flags runaway, duplicate and bursty endpoints from their request timelines. Pure functions: the
/// same windows and events always give the same flags.
///
/// **runaway** — over the windows that were observed for at least `minCoverage` of their width (edge
/// windows are partial), all of:
/// 1. at least `minWindows` windows and `minRequests` requests in them (too little data proves nothing);
/// 2. Kendall's τ-b between window order and rate ≥ `minKendallTau` (0.6): the rate rises nearly
///    monotonically. τ is rank-based, so one noisy window cannot make or break the trend; for a
///    steady timeline τ is centred on 0 with a standard deviation of about 0.25 over 10 windows, so
///    0.6 is ≈ 2.4 σ;
/// 3. growth: the mean rate of the last third of the windows is ≥ `minGrowth` (2×) that of the first
///    third — a real increase, not a drift of a few percent that is perfectly monotone by chance;
/// 4. significance: the requests in the last third exceed what the first third's rate predicts by
///    ≥ `minTrendZ` (3) standard deviations of a Poisson count (conditional binomial test of the two
///    counts given their exposures). Polling is more regular than Poisson, so a steady poller —
///    jittered, with missed polls — essentially never reaches it, while a rate that doubles on a few
///    dozen requests does.
/// Steady polling at any rate has τ ≈ 0 and growth ≈ 1, so it is never flagged runaway.
///
/// **burst** — windows (observed for ≥ `minCoverage`) whose rate is ≥ `burstRatio` (4×) the median
/// rate of the endpoint's windows that have requests (at least 3 of them), and that hold ≥
/// `burstMinRequests` (10) requests: a spike well beyond the endpoint's usual rate, big enough not to
/// be a couple of polls falling in one window. Empty windows do not lower the usual rate.
///
/// **duplicate** — a request identical to the previous one of the same identity (method, host, full
/// target with query, body) less than `duplicateInterval` (1 s) after it, and less than
/// `duplicateFraction` (¼) of that identity's usual gap (75th percentile of its gaps, when it has at
/// least 3): a 1 s poller is not a duplicate of itself even with ±30 % jitter, a request fired twice
/// within 50 ms is. Flagged from `minDuplicates` (3) duplicates on: one or two repeats in a capture are
/// not a pattern.
package struct RunawayDetector: Sendable {
    package struct Thresholds: Sendable {
        package var minWindows = 4
        package var minRequests = 12
        package var minCoverage = 0.5
        package var minKendallTau = 0.6
        package var minGrowth = 2.0
        package var minTrendZ = 3.0
        package var burstRatio = 4.0
        package var burstMinRequests = 10
        /// Seconds.
        package var duplicateInterval = 1.0
        package var duplicateFraction = 0.25
        package var minDuplicates = 3
        package init() {}
    }

    package var thresholds: Thresholds

    package init(thresholds: Thresholds = Thresholds()) { self.thresholds = thresholds }

    /// All flags of an endpoint: runaway and burst from its windows, duplicate from its requests.
    package func flags(windows: [RateWindow], requests: [RequestEvent] = [], label: (UInt64) -> String = { _ in "" }) -> [EndpointFlag] {
        [runaway(windows), duplicates(requests, label: label), bursts(windows)].compactMap { $0 }
    }

    /// Convenience for a bare timeline: windows of `width` seconds over `times` (seconds), then `flags`.
    package func flags(times: [Double], width: Double) -> [EndpointFlag] {
        let nanos = times.map { Int64(($0 * 1e9).rounded()) }
        let windows = RateWindow.windows(of: nanos, width: Int64((width * 1e9).rounded()))
        return flags(windows: windows, requests: nanos.map { RequestEvent(time: $0, identity: 0) })
    }

    private func observed(_ windows: [RateWindow]) -> [RateWindow] {
        windows.filter { $0.coveredSeconds >= thresholds.minCoverage * $0.widthSeconds && $0.coveredSeconds > 0 }
    }

    /// The runaway test (see the type's documentation); nil when the rate does not keep growing.
    package func runaway(_ windows: [RateWindow]) -> EndpointFlag? {
        let used = observed(windows)
        let n = used.count
        guard n >= max(3, thresholds.minWindows), used.reduce(0, { $0 + $1.requests }) >= thresholds.minRequests else { return nil }
        let rates = used.map(\.ratePerMinute)
        let tau = Self.kendallTauB(rates)
        guard tau >= thresholds.minKendallTau else { return nil }
        let third = max(1, n / 3)
        let head = used.prefix(third), tail = used.suffix(third)
        let headCount = Double(head.reduce(0) { $0 + $1.requests }), tailCount = Double(tail.reduce(0) { $0 + $1.requests })
        let headExposure = head.reduce(0) { $0 + $1.coveredSeconds }, tailExposure = tail.reduce(0) { $0 + $1.coveredSeconds }
        let headRate = headCount * 60 / headExposure, tailRate = tailCount * 60 / tailExposure
        let growth = headRate > 0 ? tailRate / headRate : .infinity
        guard growth >= thresholds.minGrowth else { return nil }
        // Conditional binomial test: given N = head + tail requests, the tail's share under a constant
        // rate is its share of the exposure.
        let total = headCount + tailCount, share = tailExposure / (headExposure + tailExposure)
        let z = (tailCount - total * share) / max(1e-9, (total * share * (1 - share)).squareRoot())
        guard z >= thresholds.minTrendZ else { return nil }
        let evidence = JSONValue.object([
            ("windows", .integer(n)),
            ("kendall_tau", .number(Self.format(tau, digits: 3))),
            ("first_rate_per_min", .number(Self.format(headRate, digits: 2))),
            ("last_rate_per_min", .number(Self.format(tailRate, digits: 2))),
            ("growth", growth.isFinite ? .number(Self.format(growth, digits: 2)) : .null),
            // the same as the mean interval between calls, which shrinks
            ("first_mean_interval_ms", headRate > 0 ? .number(Self.format(60_000 / headRate, digits: 1)) : .null),
            ("last_mean_interval_ms", .number(Self.format(60_000 / tailRate, digits: 1))),
            ("z", .number(Self.format(z, digits: 2))),
            ("rates_per_min", .array(rates.map { .number(Self.format($0, digits: 1)) })),
        ])
        let growthText = growth.isFinite ? "×" + Self.format(growth, digits: 1) : "from 0"
        let summary = "runaway: rate \(Self.format(headRate, digits: 1))→\(Self.format(tailRate, digits: 1))/min (\(growthText)) over \(n) windows, τ \(Self.format(tau, digits: 2))"
        return EndpointFlag(kind: .runaway, evidence: evidence, summary: summary)
    }

    /// Windows far above the endpoint's median rate; nil when there are none.
    package func bursts(_ windows: [RateWindow]) -> EndpointFlag? {
        // Only windows with requests set the usual rate: a capture merged from sessions far apart (or an
        // endpoint idle most of the time) has long empty stretches that say nothing about its rate.
        let used = observed(windows).filter { $0.requests > 0 }
        guard used.count >= 3 else { return nil }
        let median = Self.median(used.map(\.ratePerMinute))
        let spikes = used.filter {
            $0.requests >= thresholds.burstMinRequests && $0.ratePerMinute >= thresholds.burstRatio * median
        }
        guard !spikes.isEmpty else { return nil }
        let evidence = JSONValue.object([
            ("median_rate_per_min", .number(Self.format(median, digits: 2))),
            ("windows", .array(spikes.map { window in
                .object([
                    ("start", .number(Self.seconds(window.start))),
                    ("end", .number(Self.seconds(window.end))),
                    ("requests", .integer(window.requests)),
                    ("rate_per_min", .number(Self.format(window.ratePerMinute, digits: 2))),
                    ("ratio", median > 0 ? .number(Self.format(window.ratePerMinute / median, digits: 2)) : .null),
                ])
            })),
        ])
        let peak = spikes.max { $0.ratePerMinute < $1.ratePerMinute }!
        let summary = "burst: \(spikes.count) window(s), peak \(peak.requests) req (\(Self.format(peak.ratePerMinute, digits: 1))/min) vs median \(Self.format(median, digits: 1))/min"
        return EndpointFlag(kind: .burst, evidence: evidence, summary: summary)
    }

    /// Identical requests in quick succession; nil when fewer than `minDuplicates`.
    package func duplicates(_ requests: [RequestEvent], label: (UInt64) -> String = { _ in "" }) -> EndpointFlag? {
        var byIdentity: [UInt64: [Int64]] = [:]
        for request in requests { byIdentity[request.identity, default: []].append(request.time) }
        var count = 0, identities = 0, smallestGap = Int64.max, largestGap = Int64.min
        var examples: [(time: Int64, gap: Int64, identity: UInt64)] = []
        for identity in byIdentity.keys.sorted() {
            let times = byIdentity[identity]!.sorted()
            guard times.count >= 2 else { continue }
            let gaps = zip(times.dropFirst(), times).map { $0 - $1 }
            var limit = thresholds.duplicateInterval * 1e9
            if gaps.count >= 3 { limit = min(limit, thresholds.duplicateFraction * Self.quantile(gaps.map(Double.init), 0.75)) }
            var found = 0
            for (offset, gap) in gaps.enumerated() where Double(gap) < limit {
                found += 1
                smallestGap = min(smallestGap, gap)
                largestGap = max(largestGap, gap)
                if examples.count < 3 { examples.append((times[offset + 1], gap, identity)) }
            }
            if found > 0 { identities += 1; count += found }
        }
        guard count >= thresholds.minDuplicates else { return nil }
        let evidence = JSONValue.object([
            ("duplicates", .integer(count)),
            ("requests", .integer(requests.count)),
            ("identities", .integer(identities)),
            ("min_gap_ms", .number(Self.format(Double(smallestGap) / 1e6, digits: 3))),
            ("max_gap_ms", .number(Self.format(Double(largestGap) / 1e6, digits: 3))),
            ("max_interval_ms", .number(Self.format(thresholds.duplicateInterval * 1000, digits: 0))),
            ("examples", .array(examples.map { example in
                .object([
                    ("ts", .number(Self.seconds(example.time))),
                    ("gap_ms", .number(Self.format(Double(example.gap) / 1e6, digits: 3))),
                    ("request", .string(label(example.identity))),
                ])
            })),
        ])
        let summary = "duplicate: \(count) of \(requests.count) requests repeated the identical previous one after "
            + "\(Self.format(Double(smallestGap) / 1e6, digits: 1))–\(Self.format(Double(largestGap) / 1e6, digits: 1)) ms"
            + " (in \(identities) distinct request(s); limit \(Self.format(thresholds.duplicateInterval * 1000, digits: 0)) ms and ¼ of the usual gap)"
        return EndpointFlag(kind: .duplicate, evidence: evidence, summary: summary)
    }

    // MARK: statistics

    /// Kendall's τ-b between position (0, 1, 2, …) and `values` (ties in values corrected).
    static func kendallTauB(_ values: [Double]) -> Double {
        let n = values.count
        guard n >= 2 else { return 0 }
        var concordant = 0, discordant = 0, tiedValues = 0
        for i in 0..<n {
            for j in (i + 1)..<n {
                if values[j] > values[i] { concordant += 1 } else if values[j] < values[i] { discordant += 1 } else { tiedValues += 1 }
            }
        }
        let pairs = Double(n * (n - 1) / 2)
        let denominator = (pairs * (pairs - Double(tiedValues))).squareRoot()
        return denominator > 0 ? Double(concordant - discordant) / denominator : 0
    }

    static func median(_ values: [Double]) -> Double { quantile(values, 0.5) }

    /// Linear-interpolation quantile (type 7).
    static func quantile(_ values: [Double], _ q: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let position = q * Double(sorted.count - 1)
        let lower = Int(position), upper = min(sorted.count - 1, lower + 1)
        return sorted[lower] + (sorted[upper] - sorted[lower]) * (position - Double(lower))
    }

    /// `value` with `digits` decimals (no Foundation).
    static func format(_ value: Double, digits: Int) -> String {
        guard value.isFinite else { return "0" }
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        let whole = Int64(scaled / scale), fraction = Int64(scaled - Double(whole) * scale)
        var text = (value < 0 && scaled > 0 ? "-" : "") + String(whole)
        if digits > 0 {
            let fractionText = String(fraction)
            text += "." + String(repeating: "0", count: max(0, digits - fractionText.count)) + fractionText
        }
        return text
    }

    /// Seconds since the epoch with millisecond precision.
    static func seconds(_ nanoseconds: Int64) -> String {
        Timestamp(nanoseconds: nanoseconds).formatted(digits: 3)
    }
}
