/// One endpoint of the summary: method + host + path template, with its traffic and flags.
package struct EndpointSummary: Sendable {
    /// The process or app whose connections carried the requests (`TrafficOwner.label`), nil when the
    /// capture names none.
    package var app: String?
    /// Nil for exchanges without a readable request (encrypted, response without request).
    package var method: String?
    package var host: String
    /// The path template (`PathTemplate`); nil when the request target is unknown (encrypted).
    package var path: String?
    package var requests: Int
    /// IP bytes the ledger attributed to the endpoint's exchanges, client → server and back.
    package var upIPBytes: Int
    package var downIPBytes: Int
    /// `(up + down)` over the up + down IP bytes of every exchange of the capture (0…1).
    package var share: Double
    /// Requests per window, from the endpoint's first window to its last (empty windows included).
    package var windows: [RateWindow]
    package var flags: [EndpointFlag]
    /// Requests the duplicate test examined (all of them unless `maxEventsPerEndpoint` was reached).
    package var examinedRequests: Int
}

/// Collects `http` exchanges into endpoints (method, host, path template) and flags runaway,
/// duplicate and bursty ones (`RunawayDetector`).
///
/// **Memory is bounded** whatever the capture's length: per endpoint, request counts are kept in
/// time buckets aligned on the epoch, 1/8 s wide at first; when the capture's span would need more
/// than `maxBuckets` buckets their width doubles (every endpoint's buckets merge pairwise), so at
/// most `maxBuckets` buckets per endpoint exist. The output windows are sized from the span of the
/// whole capture's requests: the smallest width of 1 s × 2^k giving at most `targetWindows` windows
/// (a 21 s capture gets 2 s windows, an hour 4 min 16 s windows), aligned on multiples of the width,
/// shared by all endpoints so their rates line up. For the duplicate test the first
/// `maxEventsPerEndpoint` requests of each endpoint keep their time and an identity hash (FNV-1a of
/// method, host, target with query, the conditional and range headers, body length and the retained
/// body, if any). Captures that name the process or app of each connection (PKTAP, Apple or PCAPdroid
/// pcapng, PCAPdroid trailers) split endpoints by app too, and list them app by app. Past `maxEndpoints`
/// endpoints, new ones are counted together as method `*`, host `*`, path `(other)`.
package final class EndpointAggregator {
    package struct Options: Sendable {
        package var maxEndpoints = 10_000
        package var maxBuckets = 4096
        package var maxEventsPerEndpoint = 20_000
        package var targetWindows = 16
        /// Output windows are this many nanoseconds times a power of two (1 s).
        package var minWindowNanoseconds: Int64 = 1_000_000_000
        package var thresholds = RunawayDetector.Thresholds()
        package init() {}
    }

    struct Key: Hashable {
        var app: String?
        var method: String?
        var host: String
        var path: String?
    }

    final class Endpoint {
        var requests = 0
        var up = 0
        var down = 0
        var first = Int64.max
        var last = Int64.min
        /// Requests per bucket, by bucket index (time / bucketWidth).
        var buckets: [Int64: Int] = [:]
        var events: [RequestEvent] = []
    }

    package let options: Options
    private var endpoints: [Key: Endpoint] = [:]
    private var bucketWidth: Int64 = 125_000_000
    private var firstTime = Int64.max
    private var lastTime = Int64.min
    private var labels: [UInt64: String] = [:]
    private static let maxLabels = 10_000
    /// Headers that make a request a different request for the duplicate test.
    static let identityHeaders = ["If-None-Match", "If-Modified-Since", "Range", "If-Range", "If-Match"]
    /// The path of the endpoint that counts every request beyond `maxEndpoints`.
    package static let otherPath = "(other)"
    private static let otherKey = Key(method: "*", host: "*", path: otherPath)

    package init(options: Options = Options()) { self.options = options }

    /// Takes the exchanges of a record stream; other records are ignored.
    package func add(_ record: AnalysisRecord) {
        if case let .exchange(exchangeRecord) = record { add(exchangeRecord.exchange, connection: exchangeRecord.connection) }
    }

    /// Adds one exchange: its endpoint, time (first request packet, else first response packet) and
    /// wire bytes.
    package func add(_ exchange: HTTPExchange, connection: ExchangeConnection) {
        let wire = connection.wire
        let up = wire.tally(.up).total.ipBytes, down = wire.tally(.down).total.ipBytes
        let time = (exchange.request?.firstOrigin.timestamp ?? exchange.response?.firstOrigin.timestamp ?? connection.firstTimestamp).nanoseconds
        let host = Self.request(of: exchange, connection: connection).host
        guard let request = exchange.request else {
            add(method: nil, host: host, target: nil, time: time, up: up, down: down, identity: nil,
                app: connection.owner?.label)
            return
        }
        var hasher = FNV1a()
        hasher.add(request.method ?? "")
        hasher.add(host)
        hasher.add(request.target ?? "")
        hasher.add(String(request.bytes.body))
        // a revalidation or a range request is not a repeat of the plain fetch
        for name in Self.identityHeaders { hasher.add(request.header(name) ?? "") }
        if let body = request.retainedBody { hasher.add(body) }
        let label = { (request.method ?? "-") + " " + (request.target.map { $0.hasPrefix("/") ? host + $0 : $0 } ?? host) }
        add(method: request.method, host: host, target: request.target, time: time, up: up, down: down,
            identity: (hasher.value, label), app: connection.owner?.label)
    }

    /// The method, host and target an exchange is summarised by (method and target nil when the
    /// capture missed its request).
    package static func request(of exchange: HTTPExchange, connection: ExchangeConnection) -> (method: String?, host: String, target: String?) {
        guard let request = exchange.request else { return (nil, exchange.serverName ?? connection.serverEndpoint, nil) }
        let host = RecordEncoding.host(
            of: request, fallback: ExchangeConnection.fallbackHost(serverName: exchange.serverName, server: connection.server))
        return (request.method, host, request.target)
    }

    /// The endpoint a request counts for, as `summaries()` names it: method, host lowercased, path
    /// template of the target (ids folded).
    package static func endpoint(method: String?, host: String, target: String?) -> (method: String?, host: String, path: String?) {
        (method, host.lowercased(), target.map(PathTemplate.template(of:)))
    }

    /// Adds one request by its parts (`target` as sent; nil when unknown). `identity` is the hash the
    /// duplicate test compares, with the label for the evidence (made only for a hash not labelled
    /// yet); `app` the process or app that sent it.
    package func add(method: String?, host: String, target: String?, time: Int64, up: Int, down: Int,
                    identity: (hash: UInt64, label: () -> String)?, app: String? = nil) {
        let name = Self.endpoint(method: method, host: host, target: target)
        let key = Key(app: app, method: name.method, host: name.host, path: name.path)
        let endpoint: Endpoint
        if let existing = endpoints[key] {
            endpoint = existing
        } else if endpoints.count >= options.maxEndpoints {
            if let other = endpoints[Self.otherKey] { endpoint = other } else { endpoint = Endpoint(); endpoints[Self.otherKey] = endpoint }
        } else {
            endpoint = Endpoint()
            endpoints[key] = endpoint
        }
        endpoint.requests += 1
        endpoint.up += up
        endpoint.down += down
        endpoint.first = min(endpoint.first, time)
        endpoint.last = max(endpoint.last, time)
        firstTime = min(firstTime, time)
        lastTime = max(lastTime, time)
        while Self.index(lastTime, bucketWidth) - Self.index(firstTime, bucketWidth) + 1 > Int64(options.maxBuckets) {
            coarsen()
        }
        endpoint.buckets[Self.index(time, bucketWidth), default: 0] += 1
        if let identity, endpoint.events.count < options.maxEventsPerEndpoint {
            endpoint.events.append(RequestEvent(time: time, identity: identity.hash))
            if labels.count < Self.maxLabels, labels[identity.hash] == nil { labels[identity.hash] = identity.label() }
        }
    }

    /// Doubles the bucket width, merging every endpoint's buckets pairwise.
    private func coarsen() {
        bucketWidth *= 2
        for endpoint in endpoints.values {
            var merged: [Int64: Int] = [:]
            for (index, count) in endpoint.buckets { merged[Self.floorDiv(index, 2), default: 0] += count }
            endpoint.buckets = merged
        }
    }

    private static func floorDiv(_ value: Int64, _ divisor: Int64) -> Int64 {
        value >= 0 ? value / divisor : (value - divisor + 1) / divisor
    }

    private static func index(_ time: Int64, _ width: Int64) -> Int64 { floorDiv(time, width) }

    /// The width of the output windows (nanoseconds): see the type's documentation.
    package var windowWidth: Int64 {
        var width = max(options.minWindowNanoseconds, bucketWidth)
        // keep it a multiple of the bucket width
        if width % bucketWidth != 0 { width = bucketWidth * (width / bucketWidth + 1) }
        guard firstTime <= lastTime else { return width }
        while Self.index(lastTime, width) - Self.index(firstTime, width) + 1 > Int64(max(1, options.targetWindows)) { width *= 2 }
        return width
    }

    /// Exchanges added.
    package var exchangeCount: Int { endpoints.values.reduce(0) { $0 + $1.requests } }

    /// Every endpoint with its windows and flags, by wire bytes (up + down) descending; with apps, app
    /// by app (the app with the most bytes first), then so within each app.
    package func summaries() -> [EndpointSummary] {
        let width = windowWidth
        let factor = width / bucketWidth
        let detector = RunawayDetector(thresholds: options.thresholds)
        let total = endpoints.values.reduce(0) { $0 + $1.up + $1.down }
        var result: [EndpointSummary] = []
        for (key, endpoint) in endpoints {
            var counts: [Int64: Int] = [:]
            for (index, count) in endpoint.buckets { counts[Self.floorDiv(index, factor), default: 0] += count }
            let firstWindow = Self.index(endpoint.first, width), lastWindow = Self.index(endpoint.last, width)
            let windows = (firstWindow...lastWindow).map { index in
                RateWindow(start: index * width, end: (index + 1) * width, requests: counts[index] ?? 0,
                           coveredSeconds: RateWindow.covered(start: index * width, end: (index + 1) * width,
                                                              first: endpoint.first, last: endpoint.last))
            }
            let events = endpoint.events.sorted { ($0.time, $0.identity) < ($1.time, $1.identity) }
            let flags = detector.flags(windows: windows, requests: events, label: { self.labels[$0] ?? "" })
            result.append(EndpointSummary(
                app: key.app, method: key.method, host: key.host, path: key.path, requests: endpoint.requests,
                upIPBytes: endpoint.up, downIPBytes: endpoint.down,
                share: total > 0 ? Double(endpoint.up + endpoint.down) / Double(total) : 0,
                windows: windows, flags: flags, examinedRequests: events.count))
        }
        let appBytes = Dictionary(result.map { ($0.app ?? "", $0.upIPBytes + $0.downIPBytes) }, uniquingKeysWith: +)
        return result.sorted {
            let (a, b) = (appBytes[$0.app ?? ""] ?? 0, appBytes[$1.app ?? ""] ?? 0)
            if a != b || $0.app != $1.app { return (a, $1.app ?? "") > (b, $0.app ?? "") }
            return ($0.upIPBytes + $0.downIPBytes, $1.method ?? "", $1.host, $1.path ?? "")
                > ($1.upIPBytes + $1.downIPBytes, $0.method ?? "", $0.host, $0.path ?? "")
        }
    }

    /// Requests and IP bytes per app, in `summaries()` order; empty when the capture names no app.
    package static func apps(_ endpoints: [EndpointSummary]) -> [(app: String, requests: Int, up: Int, down: Int)] {
        var apps: [(app: String, requests: Int, up: Int, down: Int)] = []
        for endpoint in endpoints {
            guard let app = endpoint.app else { continue }
            if apps.last?.app != app { apps.append((app, 0, 0, 0)) }
            apps[apps.count - 1].requests += endpoint.requests
            apps[apps.count - 1].up += endpoint.upIPBytes
            apps[apps.count - 1].down += endpoint.downIPBytes
        }
        return apps
    }

    /// `{"endpoints":[…],"window_seconds":…}` — see README (`--summary`).
    package func json() -> JSONValue {
        let endpoints = summaries()
        var members: [(String, JSONValue)] = [
            ("endpoints", .array(endpoints.map(Self.json))),
            ("window_seconds", .number(RunawayDetector.format(Double(windowWidth) / 1e9, digits: 3))),
            ("exchanges", .integer(exchangeCount)),
        ]
        let apps = Self.apps(endpoints)
        if !apps.isEmpty {
            members.append(("apps", .array(apps.map { app in
                .object([("app", .string(app.app)), ("requests", .integer(app.requests)),
                         ("up_ip_bytes", .integer(app.up)), ("down_ip_bytes", .integer(app.down))])
            })))
        }
        return .object(members)
    }

    /// One endpoint's JSON object.
    package static func json(_ endpoint: EndpointSummary) -> JSONValue {
        .object((endpoint.app.map { [("app", JSONValue.string($0))] } ?? []) + [
            ("method", endpoint.method.map(JSONValue.string) ?? .null),
            ("host", .string(endpoint.host)),
            ("path", endpoint.path.map(JSONValue.string) ?? .null),
            ("requests", .integer(endpoint.requests)),
            ("up_ip_bytes", .integer(endpoint.upIPBytes)),
            ("down_ip_bytes", .integer(endpoint.downIPBytes)),
            ("share", .number(RunawayDetector.format(endpoint.share, digits: 4))),
            ("rate_windows", .array(endpoint.windows.map { window in
                .object([
                    ("start", .number(RunawayDetector.seconds(window.start))),
                    ("end", .number(RunawayDetector.seconds(window.end))),
                    ("requests", .integer(window.requests)),
                    ("rate_per_min", .number(RunawayDetector.format(window.ratePerMinute, digits: 2))),
                ])
            })),
            ("flags", .array(endpoint.flags.map { .string($0.kind.rawValue) })),
            ("evidence", .object(endpoint.flags.map { ($0.kind.rawValue, $0.evidence) })),
        ])
    }
}

/// 64-bit FNV-1a, for request identities (not cryptographic: a collision only merges two requests in
/// the duplicate test).
struct FNV1a {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func add(_ bytes: some Sequence<UInt8>) {
        for byte in bytes {
            value ^= UInt64(byte)
            value = value &* 0x0000_0100_0000_01b3
        }
        // field separator, so that ("ab","c") and ("a","bc") differ
        value ^= 0xff
        value = value &* 0x0000_0100_0000_01b3
    }

    mutating func add(_ string: String) { add(string.utf8) }
}
