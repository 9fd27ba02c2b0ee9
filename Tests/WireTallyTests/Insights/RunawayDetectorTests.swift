import Testing
@testable import WireTally

/// The detector on synthetic request timelines (seconds).
@Suite struct InsightsRunawayDetectorTests {
    let detector = RunawayDetector()

    /// A poller every `interval` s for `duration` s, each poll moved by up to ±`jitter` × interval and
    /// skipped with probability `miss`.
    static func polling(interval: Double, duration: Double, jitter: Double = 0, miss: Double = 0,
                        start: Double = 1_800_000_000, using generator: inout SeededGenerator) -> [Double] {
        var times: [Double] = []
        var k = 0.0
        while k * interval < duration {
            let offset = jitter > 0 ? Double.random(in: -jitter...jitter, using: &generator) * interval : 0
            if miss == 0 || Double.random(in: 0..<1, using: &generator) >= miss { times.append(start + k * interval + offset) }
            k += 1
        }
        return times.sorted()
    }

    /// Width the aggregator would choose: 1 s × 2^k with at most 16 windows.
    static func width(_ times: [Double]) -> Double {
        var width = 1.0
        while ((times.last! / width).rounded(.down) - (times.first! / width).rounded(.down) + 1) > 16 { width *= 2 }
        return width
    }

    func kinds(_ times: [Double]) -> [EndpointFlag.Kind] {
        detector.flags(times: times, width: Self.width(times)).map(\.kind)
    }

    @Test func steadyPollingAtAnyRateIsNotFlagged() {
        var generator = SeededGenerator(state: 1)
        for interval in [0.05, 0.2, 1, 5, 30] {
            let times = Self.polling(interval: interval, duration: interval * 200, using: &generator)
            #expect(kinds(times).isEmpty, "interval \(interval)")
        }
    }

    @Test func noisySteadyPollingIsNotFlagged() {
        // ±30 % jitter and 10 % missed polls, 300 timelines at several rates and lengths: no flag at all
        var flagged: [String] = []
        for seed in 0..<300 {
            var generator = SeededGenerator(state: UInt64(seed))
            let interval = [0.25, 1, 2, 10][seed % 4]
            let duration = [20.0, 60, 600][seed % 3] * max(1, interval)
            let times = Self.polling(interval: interval, duration: duration, jitter: 0.3, miss: 0.1, using: &generator)
            let found = kinds(times)
            if !found.isEmpty { flagged.append("seed \(seed) interval \(interval): \(found)") }
        }
        #expect(flagged.isEmpty, "\(flagged)")
    }

    @Test func leakedTimerStepGrowthIsRunaway() {
        // one more identical 1 s poller every 3 s, each started at another phase, for 21 s
        var generator = SeededGenerator(state: 7)
        var times: [Double] = []
        for poller in 0..<7 {
            let start = 1_800_000_000 + Double(poller) * 3 + Double(poller) * 0.37
            times += Self.polling(interval: 1, duration: 21 - Double(poller) * 3 - 0.4, jitter: 0.05, start: start, using: &generator)
        }
        times.sort()
        let flags = detector.flags(times: times, width: Self.width(times))
        let runaway = flags.first { $0.kind == .runaway }
        #expect(runaway != nil)
        #expect(!flags.contains { $0.kind == .burst })
        if case let .array(rates)? = runaway?.evidence["rates_per_min"] { #expect(rates.count >= 8) }
    }

    @Test func linearGrowthIsRunaway() {
        // interval shrinking from 2 s to 0.2 s over 2 minutes (rate 0.5/s → 5/s)
        var times: [Double] = []
        var t = 1_800_000_000.0, interval = 2.0
        while t < 1_800_000_120 {
            times.append(t)
            t += interval
            interval = max(0.2, interval * 0.97)
        }
        #expect(kinds(times).contains(.runaway))
    }

    @Test func slowButRealGrowthWithNoiseIsRunaway() {
        // a leaked 10 s timer every 60 s over 16 minutes, jittered: rate 1 → 16 per 10 s
        var generator = SeededGenerator(state: 11)
        var times: [Double] = []
        for poller in 0..<16 {
            times += Self.polling(interval: 10, duration: 960 - Double(poller) * 60, jitter: 0.3, miss: 0.1,
                                  start: 1_800_000_000 + Double(poller) * 60 + Double(poller) * 3.1, using: &generator)
        }
        times.sort()
        #expect(kinds(times).contains(.runaway))
    }

    @Test func growthOfAFewRequestsIsNotEnough() {
        // 1, 1, 2, 2, 3 requests per window: monotone but too little data to prove anything
        let times = [0.1, 2.1, 4.1, 4.6, 6.1, 6.6, 8.1, 8.4, 8.7].map { 1_800_000_000 + $0 }
        #expect(!kinds(times).contains(.runaway))
    }

    @Test func singleBurstIsABurstNotARunaway() {
        var generator = SeededGenerator(state: 3)
        var times = Self.polling(interval: 1, duration: 60, jitter: 0.2, using: &generator)
        // 40 requests within one second at t = 30 s
        times += (0..<40).map { 1_800_000_030.1 + Double($0) * 0.02 }
        times.sort()
        let flags = detector.flags(times: times, width: Self.width(times))
        let burst = flags.first { $0.kind == .burst }
        #expect(burst != nil)
        #expect(!flags.contains { $0.kind == .runaway })
        if case let .array(windows)? = burst?.evidence["windows"] {
            #expect(windows.count == 1)
            #expect(windows.first?.int("requests") ?? 0 >= 40)
        }
    }

    @Test func duplicatesAreFlagged() {
        // a 5 s poller whose every second poll is sent twice, 40 ms apart
        var events: [RequestEvent] = []
        for k in 0..<20 {
            let t = Int64(1_800_000_000) * 1_000_000_000 + Int64(k) * 5_000_000_000
            events.append(RequestEvent(time: t, identity: 42))
            if k % 2 == 0 { events.append(RequestEvent(time: t + 40_000_000, identity: 42)) }
        }
        let flag = detector.duplicates(events, label: { _ in "GET /x" })
        #expect(flag?.kind == .duplicate)
        #expect(flag?.evidence.int("duplicates") == 10)
        #expect(flag?.evidence["min_gap_ms"]?.plainText == "40.000")
    }

    @Test func differentRequestsCloseTogetherAreNotDuplicates() {
        // two different requests of the endpoint every second, 10 ms apart (e.g. /users/1 and /users/2)
        var events: [RequestEvent] = []
        for k in 0..<30 {
            let t = Int64(k) * 1_000_000_000
            events.append(RequestEvent(time: t, identity: 1))
            events.append(RequestEvent(time: t + 10_000_000, identity: 2))
        }
        #expect(detector.duplicates(events) == nil)
    }

    @Test func jitteredPollerIsNotItsOwnDuplicate() {
        var generator = SeededGenerator(state: 5)
        for interval in [0.5, 1.0, 3.0] {
            let times = Self.polling(interval: interval, duration: 300, jitter: 0.3, miss: 0.1, start: 0, using: &generator)
            let events = times.map { RequestEvent(time: Int64($0 * 1e9), identity: 9) }
            #expect(detector.duplicates(events) == nil, "interval \(interval)")
        }
    }

    @Test func kendallTau() {
        #expect(RunawayDetector.kendallTauB([1, 2, 3, 4]) == 1)
        #expect(RunawayDetector.kendallTauB([4, 3, 2, 1]) == -1)
        #expect(RunawayDetector.kendallTauB([2, 2, 2]) == 0)
        #expect(abs(RunawayDetector.kendallTauB([1, 1, 2, 2]) - 0.8165) < 0.001)
    }

    @Test func thresholdsAreParameters() {
        var thresholds = RunawayDetector.Thresholds()
        thresholds.minGrowth = 100
        let strict = RunawayDetector(thresholds: thresholds)
        let times = (0..<200).map { 1_800_000_000 + (Double($0) * 0.6).squareRoot() * 10 }  // accelerating
        #expect(detector.flags(times: times, width: Self.width(times)).contains { $0.kind == .runaway })
        #expect(!strict.flags(times: times, width: Self.width(times)).contains { $0.kind == .runaway })
    }
}
