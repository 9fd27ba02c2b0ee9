import Foundation
import Testing
@testable import WireTally

/// QUIC connections as `{"type":"connection","transport":"quic"}` records, through the whole pipeline
/// (`AnalysisRun`, as `analyze --format jsonl` writes them): what Zeek and tshark say of the Zeek
/// capture, and how the tracker follows a connection by its IDs when the capture's datagrams are
/// moved to another port (NAT rebinding), repeated after a pause (idle timeout) or reused by a new
/// connection.
@Suite struct QUICConnectionRecordTests {
    /// One UDP datagram of a capture: when, from and to which endpoint, and its payload.
    struct Datagram {
        var timestamp: Timestamp
        var source: String
        var destination: String
        var payload: [UInt8]
    }

    static func datagrams(_ path: String) throws -> [Datagram] {
        var source = try CaptureFile.open(path: path)
        let decoder = PacketDecoder()
        var datagrams: [Datagram] = []
        var decoded = DecodedPacket.heldFragment
        while let packet = try source.nextPacket() {
            decoder.decode(packet, into: &decoded)
            if case let .udp(ip, udp) = decoded {
                datagrams.append(Datagram(
                    timestamp: packet.timestamp, source: ip.source.endpoint(port: udp.sourcePort),
                    destination: ip.destination.endpoint(port: udp.destinationPort), payload: Array(udp.payload)))
            }
        }
        return datagrams
    }

    /// Analyses `datagrams` written as a pcap file (rebuilt frames, checksums right).
    static func analyze(_ datagrams: [Datagram], name: String) throws -> (CollectingWriter, AnalysisRun.Result) {
        let frames = datagrams.map { FrameBuilder.udp(from: $0.source, to: $0.destination, payload: $0.payload) }
        let file = TestScratch.folder.appendingPathComponent(name + ".pcap")
        try Data(FrameBuilder.pcap(frames: frames, link: .ethernet, timestamps: datagrams.map(\.timestamp))).write(to: file)
        let (writer, result) = CollectingWriter.analyze([file.path])
        Conservation.check(writer, result)
        return (writer, result)
    }

    static func strings(_ value: JSONValue?) -> [String] {
        guard case let .array(values)? = value else { return [] }
        return values.map(\.plainText)
    }

    /// The Zeek capture is one QUIC connection record and no flow: Zeek's version, connection IDs,
    /// server name and cipher; per direction the frames, frame bytes, IP bytes and UDP payload bytes
    /// tshark counts; `setup` the datagrams whose first QUIC packet tshark shows with a long header;
    /// per space the packets the observer counts on the same datagrams (equal to tshark's,
    /// `QUICCaptureTests.packetCountsPerSpaceEqualTshark`); curl's one request is one estimated
    /// exchange owning every datagram; conserved.
    @Test(.requires(.publicCaptures, .tshark))
    func zeekCaptureIsOneQUICConnection() throws {
        let name = QUICCaptureTests.name
        let path = try Requirement.publicCapture(name + ".pcap")
        let (writer, result) = CollectingWriter.analyze([path])
        Conservation.check(writer, result)
        #expect(writer.flows.isEmpty && writer.connections.isEmpty)
        #expect(writer.quicConnections.count == 1)
        let record = try #require(writer.quicConnections.first)
        #expect(record.string("type") == "connection" && record.string("transport") == "quic")
        let zeek = try #require(try QUICCaptureTests.zeekLog(try Requirement.publicCapture(name + ".quic.log")).first)
        #expect(record.string("client") == "\(zeek["id.orig_h"]!):\(zeek["id.orig_p"]!)")
        #expect(record.string("server") == "\(zeek["id.resp_h"]!):\(zeek["id.resp_p"]!)")
        #expect(record.string("quic.version") == zeek["version"])
        #expect(record.string("quic.dcid") == zeek["client_initial_dcid"])
        #expect(Self.strings(record["quic"]?["scid"]) == [zeek["client_scid"]!, zeek["server_scid"]!])
        #expect(Self.strings(record["quic"]?["alpn_offered"]).first == zeek["client_protocol"])
        #expect(record.string("tls.sni") == zeek["server_name"])
        #expect(record.string("tls.cipher") == "TLS_AES_128_GCM_SHA256" && record.string("tls.version") == "TLS 1.3")
        #expect(record.string("tls.alpn_source") == "unknown")  // four protocols offered, the choice encrypted
        #expect(record.int("quic.client_max_idle_timeout_ms") == 5000)
        let quicFlags = Self.strings(record["quic"]?["flags"])
        #expect(quicFlags.isEmpty)
        #expect(record.flagNames == ["open_at_end", "bad_checksum"])
        // curl's one request: one estimated exchange owning every datagram (the handshake as its setup)
        #expect(record.int("exchanges") == 1 && writer.exchanges.count == 1)
        #expect(writer.exchanges.first?.string("conn.transport") == "quic")

        let clientPort = try #require(Int(zeek["id.orig_p"]!))
        let frames = try Tshark.fields(path, ["udp.srcport", "frame.len", "ip.len", "udp.length", "quic.header_form"])
        #expect(frames.count == 48)
        for (direction, fromClient) in [("up", true), ("down", false)] {
            let rows = frames.filter { (Int($0[0]) == clientPort) == fromClient }
            #expect(record.int("\(direction).packets") == rows.count)
            #expect(record.int("\(direction).frame_bytes") == rows.reduce(0) { $0 + Int($1[1])! })
            #expect(record.int("\(direction).ip_bytes") == rows.reduce(0) { $0 + Int($1[2])! })
            #expect(record.int("\(direction).payload_bytes") == rows.reduce(0) { $0 + Int($1[3])! - 8 })
            let longFirst = rows.filter { $0[4].split(separator: ",").first == "1" }
            #expect(record.int("\(direction).categories.setup.packets") == longFirst.count)
            #expect(record.int("\(direction).categories.payload.packets") == rows.count - longFirst.count)
            #expect(record.int("unattributed.\(direction).ip_bytes") == 0)
        }
        let observer = QUICConnectionObserver()
        for datagram in try Self.datagrams(path) { observer.observe(datagram.payload, fromClient: datagram.source.hasSuffix(":\(clientPort)")) }
        for space in QUICPacketSpace.allCases {
            #expect(record.int("quic.packets.\(space.rawValue).up.packets") == observer.info.up[space]?.packets ?? 0)
            #expect(record.int("quic.packets.\(space.rawValue).down.bytes") == observer.info.down[space]?.bytes ?? 0)
        }
        // the client's first Initial to the server's first answer
        let times = try Self.datagrams(path).map(\.timestamp.nanoseconds)
        let firstAnswer = try #require(try Self.datagrams(path).firstIndex { !$0.source.hasSuffix(":\(clientPort)") })
        #expect(record["handshake_rtt_ms"]?.plainText == RecordEncoding.milliseconds(times[firstAnswer] - times[0]))
        #expect(writer.summary?.int("quic_connections") == 1)
    }

    /// The client's port changes mid-connection (a NAT rebinding): its datagrams still carry the
    /// server's connection ID, so the connection goes on, flagged `migrated`, with both paths, and
    /// counts exactly what the unchanged capture counts.
    @Test(.requires(.publicCaptures))
    func natRebindingKeepsOneConnection() throws {
        let original = try Self.datagrams(try Requirement.publicCapture(QUICCaptureTests.name + ".pcap"))
        let client = try #require(original.first?.source)
        let rebound = "172.17.0.2:40000"
        var moved = original
        for index in 20 ..< moved.count {
            if moved[index].source == client { moved[index].source = rebound }
            if moved[index].destination == client { moved[index].destination = rebound }
        }
        let (before, _) = try Self.analyze(original, name: "quic-original")
        let (after, _) = try Self.analyze(moved, name: "quic-rebound")
        #expect(after.quicConnections.count == 1 && after.flows.isEmpty)
        let record = try #require(after.quicConnections.first), reference = try #require(before.quicConnections.first)
        #expect(record.flagNames.contains("migrated") && !reference.flagNames.contains("migrated"))
        guard case let .array(paths)? = record["quic"]?["paths"] else { Issue.record("no paths"); return }
        #expect(paths.map { $0["client"]?.plainText } == [client, rebound])
        for level in ["packets", "ip_bytes", "frame_bytes", "payload_bytes"] {
            #expect(record.int("up.\(level)") == reference.int("up.\(level)"))
            #expect(record.int("down.\(level)") == reference.int("down.\(level)"))
        }
        #expect(record["quic"]?["packets"] == reference["quic"]?["packets"])
    }

    /// The same connection's datagrams again after a pause longer than the client's max_idle_timeout
    /// (5 s): the first connection ended idle, the copy is a second connection. After a shorter pause
    /// the copy's datagrams carry the same connection IDs: still one connection.
    @Test(.requires(.publicCaptures))
    func idleTimeoutEndsAConnection() throws {
        let original = try Self.datagrams(try Requirement.publicCapture(QUICCaptureTests.name + ".pcap"))
        func repeated(after seconds: Int64) -> [Datagram] {
            original + original.map { datagram in
                var copy = datagram
                copy.timestamp = Timestamp(nanoseconds: datagram.timestamp.nanoseconds + seconds * 1_000_000_000)
                return copy
            }
        }
        let (apart, apartResult) = try Self.analyze(repeated(after: 10), name: "quic-idle-apart")
        #expect(apart.quicConnections.count == 2)
        #expect(apart.quicConnections.first.map { $0.flagNames.contains("idle_timeout") } == true)
        #expect(apart.quicConnections.last.map { $0.flagNames.contains("open_at_end") } == true)
        #expect(apartResult.summary.idleExpirations == 1)
        let (close, _) = try Self.analyze(repeated(after: 2), name: "quic-idle-close")
        #expect(close.quicConnections.count == 1)
        #expect(close.quicConnections.first?.int("up.packets") == 2 * (apart.quicConnections.first?.int("up.packets") ?? 0))
    }

    /// A client Initial whose Destination Connection ID the connection never used, on the same
    /// addresses and ports, starts a new connection: the old one ends flagged `path_reused`.
    @Test(.requires(.publicCaptures))
    func newClientInitialOnAKnownPathIsANewConnection() throws {
        let original = try Self.datagrams(try Requirement.publicCapture(QUICCaptureTests.name + ".pcap"))
        var again = original.map { datagram in
            var copy = datagram
            copy.timestamp = Timestamp(nanoseconds: datagram.timestamp.nanoseconds + 1_000_000_000)
            return copy
        }
        again[0].payload[6] ^= 0xff  // the first byte of the client's first DCID (after flags, version, length)
        let (writer, _) = try Self.analyze(original + again, name: "quic-path-reused")
        #expect(writer.quicConnections.count == 2)
        #expect(writer.quicConnections.first.map { $0.flagNames.contains("path_reused") } == true)
        #expect(writer.quicConnections.first?.int("up.packets") == original.filter { $0.source == original[0].source }.count)
        // the new connection's Initial keys derive from the changed ID: its first Initial cannot be opened
        let newFlags = Self.strings(writer.quicConnections.last?["quic"]?["flags"])
        #expect(newFlags.contains("undecryptable_initial"))
    }

    /// `--connections` shows the QUIC connection in the table (flag `quic`) and in the CSV (`transport`
    /// quic, its byte columns equal the JSON record's).
    @Test(.requires(.publicCaptures, .wiretallyBinary))
    func tableAndCSVShowQUICConnections() throws {
        let path = try Requirement.publicCapture(QUICCaptureTests.name + ".pcap")
        let (writer, _) = CollectingWriter.analyze([path])
        let record = try #require(writer.quicConnections.first)
        let table = try CommandLineTests.run(["analyze", "--connections", path])
        #expect(table.status == 0)
        #expect(table.stdout.contains("quic,open_at_end"))
        #expect(table.stdout.contains("quic         1 connections, 48 packets"))
        let csv = try CommandLineTests.run(["analyze", "--connections", "--format", "csv", path])
        let lines = csv.stdout.split(separator: "\n")
        try #require(lines.count == 2)
        let row = Dictionary(uniqueKeysWithValues: zip(HTTP2CSVTests.cells(lines[0]), HTTP2CSVTests.cells(lines[1])))
        #expect(row["transport"] == "quic")
        #expect(row["up_ip_bytes"] == record.int("up.ip_bytes").map(String.init))
        #expect(row["down_categories_setup_packets"] == record.int("down.categories.setup.packets").map(String.init))
    }

    /// DNS and other UDP traffic stays in flows.
    @Test func otherUDPTrafficStaysInFlows() throws {
        let (writer, result) = CollectingWriter.analyze([TestPaths.capture("dns-http.pcap")])
        Conservation.check(writer, result)
        #expect(!writer.flows.isEmpty)
        #expect(writer.quicConnections.isEmpty)
        #expect(writer.summary?.int("outcomes.quic.packets") == 0)
    }
}
