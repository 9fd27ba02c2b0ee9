@testable import WireTally

/// Drives a `TCPReassembler` with hand-made segments (no capture file), collecting what it reports.
final class SegmentDriver {
    private(set) var reassembler: TCPReassembler!
    private(set) var finished: [TCPConnection] = []
    /// Consumers in creation order: connection ids are handed out in the same order, from 1.
    private var consumers: [any TCPStreamConsumer] = []
    private var frame = 0
    private var lastID = 0
    /// Capture time of the next segment, advanced 1 ms per segment.
    var clock = Timestamp(seconds: 1_700_000_000, nanoseconds: 0)

    /// - Parameter makeConsumer: the stream consumer of each new connection (a `RecordingConsumer` by default).
    init(limits: ReassemblyLimits = ReassemblyLimits(), makeConsumer: @escaping () -> any TCPStreamConsumer = { RecordingConsumer() }) {
        reassembler = TCPReassembler(
            limits: limits,
            nextID: { [unowned self] in lastID += 1; return lastID },
            makeConsumer: { [unowned self] _ in
                let consumer = makeConsumer()
                consumers.append(consumer)
                return consumer
            },
            finished: { [unowned self] in finished.append($0) })
    }

    /// Sends one segment; `captured` limits how many payload bytes were captured (snaplen).
    @discardableResult
    func send(
        _ from: String, _ to: String, seq: UInt32, ack: UInt32 = 0, flags: TCPFlags,
        payload: [UInt8] = [], captured: Int? = nil, at time: Timestamp? = nil
    ) -> Int {
        frame += 1
        let (source, sourcePort) = Self.endpoint(from)
        let (destination, destinationPort) = Self.endpoint(to)
        let timestamp = time ?? clock
        clock = Timestamp(nanoseconds: timestamp.nanoseconds + 1_000_000)
        let ipLength = 40 + payload.count
        payload.withUnsafeBytes { bytes in
            let kept = UnsafeRawBufferPointer(rebasing: bytes.prefix(captured ?? payload.count))
            let ip = IPPacket(
                version: 4, source: source, destination: destination, transportProtocol: 6,
                transport: kept, transportLength: 20 + payload.count,
                wire: TrafficCounters(packets: 1, ipBytes: ipLength, frameBytes: ipLength + 14, payloadBytes: 0),
                timestamp: timestamp, frameNumber: frame)
            let tcp = TCPSegment(
                sourcePort: sourcePort, destinationPort: destinationPort, sequence: seq, acknowledgment: ack,
                flags: flags, payload: kept, payloadLength: payload.count)
            reassembler.process(ip, tcp)
        }
        return frame
    }

    /// Finalises everything and returns the connections in id order.
    func finish() -> [TCPConnection] {
        reassembler.finishAll()
        return finished.sorted { $0.id < $1.id }
    }

    /// The consumer of a connection.
    func consumer(_ connection: TCPConnection) -> RecordingConsumer { consumers[connection.id - 1] as! RecordingConsumer }

    static func endpoint(_ text: String) -> (IPAddress, UInt16) {
        let parts = text.split(separator: ":")
        return (IPAddress(String(parts[0]))!, UInt16(parts[1])!)
    }
}

/// Collects what a connection's streams deliver.
final class RecordingConsumer: TCPStreamConsumer {
    struct Chunk: Equatable {
        var offset: Int64
        var bytes: [UInt8]
        var frame: Int
    }
    struct Gap: Equatable {
        var offset: Int64
        var length: Int64
        var reason: StreamGapReason
    }
    var chunks: [[Chunk]] = [[], []]
    var gaps: [[Gap]] = [[], []]
    var ended: [Bool] = [false, false]
    var endCalls = 0

    func streamData(_ data: UnsafeRawBufferPointer, offset: Int64, direction: FlowDirection, origin: PacketOrigin) {
        chunks[direction.rawValue].append(Chunk(offset: offset, bytes: Array(data), frame: origin.frameNumber))
    }

    func streamGap(offset: Int64, length: Int64, direction: FlowDirection, reason: StreamGapReason) {
        gaps[direction.rawValue].append(Gap(offset: offset, length: length, reason: reason))
    }

    func streamEnded(direction: FlowDirection) {
        ended[direction.rawValue] = true
        endCalls += 1
    }

    /// The stream's bytes with gaps filled by `fill`.
    func stream(_ direction: FlowDirection, fill: UInt8 = 0x2a) -> [UInt8] {
        var events: [(Int64, [UInt8])] = chunks[direction.rawValue].map { ($0.offset, $0.bytes) }
        events += gaps[direction.rawValue].map { ($0.offset, [UInt8](repeating: fill, count: Int($0.length))) }
        return events.sorted { $0.0 < $1.0 }.flatMap(\.1)
    }

    /// True when each offset was reported once, in order, with no overlap.
    func isContiguous(_ direction: FlowDirection) -> Bool {
        var events: [(Int64, Int64)] = chunks[direction.rawValue].map { ($0.offset, Int64($0.bytes.count)) }
        events += gaps[direction.rawValue].map { ($0.offset, $0.length) }
        events.sort { $0.0 < $1.0 }
        var expected: Int64 = events.first?.0 ?? 0
        for (offset, length) in events {
            if offset != expected { return false }
            expected += length
        }
        return true
    }
}

extension String {
    var bytes: [UInt8] { Array(utf8) }
}
