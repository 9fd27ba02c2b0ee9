import Testing
@testable import WireTally

/// The attribution rules of `HTTP3ConnectionAnalysis` on decrypted 1-RTT packets built here (frames in
/// the clear, a zero tag: the observer's decryption is tested on the recordings): request streams are
/// exchanges, ACKs go to the exchange whose packet they acknowledge, shared frames follow the packet's
/// owned ones, every packet byte is in exactly one share, and the caps hold.
@Suite struct HTTP3ConnectionAnalysisTests {
    /// A 1-RTT datagram of one packet: short header (8-byte DCID, 1-byte packet number), `frames`, 16-byte tag.
    static func datagram(packetNumber: UInt8, frames: [UInt8]) -> QUICDatagramContents {
        let bytes = [0x40] + [UInt8](repeating: 0xab, count: 8) + [packetNumber] + frames + [UInt8](repeating: 0, count: 16)
        var contents = QUICDatagramContents()
        bytes.withUnsafeBytes { raw in
            let header = QUICPacketHeaderView(datagram: raw, shortHeaderDCIDLength: 8)!
            var record = QUICPacketRecord(header, space: .oneRTT)
            record.take(QUICOpenedPacket(packetNumber: UInt64(packetNumber), plaintext: frames, headerLength: 10, keyPhase: false))
            contents.packets = [record]
        }
        return contents
    }

    /// A STREAM frame (type 0x0e/0x0f: offset and length present) of `data` at `offset`.
    static func stream(_ id: UInt8, offset: UInt8 = 0, _ data: [UInt8], fin: Bool = false) -> [UInt8] {
        [fin ? 0x0f : 0x0e, id, offset, UInt8(data.count)] + data
    }

    /// HTTP/3 HEADERS frame of a QPACK section of static references only (prefix 0 0).
    static func headers(_ fieldLines: [UInt8]) -> [UInt8] { [0x01, UInt8(fieldLines.count + 2), 0x00, 0x00] + fieldLines }

    /// GET https … / : `:method GET` (17), `:scheme https` (23), `:path /` (1), `:authority` literal "a".
    static let request = headers([0xd1, 0xd7, 0xc1, 0x50, 0x01, 0x61])
    /// `:status 200` (25).
    static let response = headers([0xd9])

    /// Packet `n` of the capture, `n` ms in.
    static func origin(_ n: Int) -> PacketOrigin { PacketOrigin(frameNumber: n, timestamp: Timestamp(nanoseconds: Int64(n) * 1_000_000)) }

    @Test func requestStreamsAreExchangesAndEveryByteIsShared() {
        let analysis = HTTP3ConnectionAnalysis(limits: HTTPLimits(), roundTripNanoseconds: 1_000_000)
        let up = Self.datagram(packetNumber: 1, frames: Self.stream(0, Self.request, fin: true) + [0x01, 0x00, 0x00])  // + PING, 2 PADDING
        let shares = analysis.shares(of: up, fromClient: true, origin: Self.origin(1))
        #expect(shares == [QUICDatagramShare(owner: .exchange(0), category: .payload, weight: up.packets[0].range.count)])
        let down = Self.datagram(packetNumber: 1, frames: [0x02, 0x01, 0x00, 0x00, 0x00] + Self.stream(0, Self.response, fin: true))
        let downShares = analysis.shares(of: down, fromClient: false, origin: Self.origin(2))
        #expect(downShares.reduce(0) { $0 + $1.weight } == down.packets[0].range.count)
        #expect(downShares.allSatisfy { $0.owner == .exchange(0) })
        #expect(analysis.exchanges[0].request?.method == "GET" && analysis.exchanges[0].response?.status == 200)
        #expect(analysis.exchanges[0].request?.http3?.streamID == 0)
    }

    @Test func anACKGoesToTheExchangeOfThePacketItAcknowledges() {
        let analysis = HTTP3ConnectionAnalysis(limits: HTTPLimits(), roundTripNanoseconds: 1_000_000)
        _ = analysis.shares(of: Self.datagram(packetNumber: 1, frames: Self.stream(0, Self.request, fin: true)), fromClient: true,
                            origin: Self.origin(1))
        _ = analysis.shares(of: Self.datagram(packetNumber: 2, frames: Self.stream(4, Self.request, fin: true)), fromClient: true,
                            origin: Self.origin(2))
        // the server answers stream 0 in its packet 7; the client's ACK of 7 belongs to exchange 0, not to 1 (in flight)
        _ = analysis.shares(of: Self.datagram(packetNumber: 7, frames: Self.stream(0, Self.response, fin: true)), fromClient: false,
                            origin: Self.origin(3))
        let ack = analysis.shares(of: Self.datagram(packetNumber: 3, frames: [0x02, 0x07, 0x00, 0x00, 0x00]), fromClient: true,
                                  origin: Self.origin(4))
        #expect(ack.map(\.owner) == [.exchange(0)] && ack.map(\.category) == [.ack])
        // an ACK of nothing known goes to the exchange in flight
        let unknown = analysis.shares(of: Self.datagram(packetNumber: 4, frames: [0x02, 0x30, 0x00, 0x00, 0x00]), fromClient: true,
                                      origin: Self.origin(5))
        #expect(unknown.map(\.owner) == [.exchange(1)])
    }

    @Test func aRepeatedPacketIsARetransmission() {
        let analysis = HTTP3ConnectionAnalysis(limits: HTTPLimits(), roundTripNanoseconds: 1_000_000)
        let packet = Self.datagram(packetNumber: 1, frames: Self.stream(0, Self.request, fin: true))
        _ = analysis.shares(of: packet, fromClient: true, origin: Self.origin(1))
        let again = analysis.shares(of: packet, fromClient: true, origin: Self.origin(2))
        #expect(again.map(\.category) == [.retransmission])
        #expect(again[0].duplicateBytes == Self.request.count)
    }

    @Test func requestStreamsPastTheOpenCapGetNoExchange() {
        var limits = HTTPLimits()
        limits.maxOpenRequests = 3
        let analysis = HTTP3ConnectionAnalysis(limits: limits, roundTripNanoseconds: 1_000_000)
        for index in 0 ..< 6 {
            let frames = Self.stream(UInt8(index * 4), Self.request, fin: true)
            let shares = analysis.shares(of: Self.datagram(packetNumber: UInt8(index), frames: frames), fromClient: true,
                                         origin: Self.origin(index))
            #expect(shares.reduce(0) { $0 + $1.weight } == 10 + frames.count + 16)
        }
        #expect(analysis.exchanges.endIndex == 3)
        #expect(analysis.flags.contains(.tooManyOpenRequests))
    }

    @Test func dataWaitingPastHolesIsCappedPerConnection() {
        let analysis = HTTP3ConnectionAnalysis(limits: HTTPLimits(), roundTripNanoseconds: 1_000_000)
        // streams whose first byte never comes: their data waits (under each stream's own 1 MiB cap)
        // until the connection's cap gives one of them up
        let chunk = [UInt8](repeating: 0x41, count: 1000)
        let perStream = QUICStreamReassembler.maxBufferedBytes / chunk.count - 10
        var packetNumber: UInt64 = 0
        for stream in 0 ..< HTTP3ConnectionAnalysis.maxBufferedBytes / (perStream * chunk.count) + 1 {
            #expect(!analysis.flags.contains(.streamBufferCap))
            for index in 0 ..< perStream {
                let frame: [UInt8] = [0x0e] + Self.varint(stream * 4) + Self.varint(1 + index * chunk.count) + Self.varint(chunk.count) + chunk
                packetNumber += 1
                var contents = Self.datagram(packetNumber: 0, frames: frame)
                contents.packets[0].packetNumber = packetNumber
                _ = analysis.shares(of: contents, fromClient: true, origin: Self.origin(Int(packetNumber)))
            }
        }
        #expect(analysis.flags.contains(.streamBufferCap))
    }

    /// A QUIC varint of 4 bytes.
    static func varint(_ value: Int) -> [UInt8] {
        [0x80 | UInt8(value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
    }
}
