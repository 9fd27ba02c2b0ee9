import Foundation
import Testing
@testable import WireTally

/// Many connections each opening a hole and sending data after it (issue 7, hostile TCP): the
/// out-of-order bytes of all connections stay under `ReassemblyLimits.maxBufferedBytesTotal`
/// (`--max-buffered-bytes-total`), the connections holding the most are forced past their holes,
/// those forced holes are counted and flagged, and every byte is still accounted for: the only
/// missing bytes are the holes.
@Suite struct TotalBufferCapTests {
    static let connections = 200
    /// Bytes never sent at the start of each client stream.
    static let hole = 100
    static let segmentSize = 8 << 10
    static let segmentsPerConnection = 16
    /// Out-of-order bytes each connection would hold without a cap (128 KiB; 25 MiB in all).
    static let heldPerConnection = segmentSize * segmentsPerConnection
    static let cap = 4 << 20

    /// One segment of the hostile traffic.
    struct Segment {
        var from: String, to: String, seq: UInt32, ack: UInt32, flags: TCPFlags, payload: [UInt8]
    }

    static func client(_ index: Int) -> String { "10.3.0.1:\(20_000 + index)" }
    static let server = "10.3.0.2:80"

    /// Every connection's handshake, then its client segments after the hole, round-robin across the
    /// connections (so all buffers grow together), never acknowledged by the server.
    static var segments: [Segment] {
        let c: UInt32 = 1000, s: UInt32 = 5000
        var all: [Segment] = []
        for index in 0..<connections {
            all.append(Segment(from: client(index), to: server, seq: c, ack: 0, flags: [.syn], payload: []))
            all.append(Segment(from: server, to: client(index), seq: s, ack: c + 1, flags: [.syn, .ack], payload: []))
            all.append(Segment(from: client(index), to: server, seq: c + 1, ack: s + 1, flags: [.ack], payload: []))
        }
        let payload = [UInt8](repeating: UInt8(ascii: "x"), count: segmentSize)
        for round in 0..<segmentsPerConnection {
            for index in 0..<connections {
                let seq = c + 1 + UInt32(hole + round * segmentSize)
                all.append(Segment(from: client(index), to: server, seq: seq, ack: s + 1, flags: [.ack, .psh], payload: payload))
            }
        }
        return all
    }

    /// The segments as a pcap file, 1 ms apart; returns its path (the caller deletes it).
    static func writeCapture() throws -> String {
        let all = segments
        let frames = all.map { FrameBuilder.tcp(from: $0.from, to: $0.to, seq: $0.seq, ack: $0.ack, flags: $0.flags, payload: $0.payload) }
        let timestamps = all.indices.map { Timestamp(nanoseconds: 1_700_000_000_000_000_000 + Int64($0) * 1_000_000) }
        return try LimitTestSupport.write(
            FrameBuilder.pcap(frames: frames, link: .ethernet, timestamps: timestamps), name: "total-buffer-cap.pcap")
    }

    /// Straight into the reassembler: after every segment the bytes buffered by all connections are
    /// within the cap; each forced hole is counted once and flags its connection; every connection
    /// delivers all its bytes with exactly its hole declared missing.
    @Test func bufferedBytesNeverExceedTheCap() {
        var limits = ReassemblyLimits()
        limits.maxBufferedBytesTotal = Self.cap
        let driver = SegmentDriver(limits: limits)
        var peak = 0
        for segment in Self.segments {
            driver.send(segment.from, segment.to, seq: segment.seq, ack: segment.ack, flags: segment.flags, payload: segment.payload)
            peak = max(peak, driver.reassembler.bufferedBytes)
        }
        #expect(peak <= Self.cap)
        #expect(peak > Self.cap / 2)
        let forced = driver.reassembler.bufferCapGaps
        let connections = driver.finish()
        #expect(driver.reassembler.bufferedBytes == 0)
        #expect(connections.count == Self.connections)
        #expect(forced > 0)
        // One hole per connection: each is forced at most once.
        #expect(connections.filter { $0.flags.contains(.totalBufferOverflow) }.count == forced)
        for connection in connections {
            #expect(!connection.flags.contains(.bufferOverflow))
            let consumer = driver.consumer(connection)
            #expect(consumer.gaps[FlowDirection.up.rawValue] == [.init(offset: 0, length: Int64(Self.hole), reason: .missing)], "connection \(connection.id)")
            #expect(consumer.stream(.up).count == Self.hole + Self.heldPerConnection, "connection \(connection.id)")
            #expect(consumer.isContiguous(.up), "connection \(connection.id)")
        }
    }

    /// Through the whole analysis with conservation checked: with the cap, the summary counts the
    /// forced holes and the flagged connections match; with the default (64 MiB, above the 25 MiB
    /// this traffic holds) nothing is forced. Either way the missing bytes are the holes, no more.
    @Test func forcedHolesAreCountedFlaggedAndConserved() throws {
        let path = try Self.writeCapture()
        defer { try? FileManager.default.removeItem(atPath: path) }
        for (cap, forcing) in [(Self.cap, true), (ReassemblyLimits().maxBufferedBytesTotal, false)] {
            var limits = ReassemblyLimits()
            limits.maxBufferedBytesTotal = cap
            let (writer, result) = LimitTestSupport.analyzeConserved(path, options: .init(limits: limits))
            #expect(result.summary.isConserved)
            #expect(writer.connections.count == Self.connections)
            #expect(result.summary.missingBytes == Self.connections * Self.hole)
            #expect(result.summary.connectionsWithGaps == Self.connections)
            for connection in writer.connections {
                #expect(connection.int("up.missing_bytes") == Self.hole)
                #expect(connection.int("down.missing_bytes") == 0)
                #expect(!connection.flagNames.contains("buffer_overflow"))
            }
            let flagged = writer.connections.filter { $0.flagNames.contains("total_buffer_overflow") }.count
            #expect(flagged == result.summary.bufferCapGaps)
            #expect((result.summary.bufferCapGaps > 0) == forcing, "cap \(cap)")
            #expect(writer.summary?.int("buffer_cap_gaps") == result.summary.bufferCapGaps)
        }
    }

    /// The binary with `--max-buffered-bytes-total`: the summary counts the forced holes, the records
    /// are flagged; the table says so in its summary.
    @Test func commandLineFlag() throws {
        let path = try Self.writeCapture()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let run = try LimitTestSupport.analyzeJSONLines(path, ["--max-buffered-bytes-total", String(Self.cap)])
        #expect(run.status == 0, "\(run.stderr)")
        let count = try #require(run.summary.firstMatch(of: /"buffer_cap_gaps":(\d+)/), "\(run.summary)")
        let forced = try #require(Int(count.1))
        #expect(forced > 0)
        #expect(run.summary.contains("\"conserved\":true"))
        #expect(run.summary.contains("\"gaps\":{\"connections\":\(Self.connections),\"missing_bytes\":\(Self.connections * Self.hole)}"), "\(run.summary)")
        #expect(run.records.filter { $0.contains("\"total_buffer_overflow\"") }.count == forced)

        let table = try CommandLineTests.run(["analyze", "--max-buffered-bytes-total", String(Self.cap), path])
        #expect(table.status == 0)
        #expect(table.stdout.contains("buffer cap   \(forced) holes declared missing"), "\(table.stdout)")
        let unforced = try CommandLineTests.run(["analyze", path])
        #expect(!unforced.stdout.contains("buffer cap"))
    }
}
