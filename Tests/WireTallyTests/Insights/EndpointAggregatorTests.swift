import Testing
@testable import WireTally

@Suite struct InsightsEndpointAggregatorTests {
    static let second: Int64 = 1_000_000_000
    static let origin: Int64 = 1_800_000_000 * second

    @Test func foldsPathsIntoEndpointsAndSharesAddUp() {
        let aggregator = EndpointAggregator()
        for id in 1...30 {
            aggregator.add(method: "GET", host: "API.example", target: "/users/\(id)?full=1", time: Self.origin + Int64(id) * Self.second,
                           up: 100, down: 300, identity: (UInt64(id), { "GET /users/\(id)" }))
        }
        aggregator.add(method: "POST", host: "api.example", target: "/users", time: Self.origin, up: 1000, down: 200, identity: nil)
        aggregator.add(method: nil, host: "cdn.example", target: nil, time: Self.origin + 5 * Self.second, up: 50, down: 50, identity: nil)
        let endpoints = aggregator.summaries()
        #expect(endpoints.map { "\($0.method ?? "-") \($0.host)\($0.path ?? "")" } == ["GET api.example/users/{id}", "POST api.example/users", "- cdn.example"])
        #expect(endpoints[0].requests == 30 && endpoints[0].upIPBytes == 3000 && endpoints[0].downIPBytes == 9000)
        #expect(abs(endpoints.reduce(0) { $0 + $1.share } - 1) < 1e-9)
        // 30 s span → 2 s windows; the windows hold every request
        #expect(aggregator.windowWidth == 2 * Self.second)
        #expect(endpoints[0].windows.reduce(0) { $0 + $1.requests } == 30)
        #expect(endpoints[0].flags.isEmpty)
        let json = aggregator.json()
        guard case let .array(list)? = json["endpoints"] else { Issue.record("no endpoints"); return }
        #expect(list[0].string("path") == "/users/{id}")
        #expect(list[2]["method"] == .null)
        #expect(list[0]["rate_windows"].map { if case let .array(windows) = $0 { windows.count } else { 0 } } == endpoints[0].windows.count)
    }

    @Test func memoryStaysBoundedOnALongCapture() {
        // one request per second for 10 hours: buckets coarsen, windows stay ≤ 16, counts are kept
        var options = EndpointAggregator.Options()
        options.maxBuckets = 256
        options.maxEventsPerEndpoint = 1000
        let aggregator = EndpointAggregator(options: options)
        for k in 0..<36_000 {
            aggregator.add(method: "GET", host: "h", target: "/poll", time: Self.origin + Int64(k) * Self.second,
                           up: 1, down: 1, identity: (1, { "GET h/poll" }))
        }
        let endpoint = aggregator.summaries()[0]
        #expect(endpoint.windows.count <= 16)
        #expect(endpoint.windows.reduce(0) { $0 + $1.requests } == 36_000)
        #expect(endpoint.examinedRequests == 1000)
        #expect(endpoint.flags.isEmpty)
    }

    @Test func endpointCapFoldsTheRestIntoOther() {
        var options = EndpointAggregator.Options()
        options.maxEndpoints = 3
        let aggregator = EndpointAggregator(options: options)
        for name in ["a", "b", "c", "d", "e"] {
            aggregator.add(method: "GET", host: "h", target: "/\(name)", time: Self.origin, up: 1, down: 1, identity: nil)
        }
        let endpoints = aggregator.summaries()
        #expect(endpoints.count == 4)
        #expect(endpoints.first { $0.path == "(other)" }?.requests == 2)
    }

    @Test func tableShowsFlagsAndEvidence() {
        let aggregator = EndpointAggregator()
        // a leaked timer: k requests in second k
        for k in 1...20 {
            for j in 0..<k {
                aggregator.add(method: "GET", host: "h", target: "/api/status", time: Self.origin + Int64(k) * Self.second + Int64(j) * (Self.second / Int64(k + 1)),
                               up: 10, down: 10, identity: (7, { "GET h/api/status" }))
            }
        }
        let text = EndpointSummaryWriter.table(aggregator.summaries(), windowWidth: aggregator.windowWidth, files: ["x.pcap"])
        #expect(text.contains("/api/status"))
        #expect(text.contains("runaway"))
        #expect(text.contains("↳ runaway: rate"))
    }
}
