import Foundation
import Testing
@testable import WireTally

/// The aioquic recordings (`captures/quic-*`) observed with their key logs: every packet and frame
/// equals tshark's decryption (`NAME.quic-frames.tsv`), and where tshark cannot follow (quic-versions'
/// connection after its Version Negotiation) the client's qlog (`NAME.qlog-packets.tsv`,
/// `qlog-frames.tsv`); the byte identities hold on every datagram and packet; the key update, 0-RTT,
/// QUIC v2 and the lossy path's retransmissions and duplicates all decrypt.
@Suite struct QUICKeyedCaptureTests {
    typealias K = QUICKeyedObservation
    static let recordings = TestPaths.recordedCaptures(beside: ".quic-frames.tsv")

    /// The connection tshark does not follow: quic-versions' second (after Version Negotiation).
    static func qlogOnlyPort(_ name: String) throws -> UInt16? {
        name == "quic-versions" ? try K.clientPort(name, conn: 1) : nil
    }

    @Test(arguments: recordings)
    func everyPacketAndFrameIsTsharks(_ name: String) throws {
        let observed = try K(keyed: name)
        let rows = Dictionary(grouping: try TruthTable.load(name, "quic-frames.tsv").rows) { $0.int("frame.number") ?? 0 }
        let skipped = try Self.qlogOnlyPort(name)
        var compared = 0
        for datagram in observed.datagrams {
            let context = "\(name) frame \(datagram.frame)"
            K.checkIdentities(datagram.contents, payloadLength: datagram.payloadLength, context)
            guard datagram.clientPort != skipped else { continue }
            let frameRows = rows[datagram.frame] ?? []
            let trailing = frameRows.first { $0["packet_type"] == "trailing" }?.int("packet_length") ?? 0
            #expect(datagram.contents.trailingBytes == trailing, "\(context)")
            let packets = Dictionary(grouping: frameRows.filter { $0["packet_type"] != "trailing" }) { $0.int("packet_index") ?? -1 }
            #expect(datagram.contents.packets.count == packets.count, "\(context)")
            for (index, packet) in datagram.contents.packets.enumerated() {
                guard let packetRows = packets[index], let first = packetRows.first else { continue }
                let where_ = "\(context) packet \(index)"
                #expect(K.typeName(packet.space) == first["packet_type"], "\(where_)")
                #expect(packet.range.count == first.int("packet_length"), "\(where_)")
                guard first["decrypted"] == "1", packet.space != nil else { continue }
                #expect(packet.decrypted, "\(where_)")
                #expect(packet.packetNumber.map(Int.init) == first.int("packet_number"), "\(where_)")
                if packet.space == .oneRTT { #expect(packet.keyPhase == (first["key_phase"] == "1"), "\(where_)") }
                #expect(packet.frameError == nil, "\(where_)")
                let frames = packetRows.filter { $0.int("frame_index") != nil }.sorted { $0.int("frame_index")! < $1.int("frame_index")! }
                #expect(packet.frames.count == frames.count, "\(where_)")
                for (frame, row) in zip(packet.frames, frames) { Self.check(frame, row, where_) }
                compared += 1
            }
        }
        #expect(compared > 0)
    }

    /// One frame against tshark's row: type, encoded size and the fields tshark shows.
    static func check(_ frame: QUICFrame, _ row: TruthTable.Row, _ context: String) {
        #expect(frame.type == UInt64(row.int("frame_type") ?? -1), "\(context)")
        #expect(frame.range.count == row.int("frame_bytes"), "\(context) type \(frame.type)")
        switch frame.kind {
        case let .stream(id, offset, data, fin):
            #expect(row.int("stream_id") == Int(id) && (row.int("offset") ?? 0) == Int(offset), "\(context)")
            #expect(row.int("length") == data.count && (row["fin"] == "1") == fin, "\(context)")
        case let .crypto(offset, data):
            #expect(row.int("offset") == Int(offset) && row.int("length") == data.count, "\(context)")
        case let .resetStream(id, code, size):
            #expect(row.int("stream_id") == Int(id) && row.int("error_code") == Int(code) && row.int("final_size") == Int(size), "\(context)")
        case let .stopSending(id, code):
            #expect(row.int("stream_id") == Int(id) && row.int("error_code") == Int(code), "\(context)")
        case let .connectionClose(code, _, _):
            #expect(row.int("error_code") == Int(code), "\(context)")
        case .padding:
            #expect(row.int("padding_length") == frame.range.count, "\(context)")
        default:
            break
        }
    }

    /// quic-versions' second connection (v1 after Version Negotiation) against the client's qlog: each
    /// datagram's packets (type, number, length, frames by name) and trailing bytes, in each direction.
    @Test func connectionAfterVersionNegotiationIsTheClientsQlog() throws {
        let name = "quic-versions"
        let port = try #require(try Self.qlogOnlyPort(name))
        let observed = try K(keyed: name)
        let qlog = try TruthTable.load(name, "qlog-packets.tsv").rows.filter {
            $0["vantage"] == "client" && $0["conn"] == "1" && $0["event"] != "dropped"
        }
        var compared = 0
        for fromClient in [true, false] {
            let ours = observed.datagrams.filter { $0.clientPort == port && $0.fromClient == fromClient }
            let theirs = Dictionary(grouping: qlog.filter { $0["direction"] == (fromClient ? "c2s" : "s2c") }) { $0.int("datagram") ?? -1 }
            #expect(ours.count == theirs.count)
            for (index, datagram) in ours.enumerated() {
                let rows = (theirs[index] ?? []).sorted { $0.int("packet_in_datagram")! < $1.int("packet_in_datagram")! }
                let context = "frame \(datagram.frame)"
                // the client's first Initial, of the unknown version 0x1a2a3a4a, is one opaque packet here
                if fromClient, index == 0 {
                    #expect(datagram.contents.packets.count == 1 && datagram.contents.packets[0].space == nil, "\(context)")
                    continue
                }
                #expect(datagram.contents.packets.count == rows.count, "\(context)")
                #expect(datagram.contents.trailingBytes == rows.first?.int("trailing_bytes"), "\(context)")
                for (packet, row) in zip(datagram.contents.packets, rows) {
                    #expect(K.typeName(packet.space) == row["packet_type"] && packet.range.count == row.int("length"), "\(context)")
                    guard packet.space != nil else { continue }
                    #expect(packet.decrypted && packet.packetNumber.map(Int.init) == row.int("packet_number"), "\(context)")
                    #expect(packet.frames.map { K.qlogName($0.type) } == row.list("frames"), "\(context)")
                    compared += 1
                }
            }
        }
        #expect(compared > 20)
    }

    /// Every connection: all its protected packets decrypted, the server's ALPN read from
    /// EncryptedExtensions; and each recording's feature.
    @Test(arguments: recordings)
    func everyConnectionDecryptsWithItsFeatures(_ name: String) throws {
        let observed = try K(keyed: name)
        for (port, observer) in observed.observers {
            let info = observer.info
            #expect(info.decryption?.status == "decrypted" && info.decryption?.failed == 0, "\(name) \(port): \(String(describing: info.decryption))")
            #expect(!info.flags.contains("decrypt_failed") && !info.flags.contains("malformed_frame"), "\(name) \(port) \(info.flags)")
            #expect(info.sawEncryptedExtensions && info.negotiatedALPN == "h3", "\(name) \(port)")
            #expect(info.tlsSession?.alpn == "h3" && info.tlsSession?.alpnSource == .encryptedExtensions, "\(name) \(port)")
            #expect((info.decryptedUp[.handshake] ?? 0) > 0 && (info.decryptedDown[.oneRTT] ?? 0) > 0, "\(name) \(port)")
            #expect(info.close?.isApplication == true && info.close?.errorCode == 256, "\(name) \(port)")  // H3_NO_ERROR
            for space in QUICPacketSpace.allCases {
                #expect((info.decryptedUp[space] ?? 0) == (info.up[space]?.packets ?? 0), "\(name) \(port) up \(space)")
                #expect((info.decryptedDown[space] ?? 0) == (info.down[space]?.packets ?? 0), "\(name) \(port) down \(space)")
            }
        }
        let infos = observed.observers.values.map(\.info)
        switch name {
        case "quic-sequential":
            // the client's key update, answered by the server's
            #expect(infos.map { $0.decryption?.keyUpdatesUp } == [1] && infos.map { $0.decryption?.keyUpdatesDown } == [1])
            let phaseOne = observed.datagrams.flatMap(\.contents.packets).filter { $0.keyPhase == true }
            #expect(!phaseOne.isEmpty && phaseOne.allSatisfy(\.decrypted))
        case "quic-resumption":
            #expect(infos.contains { ($0.decryptedUp[.zeroRTT] ?? 0) > 0 })
        case "quic-versions":
            #expect(infos.contains { $0.version == .v2 && ($0.decryptedDown[.oneRTT] ?? 0) > 0 })
        case "quic-lossy":
            // duplicated datagrams: the same packet number twice in a space and direction, both opened
            var seen: Set<String> = [], duplicates = 0
            for datagram in observed.datagrams {
                for packet in datagram.contents.packets where packet.decrypted {
                    let key = "\(datagram.fromClient) \(String(describing: packet.space)) \(packet.packetNumber ?? 0)"
                    if !seen.insert(key).inserted { duplicates += 1 }
                }
            }
            #expect(duplicates > 0)
        default:
            break
        }
    }

    /// Secrets that are not the connection's (every logged secret changed): nothing past the Initials
    /// decrypts, every such packet counts as failed, the connection is flagged; no key at all: no_key.
    @Test func wrongOrMissingKeysDecryptNothing() throws {
        let text = try String(contentsOfFile: TestPaths.capture("quic-sequential.keys"), encoding: .utf8)
        let wrong = text.split(separator: "\n").map { line -> String in
            var fields = line.split(separator: " ").map(String.init)
            if fields.count == 3 { fields[2] = String(fields[2].reversed()) }
            return fields.joined(separator: " ")
        }.joined(separator: "\n") + "\n"
        let observed = try K("quic-sequential", keys: TLSKeyStore([TLSKeyLog(Array(wrong.utf8))]))
        let info = try #require(observed.observers.values.first?.info)
        #expect(info.decryption?.decrypted == 0 && (info.decryption?.failed ?? 0) > 0 && info.decryption?.status == "failed")
        #expect(info.flags.contains("decrypt_failed") && info.decryptedInitialsUp > 0)
        for datagram in observed.datagrams {
            K.checkIdentities(datagram.contents, payloadLength: datagram.payloadLength, "wrong key")
            #expect(datagram.contents.packets.allSatisfy { $0.space == .initial || !$0.decrypted })
        }
        let none = try K("quic-sequential", keys: TLSKeyStore())
        #expect(none.observers.values.first?.info.decryption?.status == "no_key")
    }

    /// Without keys the observer still lists every packet (Initials decrypted) with the identities.
    @Test(arguments: recordings)
    func withoutKeysEveryPacketIsListed(_ name: String) throws {
        let observed = try K(name, keys: nil)
        for datagram in observed.datagrams {
            K.checkIdentities(datagram.contents, payloadLength: datagram.payloadLength, "\(name) \(datagram.frame)")
            #expect(datagram.contents.packets.allSatisfy { $0.space == .initial || !$0.decrypted })
        }
        #expect(observed.observers.values.allSatisfy { $0.info.decryption == nil })
    }

    /// A store that grows while capturing: packets before the connection's secrets arrive stay
    /// undecrypted (no key), those after decrypt (the secrets are looked up again): `partial`.
    @Test func growingStoreDecryptsOnceTheSecretsArrive() throws {
        let name = "quic-sequential"
        let datagrams = try QUICCaptureTests.datagrams(TestPaths.capture(name + ".pcap"))
        let store = TLSKeyStore([], growing: true)
        let observer = QUICConnectionObserver(keys: store)
        let half = datagrams.count / 2
        for (index, datagram) in datagrams.enumerated() {
            if index == half { store.add(TLSKeyLog(try Data(contentsOf: URL(fileURLWithPath: TestPaths.capture(name + ".keys"))))) }
            let contents = observer.observe(datagram.payload, fromClient: K.serverPorts.contains(datagram.destinationPort))
            #expect(contents.packets.allSatisfy { $0.space == .initial || $0.decrypted == (index >= half) }, "\(index)")
        }
        let counts = try #require(observer.info.decryption)
        #expect(counts.withoutKey > 0 && counts.decrypted > 0 && counts.failed == 0 && counts.status == "partial")
    }
}
