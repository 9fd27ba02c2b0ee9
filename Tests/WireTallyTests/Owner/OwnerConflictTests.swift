import Testing
@testable import WireTally

/// A connection whose packets name different owners keeps the first one named and is flagged
/// `owner_conflict`; packets naming none do not conflict (synthetic PKTAP captures).
@Suite struct OwnerConflictTests {
    static func analyze(_ frames: [[UInt8]]) throws -> (CollectingWriter, AnalysisRun.Result) {
        let scratch = try TemporaryDirectory()
        let path = try scratch.file("device.pcap", FrameBuilder.pcap(frames: frames, link: .pktap))
        return CollectingWriter.analyze([path])
    }

    /// A one-request HTTP connection; `owner(k)` names the owner of frame k.
    static func connection(_ owner: (Int) -> (Int32, String)) -> [[UInt8]] {
        let client = "10.0.0.1:50000", server = "10.0.0.2:80"
        let request = Array("GET / HTTP/1.1\r\nHost: a\r\n\r\n".utf8)
        let response = Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".utf8)
        let frames = [
            FrameBuilder.tcp(from: client, to: server, seq: 0, flags: [.syn]),
            FrameBuilder.tcp(from: server, to: client, seq: 0, ack: 1, flags: [.syn, .ack]),
            FrameBuilder.tcp(from: client, to: server, seq: 1, ack: 1),
            FrameBuilder.tcp(from: client, to: server, seq: 1, ack: 1, flags: [.ack, .psh], payload: request),
            FrameBuilder.tcp(from: server, to: client, seq: 1, ack: UInt32(1 + request.count), flags: [.ack, .psh], payload: response),
        ]
        return frames.enumerated().map { index, frame in
            let (pid, command) = owner(index)
            return DeviceFrames.pktap(frame, pid: pid, command: command)
        }
    }

    @Test func disagreeingPacketsAreFlaggedAndTheFirstOwnerKept() throws {
        let (writer, result) = try Self.analyze(Self.connection { $0 == 4 ? (77, "other") : (42, "app") })
        Conservation.check(writer, result)
        let connection = try #require(writer.connections.first)
        #expect(connection.int("process.pid") == 42 && connection.string("process.name") == "app")
        #expect(connection.flagNames.contains("owner_conflict"))
        #expect(writer.exchanges.first?.int("process.pid") == 42)
    }

    @Test func packetsWithoutOwnerDoNotConflict() throws {
        let (writer, _) = try Self.analyze(Self.connection { $0 == 0 ? (-1, "") : (42, "app") })
        let connection = try #require(writer.connections.first)
        #expect(connection.int("process.pid") == 42)
        #expect(!connection.flagNames.contains("owner_conflict"))
    }

    /// QUIC: the recorded `quic-sequential` traffic behind PKTAP headers naming one process; its QUIC
    /// connection and its (keyless, estimated) exchanges carry it.
    @Test func quicConnectionsCarryTheOwner() throws {
        var source = try CaptureFile.open(path: TestPaths.capture("quic-sequential.pcap"))
        var frames: [[UInt8]] = [], times: [Timestamp] = []
        while let packet = try source.nextPacket() {
            frames.append(DeviceFrames.pktap(Array(packet.bytes), pid: 321, command: "h3client"))
            times.append(packet.timestamp)
        }
        let scratch = try TemporaryDirectory()
        let path = try scratch.file("quic.pcap", FrameBuilder.pcap(frames: frames, link: .pktap, timestamps: times))
        let (writer, result) = CollectingWriter.analyze([path])
        Conservation.check(writer, result)
        #expect(!writer.quicConnections.isEmpty && !writer.exchanges.isEmpty)
        for record in writer.quicConnections + writer.exchanges {
            #expect(record.int("process.pid") == 321 && record.string("process.name") == "h3client")
        }
    }

    @Test func appFilterMatchesTheEffectiveProcessToo() throws {
        let frames = Self.connection { _ in (88, "nsurlsessiond") }.map { frame -> [UInt8] in
            var frame = frame
            // effective pid 4242 "Weather" (pth_epid at 84, pth_ecomm at 88)
            frame.replaceSubrange(84..<88, with: FrameBuilder.le32(4242))
            frame.replaceSubrange(88..<105, with: DeviceFrames.name("Weather", 17))
            return frame
        }
        let scratch = try TemporaryDirectory()
        let path = try scratch.file("device.pcap", FrameBuilder.pcap(frames: frames, link: .pktap))
        var options = CaptureAnalyzer.Options()
        options.appName = "Weather"
        let (writer, result) = CollectingWriter.analyze([path], options: options)
        Conservation.check(writer, result)
        #expect(writer.connections.first?["process"]?.serialized
            == #"{"pid":88,"name":"nsurlsessiond","effective_pid":4242,"effective_name":"Weather"}"#)
        #expect(result.summary.filtered.packets == 0)
        options.appName = "Maps"
        let (other, otherResult) = CollectingWriter.analyze([path], options: options)
        #expect(other.connections.isEmpty && otherResult.summary.filtered.packets == frames.count)
    }
}
