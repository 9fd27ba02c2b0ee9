/// One app log entry paired with one wire exchange.
package struct AppLogMatch: Hashable, Sendable {
    /// How the pair was found.
    package enum Kind: String, Sendable {
        /// Same method and normalised URL, nearest start after the clock offset.
        case url
        /// Only the host could be compared (encrypted `estimated` exchange), nearest start.
        case hostOnly = "host_only"
        /// The entry names its connection (curl `local_port`): k-th entry on the port ↔ k-th exchange.
        case connection
        /// No time in the log and no connection: log order ↔ wire order.
        case sequence
    }

    /// Index into the entries and into the wire exchanges given to the matcher.
    package var entry: Int
    package var wire: Int
    package var kind: Kind
    /// |app start − clock offset − wire start| in ms, when the entry has a start and the offset is known.
    package var distanceMs: Double?
    /// True when only the host was compared (the wire exchange is encrypted and estimated).
    package var hostOnly: Bool

    package init(entry: Int, wire: Int, kind: Kind, distanceMs: Double? = nil, hostOnly: Bool = false) {
        self.entry = entry
        self.wire = wire
        self.kind = kind
        self.distanceMs = distanceMs
        self.hostOnly = hostOnly
    }
}

/// The outcome of matching one app log with the wire.
package struct AppLogMatchResult: Sendable {
    /// Sorted by entry.
    package var matches: [AppLogMatch]
    /// Entries no exchange matched (indices into the entries, in order).
    package var unmatchedEntries: [Int]
    /// Wire exchanges no entry matched (indices into the wire exchanges, in order).
    package var unmatchedWire: [Int]
    /// App clock − capture clock, in ms (an entry's app start − offset is its capture time); nil when
    /// the log has no absolute times (curl) or nothing could be paired by time.
    package var clockOffsetMs: Double?
}

/// Pairs app log entries with wire exchanges, one-to-one.
///
/// **Compatibility**: a pair is possible when the methods are equal (not compared when either is
/// unknown or the log's is a guess) and the normalised URLs (`AppLogURL`: scheme, lowercase host,
/// default port dropped, path + query, fragment ignored) are equal; against an encrypted estimated
/// exchange, whose path is unknown, scheme and host (+ port) must be equal (`host_only`). Wire
/// exchanges without a request (capture started mid-way) are never paired.
///
/// **Order of the passes**:
/// 1. *Connection*: entries that name their connection (curl's `local_port`, the app log's
///    `local_port`) are paired in log order with that client port's exchanges in wire order (start,
///    then connection id and index): each entry takes the next compatible exchange after the previous
///    pair, so the k-th transfer on port P is exchange k of P's connection.
/// 2. *Time*: entries with an absolute start. The clock offset is first estimated as the median of
///    (app start − wire start) over the connection pairs that have a start and the **unambiguous**
///    candidate pairs (the entry has exactly one compatible exchange and the exchange exactly one
///    compatible entry); failing those, URLs logged as often as seen on the wire are paired in time
///    order; failing that, the median over all candidate pairs. Then **greedy nearest start**: all
///    compatible pairs whose corrected distance |app start − offset − wire start| ≤ `maxDistance` are
///    taken by increasing distance (full URL before host-only, then log order), each side at most once.
///    Pairs that cross within a group of identical exchanges (same method and URL; starts closer than
///    the log's resolution) are uncrossed: entries in (start, log order) take those exchanges in start
///    order. The offset is re-estimated as the median over those pairs and the greedy pass run once
///    more with it (this is the reported `clock_offset_ms`).
/// 3. *Sequence*: entries with no start (curl without a connection) in log order ↔ the remaining
///    exchanges in start order, each taking the next compatible one.
package struct AppLogMatcher: Sendable {
    /// Largest distance (seconds, after the offset correction) of a time pair.
    package var maxDistance: Double

    package init(maxDistance: Double = 5) {
        self.maxDistance = maxDistance
    }

    package func match(_ entries: [AppLogEntry], _ wire: [AppLogWireExchange]) -> AppLogMatchResult {
        let urls = entries.map { AppLogURL($0.url) }
        var entryTaken = [Bool](repeating: false, count: entries.count)
        var wireTaken = [Bool](repeating: false, count: wire.count)
        var matches: [AppLogMatch] = []

        func compatible(_ e: Int, _ w: Int) -> AppLogMatch.Kind? {
            let entry = entries[e], exchange = wire[w]
            guard let app = urls[e], let seen = exchange.url else { return nil }
            if let method = entry.method, !entry.methodIsGuess, let wireMethod = exchange.method, method != wireMethod {
                return nil
            }
            if exchange.hostOnly {
                return app.scheme == seen.scheme && app.authority == seen.authority ? .hostOnly : nil
            }
            guard exchange.method != nil else { return nil }
            return app == seen ? .url : nil
        }
        let wireOrder = wire.indices.sorted {
            (wire[$0].start, wire[$0].connectionID, wire[$0].index, $0) < (wire[$1].start, wire[$1].connectionID, wire[$1].index, $1)
        }

        /// Each entry (in order) takes the next compatible free exchange of `candidates` after the last pair.
        func sequence(_ entryIndices: [Int], _ candidates: [Int], kind: AppLogMatch.Kind) {
            var next = 0
            for e in entryIndices {
                guard let position = candidates[next...].firstIndex(where: { !wireTaken[$0] && compatible(e, $0) != nil }) else { continue }
                let w = candidates[position]
                let found = compatible(e, w)!
                matches.append(AppLogMatch(entry: e, wire: w, kind: found == .hostOnly && kind == .sequence ? .hostOnly : kind,
                                           hostOnly: found == .hostOnly))
                entryTaken[e] = true
                wireTaken[w] = true
                next = position + 1
            }
        }

        // 1. Connection.
        var byPort: [Int: [Int]] = [:]
        for e in entries.indices { if let port = entries[e].localPort { byPort[port, default: []].append(e) } }
        for port in byPort.keys.sorted() {
            let entryIndices = byPort[port]!
            let remotePort = entryIndices.lazy.compactMap { entries[$0].remotePort }.first
            let candidates = wireOrder.filter {
                wire[$0].clientPort == port && (remotePort == nil || wire[$0].serverPort == remotePort)
            }
            sequence(entryIndices, candidates, kind: .connection)
        }

        // 2. Time.
        let timed = entries.indices.filter { !entryTaken[$0] && entries[$0].start != nil }
        var offset: Double? = nil  // seconds
        if !timed.isEmpty {
            var candidates: [(e: Int, w: Int, kind: AppLogMatch.Kind)] = []
            // Exchanges by URL, and host-only ones by scheme + authority: candidates without an
            // entries × exchanges scan.
            var byURL: [AppLogURL: [Int]] = [:], byHost: [String: [Int]] = [:]
            for w in wire.indices where !wireTaken[w] {
                guard let url = wire[w].url else { continue }
                if wire[w].hostOnly {
                    byHost[url.scheme + "://" + url.authority, default: []].append(w)
                } else {
                    byURL[url, default: []].append(w)
                }
            }
            for e in timed {
                guard let url = urls[e] else { continue }
                for w in (byURL[url] ?? []) + (byHost[url.scheme + "://" + url.authority] ?? []) {
                    if let kind = compatible(e, w) { candidates.append((e, w, kind)) }
                }
            }
            var differences = matches.compactMap { match in entries[match.entry].start.map { $0 - wire[match.wire].start } }
            var perEntry: [Int: Int] = [:], perWire: [Int: Int] = [:]
            for candidate in candidates {
                perEntry[candidate.e, default: 0] += 1
                perWire[candidate.w, default: 0] += 1
            }
            for candidate in candidates where perEntry[candidate.e] == 1 && perWire[candidate.w] == 1 {
                differences.append(entries[candidate.e].start! - wire[candidate.w].start)
            }
            if differences.isEmpty {
                // URLs logged exactly as often as seen: pair them in time order.
                var groups: [String: (entries: [Int], wire: Set<Int>)] = [:]
                for candidate in candidates {
                    let key = urls[candidate.e]!.description + " " + (entries[candidate.e].method ?? "")
                    if !(groups[key]?.entries.contains(candidate.e) ?? false) { groups[key, default: ([], [])].entries.append(candidate.e) }
                    groups[key, default: ([], [])].wire.insert(candidate.w)
                }
                for group in groups.values where group.entries.count == group.wire.count {
                    let appStarts = group.entries.map { entries[$0].start! }.sorted()
                    let wireStarts = group.wire.map { wire[$0].start }.sorted()
                    differences += zip(appStarts, wireStarts).map { $0 - $1 }
                }
            }
            if differences.isEmpty {
                differences = candidates.map { entries[$0.e].start! - wire[$0.w].start }
            }
            if let first = Self.median(differences) {
                let before = (matches, entryTaken, wireTaken)
                greedy(candidates, offset: first)
                let refined = Self.median(matches.filter { $0.kind == .url || $0.kind == .hostOnly }
                    .map { entries[$0.entry].start! - wire[$0.wire].start }) ?? first
                (matches, entryTaken, wireTaken) = before
                greedy(candidates, offset: refined)
                offset = refined
            }

            func greedy(_ candidates: [(e: Int, w: Int, kind: AppLogMatch.Kind)], offset: Double) {
                let scored = candidates.compactMap { candidate -> (Double, Int, Int, Int, AppLogMatch.Kind)? in
                    let distance = abs(entries[candidate.e].start! - offset - wire[candidate.w].start)
                    guard distance <= maxDistance else { return nil }
                    return (distance, candidate.kind == .url ? 0 : 1, candidate.e, candidate.w, candidate.kind)
                }.sorted { ($0.0, $0.1, $0.2, $0.3) < ($1.0, $1.1, $1.2, $1.3) }
                var taken: [AppLogMatch] = []
                for (distance, _, e, w, kind) in scored where !entryTaken[e] && !wireTaken[w] {
                    taken.append(AppLogMatch(entry: e, wire: w, kind: kind, distanceMs: distance * 1000, hostOnly: kind == .hostOnly))
                    entryTaken[e] = true
                    wireTaken[w] = true
                }
                matches += uncrossed(taken, offset: offset)
            }

            /// Greedy pairs can cross when starts are closer than the log's resolution (HAR: 1 ms):
            /// within each group of exchanges with the same method and URL (every entry paired with
            /// one of them fits all), entries in (start, log order) take the exchanges in start order.
            /// The same pairs' sum and maximum of distances never grow by uncrossing.
            func uncrossed(_ pairs: [AppLogMatch], offset: Double) -> [AppLogMatch] {
                var groups: [String: [AppLogMatch]] = [:]
                for pair in pairs {
                    let exchange = wire[pair.wire]
                    groups[(exchange.method ?? "") + " " + (exchange.url?.description ?? "") + (pair.hostOnly ? " host" : ""), default: []].append(pair)
                }
                var result: [AppLogMatch] = []
                for group in groups.values {
                    let entryOrder = group.map(\.entry).sorted { (entries[$0].start!, $0) < (entries[$1].start!, $1) }
                    let wireSorted = group.map(\.wire).sorted { (wire[$0].start, $0) < (wire[$1].start, $1) }
                    for (e, w) in zip(entryOrder, wireSorted) {
                        let kind = group[0].kind
                        let distance = abs(entries[e].start! - offset - wire[w].start) * 1000
                        result.append(AppLogMatch(entry: e, wire: w, kind: kind, distanceMs: distance, hostOnly: kind == .hostOnly))
                    }
                }
                return result
            }
        }
        // Connection pairs with a start get their distance too.
        if let offset {
            for i in matches.indices where matches[i].distanceMs == nil {
                if let start = entries[matches[i].entry].start {
                    matches[i].distanceMs = abs(start - offset - wire[matches[i].wire].start) * 1000
                }
            }
        } else if matches.contains(where: { entries[$0.entry].start != nil }) {
            // Only connection pairs carry times: their median difference is the offset.
            offset = Self.median(matches.compactMap { m in entries[m.entry].start.map { $0 - wire[m.wire].start } })
            if let offset {
                for i in matches.indices {
                    if let start = entries[matches[i].entry].start {
                        matches[i].distanceMs = abs(start - offset - wire[matches[i].wire].start) * 1000
                    }
                }
            }
        }

        // 3. Sequence.
        let untimed = entries.indices.filter { !entryTaken[$0] && entries[$0].start == nil }
        if !untimed.isEmpty { sequence(untimed, wireOrder, kind: .sequence) }

        matches.sort { $0.entry < $1.entry }
        return AppLogMatchResult(
            matches: matches, unmatchedEntries: entries.indices.filter { !entryTaken[$0] },
            unmatchedWire: wire.indices.filter { !wireTaken[$0] }, clockOffsetMs: offset.map { $0 * 1000 })
    }

    /// The median (mean of the two middle values for an even count); nil when empty.
    static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}
