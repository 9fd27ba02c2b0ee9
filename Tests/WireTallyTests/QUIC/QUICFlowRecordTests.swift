import Foundation
import Testing
@testable import WireTally

/// The `quic` object of UDP flow records, through the whole pipeline (`AnalysisRun`, as `analyze
/// --format jsonl` writes it).
@Suite struct QUICFlowRecordTests {
    static func strings(_ value: JSONValue?) -> [String] {
        guard case let .array(values)? = value else { return [] }
        return values.map(\.plainText)
    }

    /// The Zeek capture's one flow carries Zeek's version, DCID, SCIDs, SNI and client protocol, and per
    /// space the packets and bytes the observer counts on the same datagrams (themselves equal to
    /// tshark's, `QUICCaptureTests.packetCountsPerSpaceEqualTshark`).
    @Test(.requires(.publicCaptures))
    func flowRecordCarriesTheQUICObject() throws {
        let name = QUICCaptureTests.name
        let path = try Requirement.publicCapture(name + ".pcap")
        let (writer, _) = CollectingWriter.analyze([path])
        #expect(writer.flows.count == 1)
        let flow = try #require(writer.flows.first)
        let quic = try #require(flow["quic"])
        let zeek = try #require(try QUICCaptureTests.zeekLog(try Requirement.publicCapture(name + ".quic.log")).first)
        #expect(quic.string("version") == zeek["version"])
        #expect(quic.string("dcid") == zeek["client_initial_dcid"])
        #expect(Self.strings(quic["scid"]) == [zeek["client_scid"]!, zeek["server_scid"]!])
        #expect(quic.string("sni") == zeek["server_name"])
        #expect(Self.strings(quic["alpn"]).first == zeek["client_protocol"])
        #expect(quic.string("cipher") == "TLS_AES_128_GCM_SHA256" && quic.string("tls_version") == "TLS 1.3")
        #expect(Self.strings(quic["transport_parameters"]).contains("initial_source_connection_id"))
        #expect(Self.strings(quic["flags"]).isEmpty)

        let observer = QUICConnectionObserver()
        let datagrams = try QUICCaptureTests.datagrams(path)
        for datagram in datagrams { observer.observe(datagram.payload, fromClient: datagram.sourcePort == 34347) }
        for space in QUICPacketSpace.allCases {
            #expect(quic.int("packets.\(space.rawValue).up.packets") == observer.info.up[space]?.packets ?? 0)
            #expect(quic.int("packets.\(space.rawValue).up.bytes") == observer.info.up[space]?.bytes ?? 0)
            #expect(quic.int("packets.\(space.rawValue).down.packets") == observer.info.down[space]?.packets ?? 0)
            #expect(quic.int("packets.\(space.rawValue).down.bytes") == observer.info.down[space]?.bytes ?? 0)
        }
        // every datagram's QUIC packets are counted: at least one packet per datagram and direction
        let packets = QUICPacketSpace.allCases.map { (quic.int("packets.\($0.rawValue).up.packets") ?? 0)
            + (quic.int("packets.\($0.rawValue).down.packets") ?? 0) }.reduce(0, +)
        #expect(packets >= datagrams.count)
    }

    /// DNS and other UDP flows have no `quic` member.
    @Test func otherUDPFlowsHaveNoQUICObject() throws {
        let (writer, _) = CollectingWriter.analyze([TestPaths.capture("dns-http.pcap")])
        #expect(!writer.flows.isEmpty)
        #expect(writer.flows.allSatisfy { $0["quic"] == nil })
    }
}
