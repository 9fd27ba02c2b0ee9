import Foundation
import Testing

@testable import WireTally

/// The synthetic captures' HAR through the independent checkers too, including the synthesised parts
/// (a response without request, a request without response).
@Suite struct HARSyntheticValidationTests {
    /// A connection picked up mid-stream: only a response (and the client's ACK) was captured.
    static func responseOnlyCapture() -> [UInt8] {
        let server = "[2001:db8::2]:80"
        let response = ascii("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Type: text/plain\r\n\r\nhello")
        return FrameBuilder.pcap(frames: [
            FrameBuilder.tcp(from: "[2001:db8::1]:40000", to: server, seq: 7000, ack: 9000, flags: [.ack]),
            FrameBuilder.tcp(from: server, to: "[2001:db8::1]:40000", seq: 9000, ack: 7000, flags: [.ack, .psh], payload: response),
            FrameBuilder.tcp(from: "[2001:db8::1]:40000", to: server, seq: 7000, ack: 9000 + UInt32(response.count), flags: [.ack]),
        ], link: .ethernet)
    }

    static func files() throws -> [String] {
        let responseOnly = HARTestSupport.directory.appendingPathComponent("synthetic-response-only.pcap")
        try Data(responseOnlyCapture()).write(to: responseOnly)
        let full = HARTestSupport.directory.appendingPathComponent("synthetic-validation.pcap")
        try Data(HARSyntheticCaptureTests.capture()).write(to: full)
        return [
            try HARTestSupport.har([responseOnly.path], name: "synthetic-response-only").path,
            try HARTestSupport.har([full.path], name: "synthetic-validation").path,
        ]
    }

    @Test func responseWithoutRequest() throws {
        let path = HARTestSupport.directory.appendingPathComponent("synthetic-response-only-2.pcap")
        try Data(Self.responseOnlyCapture()).write(to: path)
        let entries = HARTestSupport.entries(try HARTestSupport.har([path.path], name: "synthetic-response-only-2").log)
        let entry = try #require(entries.first)
        #expect(entries.count == 1)
        #expect(entry.string("request.method") == "")
        #expect(entry.string("request.url") == "")
        #expect(entry.int("request.headersSize") == -1)
        #expect((entry.at("_flags") as? [String])?.contains("no_request") == true)
        #expect(entry.int("response.status") == 200)
        #expect(entry.string("response.content.text") == "hello")
        #expect(entry.string("serverIPAddress") == "2001:db8::2")
        #expect(entry.double("timings.send") == 0)
        #expect(entry.double("timings.connect") == -1)
    }

    @Test func requestWithoutMethodIsAnHTTPSURL() {
        let origin = PacketOrigin(frameNumber: 1, timestamp: Timestamp(nanoseconds: 0))
        let message = HTTPMessage(kind: .request, exchangeIndex: 0, streamRange: 0..<0, version: "",
                                  firstOrigin: origin, lastOrigin: origin)
        for (server, port, url) in [("10.0.0.9", UInt16(443), "https://10.0.0.9"), ("10.0.0.9", 8443, "https://10.0.0.9:8443"),
                                    ("2001:db8::9", 443, "https://[2001:db8::9]")] {
            let connection = ExchangeConnection(
                transport: .tcp, id: 1, client: IPAddress("10.0.0.1") ?? IPAddress(ipv4: 1), clientPort: 5000,
                server: IPAddress(server)!, serverPort: port, firstTimestamp: Timestamp(nanoseconds: 0), owner: nil,
                wire: ExchangeWire(), tlsSession: nil, protection: .cleartext)
            #expect(HAREntry.url(of: message, connection: connection) == url)
        }
    }

    @Test(.requires(.jsonschema))
    func schemaAcceptsTheSynthesisedParts() throws {
        let check = try HARTestSupport.check(["schema", HARTestSupport.schema], files: try Self.files())
        #expect(check.status == 0, "\(check.output)")
    }

    @Test(.requires(.haralyzer))
    func haralyzerLoadsTheSynthesisedParts() throws {
        let files = try Self.files()
        let check = try HARTestSupport.check(["haralyzer"], files: files)
        #expect(check.status == 0, "\(check.output)")
        #expect(check.results[files[0]]?["entries"] as? Int == 1)
        #expect(check.results[files[0]]?["requests"] as? Int == 0)
        #expect(check.results[files[1]]?["entries"] as? Int == 4)
    }
}
