import Foundation
import Testing

@testable import WireTally

/// A capture built frame by frame: query strings, cookies, a redirect, a urlencoded form, a gzip
/// response, a binary response, a request without response — and exact timings.
@Suite struct HARSyntheticCaptureTests {
    static let client = "10.1.0.1:50000"
    static let server = "10.1.0.2:8080"
    static let t0: Int64 = 1_700_000_000_000_000_000

    static let request1 = ascii(
        "GET /search?q=caf%C3%A9+cr%C3%A8me&tag=a&tag=b&empty=&flag&x=%ZZ HTTP/1.1\r\nHost: shop.example\r\n"
            + "Cookie: session=abc123; theme=dark\r\nCookie: extra=1\r\n\r\n")
    static let response1 = ascii(
        "HTTP/1.1 302 Found\r\nLocation: /login?next=%2Fsearch\r\n"
            + "Set-Cookie: session=xyz; Path=/; Domain=shop.example; HttpOnly; Secure; Max-Age=60\r\n"
            + "Set-Cookie: old=gone; Expires=Thu, 01 Jan 1970 00:00:00 GMT\r\nContent-Length: 0\r\n\r\n")
    static let form = "user=J%C3%BCrgen+M&pass=p%26ss&remember"
    static let request2 = ascii(
        "POST /login HTTP/1.1\r\nHost: shop.example\r\nContent-Type: application/x-www-form-urlencoded\r\n"
            + "Content-Length: \(form.utf8.count)\r\n\r\n\(form)")
    static let page = ascii(String(repeating: "<p>hello wire</p>\n", count: 40))
    static let gzipped = Compression.compress(page, .gzip)
    static let response2 = ascii(
        "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Encoding: gzip\r\n"
            + "Content-Length: \(gzipped.count)\r\n\r\n") + gzipped
    static let request3 = ascii("GET /logo.png HTTP/1.1\r\nHost: shop.example\r\n\r\n")
    static let png: [UInt8] = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0xff, 0xfe]
    static let response3 = ascii("HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: \(png.count)\r\n\r\n") + png
    static let request4 = ascii("GET http://other.example/abs?z=1 HTTP/1.1\r\nHost: other.example\r\n\r\n")

    /// Frames and their times in milliseconds after t0.
    static func capture() -> [UInt8] {
        var frames: [[UInt8]] = []
        var times: [Int64] = []
        var clientSeq: UInt32 = 1001, serverSeq: UInt32 = 5001
        func add(_ ms: Int64, _ frame: [UInt8]) {
            frames.append(frame)
            times.append(ms)
        }
        func up(_ ms: Int64, _ payload: [UInt8]) {
            add(ms, FrameBuilder.tcp(from: client, to: server, seq: clientSeq, ack: serverSeq, flags: [.ack, .psh], payload: payload))
            clientSeq += UInt32(payload.count)
        }
        func down(_ ms: Int64, _ payload: [UInt8]) {
            add(ms, FrameBuilder.tcp(from: server, to: client, seq: serverSeq, ack: clientSeq, flags: [.ack, .psh], payload: payload))
            serverSeq += UInt32(payload.count)
        }
        add(0, FrameBuilder.tcp(from: client, to: server, seq: 1000, flags: [.syn]))
        add(2, FrameBuilder.tcp(from: server, to: client, seq: 5000, ack: 1001, flags: [.syn, .ack]))
        add(4, FrameBuilder.tcp(from: client, to: server, seq: 1001, ack: 5001, flags: [.ack]))
        up(5, request1)
        down(15, response1)
        up(20, Array(request2.prefix(60)))
        up(23, Array(request2.dropFirst(60)))
        down(40, Array(response2.prefix(50)))
        down(47, Array(response2.dropFirst(50)))
        up(50, request3)
        down(51, response3)
        up(60, request4)  // never answered
        let stamps = times.map { Timestamp(nanoseconds: t0 + $0 * 1_000_000) }
        return FrameBuilder.pcap(frames: frames, link: .ethernet, timestamps: stamps)
    }

    /// The capture's HAR entries (`name` keeps tests running in parallel apart).
    static func har(_ name: String = #function) throws -> [[String: Any]] {
        let name = "synthetic-" + name.filter { $0.isLetter }
        let path = HARTestSupport.directory.appendingPathComponent(name + ".pcap")
        try Data(capture()).write(to: path)
        return HARTestSupport.entries(try HARTestSupport.har([path.path], name: name).log)
    }

    static func pairs(_ value: Any?) -> [String] {
        ((value as? [[String: Any]]) ?? []).map { "\($0["name"] as? String ?? "?")=\($0["value"] as? String ?? "?")" }
    }

    @Test func queryStringAndCookies() throws {
        let entries = try Self.har()
        #expect(entries.count == 4)
        let first = try #require(entries.first)
        #expect(first.string("request.url") == "http://shop.example/search?q=caf%C3%A9+cr%C3%A8me&tag=a&tag=b&empty=&flag&x=%ZZ")
        #expect(Self.pairs(first.at("request.queryString"))
            == ["q=café crème", "tag=a", "tag=b", "empty=", "flag=", "x=%ZZ"])
        #expect(Self.pairs(first.at("request.cookies")) == ["session=abc123", "theme=dark", "extra=1"])
        let setCookies = try #require(first.at("response.cookies") as? [[String: Any]])
        #expect(setCookies.count == 2)
        #expect(setCookies[0]["name"] as? String == "session")
        #expect(setCookies[0]["value"] as? String == "xyz")
        #expect(setCookies[0]["path"] as? String == "/")
        #expect(setCookies[0]["domain"] as? String == "shop.example")
        #expect(setCookies[0]["httpOnly"] as? Bool == true)
        #expect(setCookies[0]["secure"] as? Bool == true)
        // Max-Age 60 from the response's first packet (t0 + 15 ms), milliseconds truncated.
        #expect(setCookies[0]["expires"] as? String == "2023-11-14T22:14:20.015Z")
        #expect(setCookies[1]["expires"] as? String == "1970-01-01T00:00:00.000Z")
        #expect(setCookies[1]["httpOnly"] as? Bool == false)
        #expect(first.string("response.redirectURL") == "/login?next=%2Fsearch")
        #expect(first.int("response.status") == 302)
        #expect(first.string("response.statusText") == "Found")
        #expect(first.string("serverIPAddress") == "10.1.0.2")
        #expect(first.string("connection") != nil)
        #expect(first.string("_connection.server") == Self.server)
        #expect(first.int("_connection.index") == 0)
    }

    @Test func sizesAreTheBytesOnTheStream() throws {
        let entries = try Self.har()
        let first = entries[0]
        let headEnd = Self.request1.count
        #expect(first.int("request.headersSize") == headEnd)
        #expect(first.int("request.bodySize") == 0)
        #expect(first.at("request.postData") == nil)
        #expect(first.int("response.headersSize") == Self.response1.count)
        #expect(first.int("response._transferSize") == Self.response1.count)
        // The handshake is the first exchange's: 2 SYN-side packets up (SYN, ACK) and one down.
        #expect(first.int("_wire.up.setup_ip_bytes") == 40 + 40)
        #expect(first.int("_wire.down.setup_ip_bytes") == 40)
        #expect(first.int("_wire.up.payload_bytes") == Self.request1.count)

        let login = entries[1]
        #expect(login.int("request.bodySize") == Self.form.utf8.count)
        #expect((login.int("request.headersSize") ?? 0) + (login.int("request.bodySize") ?? 0) == Self.request2.count)
        #expect(login.string("request.postData.mimeType") == "application/x-www-form-urlencoded")
        #expect(Self.pairs(login.at("request.postData.params")) == ["user=Jürgen M", "pass=p&ss", "remember="])
        #expect(login.at("request.postData.text") == nil)
        #expect(login.int("response.bodySize") == Self.gzipped.count)
        #expect(login.int("response._transferSize") == Self.response2.count)
        #expect(login.int("response.content.size") == Self.page.count)
        #expect(login.int("response.content.compression") == Self.page.count - Self.gzipped.count)
        #expect(login.string("response.content.mimeType") == "text/html; charset=utf-8")
        #expect(login.string("response.content.text") == String(decoding: Self.page, as: UTF8.self))

        let logo = entries[2]
        #expect(logo.string("response.content.encoding") == "base64")
        #expect(logo.string("response.content.text") == Data(Self.png).base64EncodedString())

        let unanswered = entries[3]
        #expect(unanswered.string("request.url") == "http://other.example/abs?z=1")
        #expect(Self.pairs(unanswered.at("request.queryString")) == ["z=1"])
        #expect(unanswered.int("response.status") == 0)
        #expect((unanswered.at("_flags") as? [String])?.contains("no_response") == true)
    }

    @Test func defaultTimingsFromThePackets() throws {
        let entries = try Self.har()
        let first = entries[0]
        // Starts at the SYN; connect = SYN → handshake ACK; send = one packet; wait 10; receive 0.
        #expect(first.string("startedDateTime") == "2023-11-14T22:13:20.000Z")
        #expect(first.double("timings.connect") == 4)
        #expect(first.double("timings.send") == 0)
        #expect(first.double("timings.wait") == 10)
        #expect(first.double("timings.receive") == 0)
        #expect(first.double("timings.dns") == -1)
        #expect(first.double("timings.ssl") == -1)
        #expect(first.double("time") == 14)
        let login = entries[1]
        #expect(login.string("startedDateTime") == "2023-11-14T22:13:20.020Z")
        #expect(login.double("timings.connect") == -1)
        #expect(login.double("timings.send") == 3)
        #expect(login.double("timings.wait") == 17)
        #expect(login.double("timings.receive") == 7)
        #expect(login.double("time") == 27)
        let unanswered = entries[3]
        #expect(unanswered.double("timings.wait") == 0)
        #expect(unanswered.double("timings.receive") == 0)
    }

    /// A full `ExchangeTiming` from the integrator: HAR's connect includes ssl, time is the sum.
    @Test func suppliedTimingIsConverted() throws {
        let path = HARTestSupport.directory.appendingPathComponent("synthetic-timing.pcap")
        try Data(Self.capture()).write(to: path)
        let log = try HARTestSupport.har([path.path], name: "synthetic-timing") { exchange, _ in
            var timing = ExchangeTiming()
            timing.dns = 1.5
            timing.connect = 2
            timing.ssl = 3.25
            timing.send = 0.001
            timing.wait = -1  // not seen: HAR needs a number ≥ 0
            timing.receive = 4
            timing.start = Timestamp(nanoseconds: Self.t0 + Int64(exchange.index) * 1_000_000_000 + 999_999)
            return timing
        }.log
        let entries = HARTestSupport.entries(log)
        let first = try #require(entries.first)
        #expect(first.string("startedDateTime") == "2023-11-14T22:13:20.000Z")
        #expect(entries[1].string("startedDateTime") == "2023-11-14T22:13:21.000Z")
        #expect(first.double("timings.connect") == 5.25)
        #expect(first.double("timings.ssl") == 3.25)
        #expect(first.double("timings.wait") == 0)
        #expect(abs((first.double("time") ?? 0) - (1.5 + 5.25 + 0.001 + 4)) < 1e-9)
    }
}
