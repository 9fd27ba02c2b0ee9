import Foundation
import Testing
@testable import WireTally

/// curl 8.1.2 speaking HTTP/3 to www.google.de (Zeek's test capture): one QUIC v1 connection.
/// What the observer reads without keys equals Zeek's quic.log and ssl.log and tshark's own Initial
/// decryption; its packet counts per space equal tshark's QUIC dissection packet by packet.
@Suite struct QUICCaptureTests {
    static let name = "zeek__quic__curl-8.1.2-dev-http3-www-google-de"

    /// Each UDP payload of the file with its source port, in order.
    static func datagrams(_ path: String) throws -> [(sourcePort: UInt16, destinationPort: UInt16, payload: [UInt8])] {
        var source = try CaptureFile.open(path: path)
        let decoder = PacketDecoder()
        var datagrams: [(sourcePort: UInt16, destinationPort: UInt16, payload: [UInt8])] = []
        var decoded = DecodedPacket.heldFragment
        while let packet = try source.nextPacket() {
            decoder.decode(packet, into: &decoded)
            if case let .udp(_, udp) = decoded {
                datagrams.append((udp.sourcePort, udp.destinationPort, Array(udp.payload)))
            }
        }
        return datagrams
    }

    /// Zeek's log rows (tab-separated, `#` lines skipped) as dictionaries by field name.
    static func zeekLog(_ path: String) throws -> [[String: String]] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var fields: [String] = []
        var rows: [[String: String]] = []
        for line in text.split(separator: "\n") {
            if line.hasPrefix("#fields") { fields = line.split(separator: "\t").dropFirst().map(String.init); continue }
            if line.hasPrefix("#") { continue }
            let values = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            rows.append(Dictionary(uniqueKeysWithValues: zip(fields, values)))
        }
        return rows
    }

    @Test(.requires(.publicCaptures, .tshark))
    func helloFieldsEqualZeekAndTshark() throws {
        let path = try Requirement.publicCapture(Self.name + ".pcap")
        let datagrams = try Self.datagrams(path)
        #expect(datagrams.count == 48)
        let clientPort = try #require(datagrams.first?.sourcePort)
        #expect(datagrams.allSatisfy { $0.sourcePort == clientPort || $0.destinationPort == clientPort })
        // detected by its first datagram, not by the port
        #expect(datagrams[0].payload.withUnsafeBytes { QUICPacketHeaderView.looksLikeQUIC($0) })
        let observer = QUICConnectionObserver()
        for datagram in datagrams { observer.observe(datagram.payload, fromClient: datagram.sourcePort == clientPort) }
        let info = observer.info
        #expect(info.flags.isEmpty, "\(info.flags)")

        // Zeek
        let quic = try Self.zeekLog(try Requirement.publicCapture(Self.name + ".quic.log"))
        let ssl = try Self.zeekLog(try Requirement.publicCapture(Self.name + ".ssl.log"))
        #expect(quic.count == 1 && ssl.count == 1)
        let zeek = try #require(quic.first), zeekSSL = try #require(ssl.first)
        #expect(zeek["id.orig_p"] == String(clientPort))
        #expect(info.version?.description == zeek["version"])
        #expect(info.originalDestinationConnectionID.map(QUICTestSupport.hex) == zeek["client_initial_dcid"])
        #expect(info.sourceConnectionIDs.map(QUICTestSupport.hex) == [zeek["client_scid"], zeek["server_scid"]].compactMap { $0 })
        #expect(info.serverName == zeek["server_name"])
        #expect(info.serverName == zeekSSL["server_name"])
        #expect(info.alpn.first == zeek["client_protocol"])
        #expect(info.tlsVersion == 0x0304 && zeekSSL["version"] == "TLSv13")
        #expect(TLSCipherSuite(code: info.cipherSuite ?? 0).name == zeekSSL["cipher"])

        // tshark decrypts the Initials itself: the client's and the server's hello fields
        let clientHellos = try Tshark.fields(path, filter: "tls.handshake.type == 1",
            ["tls.handshake.extensions_server_name", "quic.version", "tls.handshake.extensions_alpn_str"])
        #expect(clientHellos.count == 1)
        let client = try #require(clientHellos.first)
        #expect(info.serverName == client[0])
        #expect(client[1].split(separator: ",").allSatisfy { UInt32($0.dropFirst(2), radix: 16) == info.version?.rawValue })
        #expect(info.alpn.joined(separator: ",") == client[2])
        let serverHellos = try Tshark.fields(path, filter: "tls.handshake.type == 2",
            ["tls.handshake.ciphersuite", "tls.handshake.extensions.supported_version"])
        #expect(serverHellos.count == 1)
        let server = try #require(serverHellos.first)
        #expect(server[0] == String(format: "0x%04x", info.cipherSuite ?? 0))
        #expect(server[1] == String(format: "0x%04x", info.tlsVersion ?? 0))
    }

    /// Packets and bytes per space and direction equal tshark's QUIC packets (types and lengths,
    /// coalesced packets one by one).
    @Test(.requires(.publicCaptures, .tshark))
    func packetCountsPerSpaceEqualTshark() throws {
        let path = try Requirement.publicCapture(Self.name + ".pcap")
        let datagrams = try Self.datagrams(path)
        let clientPort = try #require(datagrams.first?.sourcePort)
        let observer = QUICConnectionObserver()
        for datagram in datagrams { observer.observe(datagram.payload, fromClient: datagram.sourcePort == clientPort) }
        let rows = try Tshark.fields(path, filter: "quic", ["udp.srcport", "quic.long.packet_type", "quic.packet_length"])
        #expect(rows.count == datagrams.count)
        var up: [QUICPacketSpace: QUICPacketCounters] = [:], down: [QUICPacketSpace: QUICPacketCounters] = [:]
        for row in rows {
            let types = row[1].split(separator: ",").compactMap { Int($0) }
            let lengths = row[2].split(separator: ",").compactMap { Int($0) }
            for (index, length) in lengths.enumerated() {
                let space: QUICPacketSpace = index < types.count
                    ? [QUICPacketSpace.initial, .zeroRTT, .handshake][types[index]] : .oneRTT
                if row[0] == String(clientPort) { up[space, default: QUICPacketCounters()].add(length) }
                else { down[space, default: QUICPacketCounters()].add(length) }
            }
        }
        #expect(observer.info.up == up)
        #expect(observer.info.down == down)
        #expect((up[.initial]?.packets ?? 0) > 0 && (down[.handshake]?.packets ?? 0) > 0 && (up[.oneRTT]?.packets ?? 0) > 0)
    }
}
