import Foundation
import Testing
@testable import WireTally

/// The matcher on synthetic wire exchanges with a known clock offset.
@Suite struct AppLogMatcherTests {
    static let t0 = 1_795_324_582.0

    static func wire(_ id: Int, _ method: String?, _ url: String, at offset: Double, hostOnly: Bool = false, port: Int = 50000) -> AppLogWireExchange {
        AppLogWireExchange(
            id: id, connectionID: id, index: 0, clientPort: port, serverAddress: "10.0.0.1", serverPort: 80,
            method: method, url: AppLogURL(url), hostOnly: hostOnly, start: t0 + offset)
    }

    static func entry(_ sequence: Int, _ method: String?, _ url: String, at offset: Double?) -> AppLogEntry {
        AppLogEntry(sequence: sequence, line: sequence + 1, source: "", method: method, url: url, start: offset.map { t0 + $0 })
    }

    /// App clock 2.5 s ahead of the capture's, apps starting 0–3 ms before the first packet; three
    /// polls of the same URL 40 ms apart; an entry the capture missed and an exchange the app did not
    /// log; a POST to the same URL as a GET.
    @Test func clockOffsetDuplicatesAndUnmatched() {
        let skew = 2.5
        let wire = [
            Self.wire(1, "GET", "http://api.test/poll", at: 0.000),
            Self.wire(2, "GET", "http://api.test/poll", at: 0.040),
            Self.wire(3, "GET", "http://api.test/poll", at: 0.080),
            Self.wire(4, "GET", "http://api.test/config", at: 0.500),
            Self.wire(5, "POST", "http://api.test/items", at: 0.900),
            Self.wire(6, "GET", "http://api.test/items", at: 0.905),
            Self.wire(7, "GET", "http://other.test/tracker.gif", at: 1.200),  // not in the app's log
        ]
        // Log order is completion order, not start order.
        let entries = [
            Self.entry(0, "GET", "http://API.test:80/config", at: skew + 0.500 - 0.002),
            Self.entry(1, "GET", "http://api.test/poll", at: skew + 0.040 - 0.001),
            Self.entry(2, "GET", "http://api.test/poll", at: skew + 0.000 - 0.003),
            Self.entry(3, "GET", "http://api.test/poll", at: skew + 0.080 - 0.002),
            Self.entry(4, "GET", "http://api.test/items", at: skew + 0.905 - 0.001),
            Self.entry(5, "POST", "http://api.test/items", at: skew + 0.900 - 0.002),
            Self.entry(6, "GET", "http://api.test/never-sent", at: skew + 1.0),  // not on the wire
        ]
        let result = AppLogMatcher().match(entries, wire)
        let pairs = Dictionary(uniqueKeysWithValues: result.matches.map { ($0.entry, wire[$0.wire].id) })
        #expect(pairs == [0: 4, 1: 2, 2: 1, 3: 3, 4: 6, 5: 5])
        #expect(result.unmatchedEntries == [6])
        #expect(result.unmatchedWire == [6])
        let offset = try! #require(result.clockOffsetMs)
        #expect(abs(offset - 2498) < 1.01)  // 2.5 s minus the median head start (2 ms)
        #expect(result.matches.allSatisfy { $0.kind == .url && !$0.hostOnly && $0.distanceMs! <= 1.01 })
    }

    /// Without the offset correction the nearest pairs would be wrong: duplicates 10 ms apart with a
    /// skew of several of those intervals.
    @Test func offsetCorrectionResolvesDenseDuplicates() {
        let skew = -0.035
        var wire: [AppLogWireExchange] = [Self.wire(100, "GET", "http://api.test/unique", at: 0)]
        var entries = [Self.entry(0, "GET", "http://api.test/unique", at: skew)]
        for k in 0..<10 {
            wire.append(Self.wire(k + 1, "GET", "http://api.test/tick", at: 0.1 + Double(k) * 0.010))
            entries.append(Self.entry(k + 1, "GET", "http://api.test/tick", at: skew + 0.1 + Double(k) * 0.010 + 0.0005))
        }
        let result = AppLogMatcher().match(entries, wire)
        #expect(result.matches.count == 11)
        for match in result.matches where match.entry > 0 { #expect(wire[match.wire].id == match.entry) }
        #expect(abs(result.clockOffsetMs! - -35) < 0.51)
        #expect(result.unmatchedEntries.isEmpty && result.unmatchedWire.isEmpty)
    }

    @Test func maxDistanceMethodsAndHostOnly() {
        let wire = [
            Self.wire(1, "GET", "http://api.test/a", at: 0),
            Self.wire(2, nil, "https://secure.test/", at: 0.2, hostOnly: true),  // TLS, estimated
            Self.wire(3, "GET", "http://api.test/b", at: 30),
            Self.wire(4, "PUT", "http://api.test/c", at: 1),
        ]
        let entries = [
            Self.entry(0, "GET", "http://api.test/a", at: 0.001),
            Self.entry(1, "GET", "https://SECURE.test/path/x?y", at: 0.202),
            Self.entry(2, "GET", "http://api.test/b", at: 20),   // 10 s away: too far
            Self.entry(3, "GET", "http://api.test/c", at: 1),    // method differs
            Self.entry(4, "GET", "https://secure.test:8443/", at: 0.2),  // another port: not that host
        ]
        let result = AppLogMatcher().match(entries, wire)
        #expect(result.matches.map(\.entry) == [0, 1])
        #expect(result.matches[1].kind == .hostOnly && result.matches[1].hostOnly)
        #expect(result.unmatchedEntries == [2, 3, 4])
        #expect(result.unmatchedWire == [2, 3])
        #expect(abs(result.clockOffsetMs! - 1.5) < 0.01)
    }

    /// Entries with a connection (curl) pair by port and order; entries with neither time nor port
    /// by log order; no clock offset without times.
    @Test func connectionAndSequence() {
        var wire: [AppLogWireExchange] = []
        for (index, path) in ["/1", "/2", "/1"].enumerated() {
            var exchange = Self.wire(10 + index, "GET", "http://h.test" + path, at: Double(index), port: 41000)
            exchange.index = index
            exchange.connectionID = 1
            wire.append(exchange)
        }
        wire.append(Self.wire(20, "GET", "http://h.test/1", at: 0.5, port: 42000))
        wire.append(Self.wire(30, "GET", "http://h.test/z", at: 5, port: 43000))
        var entries = [
            Self.entry(0, "GET", "http://h.test/1", at: nil),
            Self.entry(1, "GET", "http://h.test/2", at: nil),
            Self.entry(2, "GET", "http://h.test/1", at: nil),
            Self.entry(3, "GET", "http://h.test/1", at: nil),
            Self.entry(4, "GET", "http://h.test/z", at: nil),
        ]
        for k in 0..<3 { entries[k].localPort = 41000 }
        entries[3].localPort = 42000
        let result = AppLogMatcher().match(entries, wire)
        #expect(result.matches.map { wire[$0.wire].id } == [10, 11, 12, 20, 30])
        #expect(result.matches.map(\.kind) == [.connection, .connection, .connection, .connection, .sequence])
        #expect(result.clockOffsetMs == nil)
        #expect(result.unmatchedEntries.isEmpty && result.unmatchedWire.isEmpty)
    }

    @Test func timingStatistics() {
        var wire = [Self.wire(1, "GET", "http://a.test/", at: 0), Self.wire(2, "GET", "http://a.test/x", at: 1)]
        wire[0].timing.connect = 1.0
        wire[0].timing.send = 0.1
        wire[0].timing.wait = 10
        wire[0].timing.total = 20
        wire[1].timing.send = 0.1
        wire[1].timing.wait = 5
        wire[1].timing.total = 8
        var entries = [Self.entry(0, "GET", "http://a.test/", at: 0), Self.entry(1, "GET", "http://a.test/x", at: 1)]
        entries[0].phases = AppLogPhases(dns: 2, connect: 1.5, ttfb: 11.1, total: 23)
        entries[1].phases = AppLogPhases(connect: 0, ttfb: 5.1, total: 9)
        let result = AppLogMatcher().match(entries, wire)
        let timings = AppLogTimingComparison(entries: entries, wire: wire, matches: result.matches)
        #expect(timings.phases[.dns]?.compared == 0)          // wire has no lookup
        #expect(timings.phases[.connect]?.compared == 1)      // reused connection: wire -1
        #expect(timings.phases[.connect]?.medianDiffMs == 0.5)
        #expect(timings.phases[.ttfb]?.compared == 2)
        #expect(abs(timings.phases[.ttfb]!.medianDiffMs! - 0.5) < 1e-9)
        #expect(timings.phases[.total]?.medianDiffMs == 2)
        #expect(timings.phases[.total]?.p95DiffMs == 3)
        #expect(timings.phases[.total]?.medianSignedDiffMs == 2)
        let json = timings.json.serialized
        #expect(json.hasPrefix(#"{"dns":{"compared":0,"median_diff_ms":null,"p95_diff_ms":null"#))
        #expect(json.contains(#""total":{"compared":2,"median_diff_ms":2.000,"p95_diff_ms":3.000"#))
    }
}
