import Foundation
import Testing
@testable import WireTally

/// Our HTTP exchanges against tshark's HTTP dissector (`NAME.http.tsv` written at recording time).
@Suite struct TsharkHTTPTests {
    static let withHTTPView = TestPaths.recordedCaptures(beside: ".http.tsv")

    /// What we parse that tshark's view does not show, per capture, and why (captures/README.md).
    /// Anything else we have more, or anything tshark has that we lack, fails.
    static let notInTshark: [String: (requests: Int, responses: Int, why: String)] = [
        "resets": (1, 3, "tshark does not complete the POST /drop whose body the server's RST cut (request_incomplete), nor the responses cut by the aborts and by /reset-mid (response_incomplete)"),
        "lossy": (0, 3, "tshark's HTTP dissector does not reassemble the three large responses (/blob.bin, /data.json twice) across the drops and reordering: their frames are `http` rows without a status"),
        "cancel": (0, 2, "tshark does not complete the two downloads the clients gave up on (response_incomplete, flag cancelled)"),
        "tls-cancel": (0, 1, "tshark (decrypting) does not complete the download the client gave up on; our estimate (no keys) has its response burst"),
        "nginx-pipelining": (0, 2, "tshark's dissector loses the last two pipelined responses of the one-write connection (204 /nocontent and the gzip /text.txt)"),
    ]

    /// Every request and response tshark parsed is one of ours on the same connection, in order, with
    /// the same method, target and status; message sizes agree with tshark's Content-Length (body,
    /// except HEAD and 304), Content-Encoding and chunked framing. We have exactly the documented
    /// number of messages more. On TLS connections (decrypted by tshark, estimated by us) the numbers
    /// of requests and responses agree (less the documented responses tshark does not complete). `http.tsv` is tshark's HTTP/1.x dissector: our HTTP/2 exchanges
    /// (h2c, parsed without keys) are compared with tshark's HTTP/2 frames by HTTP2TruthTests.
    @Test(arguments: withHTTPView)
    func everyMessageTsharkSeesIsOurs(_ name: String) throws {
        let tshark = try TsharkHTTP.load(name)
        let (writer, _) = CollectingWriter.analyze([TestPaths.capture(name + ".pcap")])
        var exchangesByConnection: [Int: [JSONValue]] = [:]
        for exchange in writer.exchanges { exchangesByConnection[exchange.int("conn.id") ?? -1, default: []].append(exchange) }
        var connectionsUsed: Set<Int> = []
        var matched = (requests: 0, responses: 0)
        for stream in tshark.streams {
            // The same 4-tuple twice (port reuse) is two streams and two connections, in the same order.
            guard let connection = writer.connections.first(where: {
                $0.port("client") == stream.clientPort && $0.port("server") == stream.serverPort && !connectionsUsed.contains($0.int("id")!)
            }) else {
                Issue.record("\(name): no connection for tshark stream \(stream.id) from port \(stream.clientPort)")
                continue
            }
            connectionsUsed.insert(connection.int("id")!)
            let ours = (exchangesByConnection[connection.int("id")!] ?? []).sorted { $0.int("conn.index")! < $1.int("conn.index")! }
            let label = "\(name) stream \(stream.id) port \(stream.clientPort)"
            if ours.contains(where: { $0.flagNames.contains("encrypted") }) {
                #expect(ours.count == stream.requests.count, "\(label): estimated exchanges = decrypted requests")
                // exact over the capture: the responses tshark does not complete are counted below
                #expect(ours.count { $0["response"] != .null } >= stream.responses.count, "\(label): estimated responses")
                matched.requests += stream.requests.count
                matched.responses += stream.responses.count
                continue
            }
            matched.requests += Self.matchRequests(stream.requests, ours, label)
            matched.responses += Self.matchResponses(stream.responses, ours, label)
        }
        // HTTP/1.x messages: requests; responses with their interim ones; of an h2c upgrade (HTTP/1.1
        // request, HTTP/2 response) the request and its 101.
        let http1 = writer.exchanges.filter { !$0.isHTTP2Exchange || $0.string("request.version") == "HTTP/1.1" }
        let ourResponses = writer.exchanges.reduce(0) { sum, exchange in
            if exchange["response"] == .null { return sum }
            if exchange.string("response.version") == "HTTP/2" { return sum + (exchange.flagNames.contains("upgraded") ? 1 : 0) }
            return sum + 1 + (exchange.int("response.interim.count") ?? 0)
        }
        let expected = Self.notInTshark[name] ?? (0, 0, "")
        #expect(http1.count - matched.requests == expected.requests, "\(name): requests we have that tshark does not")
        #expect(ourResponses - matched.responses == expected.responses, "\(name): responses we have that tshark does not")
        #expect(matched.requests == tshark.streams.reduce(0) { $0 + $1.requests.count }, "\(name): tshark requests matched")
        #expect(matched.responses == tshark.streams.reduce(0) { $0 + $1.responses.count }, "\(name): tshark responses matched")
    }

    /// Matches tshark's requests in order to ours (ours may have more in between); returns how many.
    static func matchRequests(_ requests: [TsharkHTTP.Request], _ ours: [JSONValue], _ label: String) -> Int {
        var next = 0, matched = 0
        for request in requests {
            guard let index = ours[next...].firstIndex(where: {
                $0.string("request.method") == request.method && $0.string("request.target") == request.uri
            }) else {
                Issue.record("\(label): tshark's \(request.method) \(request.uri) is not ours")
                continue
            }
            let exchange = ours[index]
            next = index + 1
            matched += 1
            if let length = request.contentLength {
                #expect(exchange.int("request.bytes.body") == length, "\(label) \(request.uri): request Content-Length")
            }
            #expect(((exchange.int("request.bytes.framing") ?? 0) > 0) == request.chunked, "\(label) \(request.uri): chunked request")
        }
        return matched
    }

    /// Matches tshark's responses in order to ours: final responses to our responses' status, 1xx
    /// responses to the interim responses of the exchange they precede; returns how many.
    static func matchResponses(_ responses: [TsharkHTTP.Response], _ ours: [JSONValue], _ label: String) -> Int {
        // Our responses as tshark lists them: interim ones first, then the final one.
        var flat: [(status: Int, exchange: JSONValue?)] = []
        for exchange in ours where exchange["response"] != .null {
            if exchange.string("response.version") == "HTTP/2" {
                // h2c by Upgrade: its 101 (an interim of the HTTP/2 response) is the HTTP/1.1 message
                if exchange.flagNames.contains("upgraded") { flat.append((101, nil)) }
                continue
            }
            flat += Array(repeating: (100, nil), count: exchange.int("response.interim.count") ?? 0)
            flat.append((exchange.int("response.status") ?? -1, exchange))
        }
        var next = 0, matched = 0
        for response in responses {
            guard let index = flat[next...].firstIndex(where: { $0.status == response.status }) else {
                Issue.record("\(label): tshark's response \(response.status) is not ours")
                continue
            }
            next = index + 1
            matched += 1
            guard let exchange = flat[index].exchange else { continue }
            let bodyless = exchange.string("request.method") == "HEAD" || response.status == 304
            if let length = response.contentLength, !bodyless {
                #expect(exchange.int("response.bytes.body") == length, "\(label) \(response.status): Content-Length")
            }
            if let encoding = response.contentEncoding {
                #expect((exchange.string("response.content_encoding") ?? "") == encoding, "\(label) \(response.status): Content-Encoding")
            }
            if let chunked = response.chunked {
                #expect(((exchange.int("response.bytes.framing") ?? 0) > 0) == chunked, "\(label) \(response.status): chunked")
            }
        }
        return matched
    }
}
