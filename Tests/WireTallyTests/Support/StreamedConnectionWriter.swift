@testable import WireTally

/// Writes one TCP connection to a pcap file frame by frame, never holding the frames: the handshake,
/// payload each way (each segment acknowledging all the peer sent, unless told not to), bare ACKs,
/// and the FIN exchange.
/// For captures too large to build in memory (the limit tests' hundreds of thousands of packets).
/// Frames are 100 µs apart, from `start` (nanoseconds since the epoch).
final class StreamedConnectionWriter {
    let client: String
    let server: String
    private let writer: PcapWriter
    /// The first sequence number of each direction's stream, and the next one.
    private static let (upStart, downStart): (UInt32, UInt32) = (1001, 5001)
    private var up = upStart
    private var down = downStart
    private var frameNumber = 0
    private let start: Int64
    /// Nanoseconds between two frames.
    static let frameSpacing: Int64 = 100_000
    /// How many frames an exchange's linger spans (the handshake's round trip is two frames, so the
    /// linger is its 5 ms floor): what a connection keeps beyond its unfinished exchange is bounded by
    /// the exchanges and ledger entries of that many frames.
    static let framesWithinLinger = Int(ConnectionLedger.linger(roundTrip: 2 * frameSpacing) / frameSpacing)

    init(
        path: String, client: String = "10.1.0.1:40000", server: String = "10.1.0.2:80",
        start: Int64 = 1_700_000_000_000_000_000
    ) throws {
        self.client = client
        self.server = server
        self.start = start
        writer = try PcapWriter(destination: .file(path: path), linkType: .ethernet)
    }

    /// SYN, SYN-ACK, ACK.
    func handshake() throws {
        try write(FrameBuilder.tcp(from: client, to: server, seq: up - 1, flags: [.syn]))
        try write(FrameBuilder.tcp(from: server, to: client, seq: down - 1, ack: up, flags: [.syn, .ack]))
        try write(FrameBuilder.tcp(from: client, to: server, seq: up, ack: down, flags: [.ack]))
    }

    /// One segment carrying `payload` from the client (`.up`) or the server (`.down`), acknowledging
    /// all the peer sent (or, `acknowledging: false`, none of it: a peer that never acknowledges).
    func send(_ direction: FlowDirection, _ payload: [UInt8], acknowledging: Bool = true) throws {
        if direction == .up {
            let ack = acknowledging ? down : Self.downStart
            try write(FrameBuilder.tcp(from: client, to: server, seq: up, ack: ack, flags: [.ack, .psh], payload: payload))
            up &+= UInt32(payload.count)
        } else {
            let ack = acknowledging ? up : Self.upStart
            try write(FrameBuilder.tcp(from: server, to: client, seq: down, ack: ack, flags: [.ack, .psh], payload: payload))
            down &+= UInt32(payload.count)
        }
    }

    /// A bare ACK from the client (`.up`) or the server (`.down`) of everything the peer sent.
    func acknowledge(from direction: FlowDirection) throws {
        if direction == .up {
            try write(FrameBuilder.tcp(from: client, to: server, seq: up, ack: down, flags: [.ack]))
        } else {
            try write(FrameBuilder.tcp(from: server, to: client, seq: down, ack: up, flags: [.ack]))
        }
    }

    /// FIN from the client, FIN from the server, the client's last ACK; closes the file.
    func close() throws {
        try write(FrameBuilder.tcp(from: client, to: server, seq: up, ack: down, flags: [.fin, .ack]))
        try write(FrameBuilder.tcp(from: server, to: client, seq: down, ack: up + 1, flags: [.fin, .ack]))
        try write(FrameBuilder.tcp(from: client, to: server, seq: up + 1, ack: down + 1, flags: [.ack]))
        try writer.close()
    }

    private func write(_ frame: [UInt8]) throws {
        frameNumber += 1
        try frame.withUnsafeBytes { bytes in
            try writer.write(CapturedPacket(
                frameNumber: frameNumber,
                timestamp: Timestamp(nanoseconds: start + Int64(frameNumber) * Self.frameSpacing),
                linkType: .ethernet, originalLength: frame.count, bytes: bytes))
        }
    }
}
