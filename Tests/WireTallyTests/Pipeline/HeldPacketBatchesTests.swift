import Foundation
import Testing
@testable import WireTally

/// With two threads the delivered-bytes histories refer to the packet batches the analysing thread
/// still holds and copy what they need when a batch goes back to the reader (`HeldPacketBatches`);
/// with one, to the buffers the file is read into (`HeldReadBuffers`, as big and as many as the held
/// batches). Conflicting retransmissions that come batches (buffers) after the first copy count as
/// their changed bytes say, with one thread and with two.
@Suite struct HeldPacketBatchesTests {
    static let client = ConflictingOverlapTests.client, server = ConflictingOverlapTests.server
    static let request = ConflictingOverlapTests.request
    /// A request segment, or other traffic between two segments.
    enum Step {
        case segment(offset: Int, bytes: [UInt8])
        /// UDP datagrams between other hosts, `bytes` of payload in all (1,400 a datagram).
        case otherTraffic(bytes: Int)
        /// One frame of `bytes` bytes that carries no IP (an EtherType of local experiments), bigger
        /// than a read buffer or a batch when `bytes` is.
        case oversizedFrame(bytes: Int)
    }

    /// `ConflictingOverlapTests`' conversation (handshake, request, response, teardown) with `steps`
    /// as the request.
    static func frames(_ steps: [Step]) -> [[UInt8]] {
        let requestStart: UInt32 = 7001, acknowledged: UInt32 = 9001  // that conversation's numbers
        let datagram = [UInt8](repeating: 0x42, count: 1400)
        var frames = ConflictingOverlapTests.frames(requestSegments: [])
        frames.insert(contentsOf: steps.flatMap { step -> [[UInt8]] in
            switch step {
            case let .segment(offset, bytes):
                return [FrameBuilder.tcp(
                    from: client, to: server, seq: requestStart + UInt32(offset), ack: acknowledged, flags: [.ack, .psh],
                    payload: bytes)]
            case let .otherTraffic(bytes):
                return Array(repeating: FrameBuilder.udp(from: "10.9.0.1:5000", to: "10.9.0.2:6000", payload: datagram),
                             count: bytes / datagram.count)
            case let .oversizedFrame(bytes):
                let header = [UInt8](repeating: 0x02, count: 12) + [0x88, 0xb5]
                return [header + [UInt8](repeating: 0x5a, count: bytes - header.count)]
            }
        }, at: 3)
        return frames
    }

    /// `request` with the given ranges replaced by "Z"s.
    static func changed(_ ranges: [Range<Int>]) -> [UInt8] {
        var bytes = request
        for range in ranges { bytes.replaceSubrange(range, with: [UInt8](repeating: UInt8(ascii: "Z"), count: range.count)) }
        return bytes
    }

    /// Traffic enough to fill every batch in flight (`BackgroundPacketReader`'s 8 and the ones held)
    /// twice over: the first copy's batch has gone back to the reader and been read into again when
    /// the retransmission comes.
    static let batchesOfTraffic = 2 * (8 + HeldPacketBatches.count) * PacketBatch.byteCapacity

    /// Whether the connection is flagged `conflicting_overlap` with one and with two threads
    /// (conservation checked). A history that lost the first copy, or read the batch after the reader
    /// had read other traffic into it, would miss the change or see one in an identical copy.
    static func flaggedConflicting(_ steps: [Step], sourceLocation: SourceLocation = #_sourceLocation) throws -> [Bool] {
        let frames = frames(steps)
        // a millisecond apart: the connection must not time out during the other traffic
        let times = frames.indices.map { Timestamp(seconds: 1_700_000_000, nanoseconds: Int64($0) * 1_000_000) }
        let path = try LimitTestSupport.write(
            FrameBuilder.pcap(frames: frames, link: .ethernet, timestamps: times, snaplen: 1 << 20), name: "held.pcap")
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try [1, 2].map { threads in
            let writer = CollectingWriter()
            let result = AnalysisRun(files: [path], threads: threads).run(writer: writer)
            Conservation.check(writer, result, sourceLocation: sourceLocation)
            let connection = try #require(
                writer.connections.first { $0.string("server") == server }, sourceLocation: sourceLocation)
            return connection.flagNames.contains("conflicting_overlap")
        }
    }

    /// Delivered from a batch, retransmitted after that batch went back: with 5 bytes changed, and
    /// unchanged.
    @Test func conflictingRetransmissionAfterItsBatchWentBack() throws {
        #expect(try Self.flaggedConflicting([
            .segment(offset: 0, bytes: Self.request), .otherTraffic(bytes: Self.batchesOfTraffic),
            .segment(offset: 0, bytes: Self.changed([20..<25])),
        ]) == [true, true])
        #expect(try Self.flaggedConflicting([
            .segment(offset: 0, bytes: Self.request), .otherTraffic(bytes: Self.batchesOfTraffic),
            .segment(offset: 0, bytes: Self.request),
        ]) == [false, false])
    }

    /// A record bigger than a read buffer (and a batch) between the first copy and the retransmission:
    /// the one-thread path reads it into a buffer made big enough for it, lent like the others.
    @Test func conflictingRetransmissionAfterARecordBiggerThanABuffer() throws {
        let oversized = HeldReadBuffers.bufferSize + 40_000
        #expect(try Self.flaggedConflicting([
            .segment(offset: 0, bytes: Self.request), .oversizedFrame(bytes: oversized),
            .otherTraffic(bytes: Self.batchesOfTraffic), .segment(offset: 0, bytes: Self.changed([20..<25])),
        ]) == [true, true])
        #expect(try Self.flaggedConflicting([
            .segment(offset: 0, bytes: Self.request), .otherTraffic(bytes: PacketBatch.byteCapacity),
            .oversizedFrame(bytes: oversized), .segment(offset: 0, bytes: Self.request),
        ]) == [false, false])
    }

    /// Bytes 10..<38 arrive first and wait in the out-of-order buffer; 0..<10 comes from a batch and
    /// the buffered bytes are delivered after it, from the buffer.
    @Test func conflictingRetransmissionOfBytesDeliveredFromTheBuffer() throws {
        #expect(try Self.flaggedConflicting([
            .segment(offset: 10, bytes: Array(Self.request[10...])), .segment(offset: 0, bytes: Array(Self.request[..<10])),
            .otherTraffic(bytes: Self.batchesOfTraffic), .segment(offset: 0, bytes: Self.changed([2..<4, 20..<25])),
        ]) == [true, true])
        #expect(try Self.flaggedConflicting([
            .segment(offset: 10, bytes: Array(Self.request[10...])), .segment(offset: 0, bytes: Array(Self.request[..<10])),
            .otherTraffic(bytes: Self.batchesOfTraffic), .segment(offset: 0, bytes: Self.request),
        ]) == [false, false])
    }

    /// The request's two halves come a batch apart; the retransmission changes bytes in both.
    @Test func conflictingRetransmissionOfAWindowSpanningBatches() throws {
        #expect(try Self.flaggedConflicting([
            .segment(offset: 0, bytes: Array(Self.request[..<20])), .otherTraffic(bytes: PacketBatch.byteCapacity + 50_000),
            .segment(offset: 20, bytes: Array(Self.request[20...])), .otherTraffic(bytes: Self.batchesOfTraffic),
            .segment(offset: 0, bytes: Self.changed([2..<4, 30..<33])),
        ]) == [true, true])
        #expect(try Self.flaggedConflicting([
            .segment(offset: 0, bytes: Array(Self.request[..<20])), .otherTraffic(bytes: PacketBatch.byteCapacity + 50_000),
            .segment(offset: 20, bytes: Array(Self.request[20...])), .otherTraffic(bytes: Self.batchesOfTraffic),
            .segment(offset: 0, bytes: Self.request),
        ]) == [false, false])
        // while the second half's batch is still held
        #expect(try Self.flaggedConflicting([
            .segment(offset: 0, bytes: Array(Self.request[..<20])), .otherTraffic(bytes: Self.batchesOfTraffic),
            .segment(offset: 20, bytes: Array(Self.request[20...])), .segment(offset: 0, bytes: Self.changed([2..<4, 30..<33])),
        ]) == [true, true])
    }
}
