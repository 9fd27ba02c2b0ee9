import Testing
@testable import WireTally

/// Hostile input never traps and stays bounded (this suite also runs under AddressSanitizer, see
/// scripts/test).
@Suite struct HTTP3HostileInputTests {
    private let origin = PacketOrigin(frameNumber: 1, timestamp: Timestamp(nanoseconds: 0))

    private func parser(_ recorder: HTTP3Recorder, maxOpenRequests: Int = 1000) -> HTTP3ConnectionParser {
        var limits = HTTPLimits()
        limits.maxHeaderBytes = 4096
        limits.maxOpenRequests = maxOpenRequests
        return HTTP3ConnectionParser(limits: limits, delegate: recorder)
    }

    private func send(_ parser: HTTP3ConnectionParser, _ stream: UInt64, client: Bool, _ bytes: [UInt8], at offset: Int64 = 0, fin: Bool = false) {
        bytes.withUnsafeBytes { parser.receive(stream: stream, fromClient: client, offset: offset, bytes: $0, fin: fin, origin: origin) }
    }

    /// Random bytes on every kind of stream (request streams both ways, client and server
    /// unidirectional streams, with and without a stream type byte first), fed in random pieces.
    @Test(arguments: 0..<20) func randomBytes(seed: Int) {
        var state = UInt64(seed) &* 0x9E3779B97F4A7C15 | 1
        func next() -> UInt64 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return state
        }
        let recorder = HTTP3Recorder()
        let parser = parser(recorder, maxOpenRequests: 4)
        var offsets: [String: Int64] = [:]
        for _ in 0..<400 {
            let streams: [UInt64] = [0, 4, 8, 12, 16, 2, 3, 6, 7, 10, 11, 1, 5]
            let stream = streams[Int(next() % UInt64(streams.count))]
            let client = stream & 0x3 == 0 ? next() & 1 == 0 : stream & 0x3 != 0b11
            let key = "\(stream)/\(client)"
            var bytes = (0..<Int(next() % 64)).map { _ in UInt8(truncatingIfNeeded: next()) }
            let offset = offsets[key] ?? 0
            if offset == 0 && stream & 0x2 != 0 && next() % 2 == 0 { bytes.insert(UInt8(next() % 4), at: 0) }
            switch next() % 16 {
            case 0: parser.gap(stream: stream, fromClient: client, offset: offset, length: Int64(next() % 100))
            case 1: parser.reset(stream: stream, fromClient: client, errorCode: 0x10c, finalSize: next() % 1000)
            case 2: parser.stopSending(stream: stream, fromClient: client, errorCode: 0x10c)
            default: send(parser, stream, client: client, bytes, at: offset, fin: next() % 20 == 0)
            }
            offsets[key] = offset + Int64(bytes.count) + 100
        }
        parser.finish()
        for entry in recorder.messages { #expect(entry.message.bytes.total >= 0) }
        #expect(parser.info.requestStreams <= 5 + parser.info.streamsOverCap)
    }

    /// A DATA frame claiming 1 GB is streamed, not buffered: 1 MiB of it is counted as body and
    /// the message, cut by the end of the connection, is `.incomplete`. A HEADERS frame claiming
    /// 2^62-1 bytes is flagged too large and skipped; varints of the largest size are read.
    @Test func hugeLengthClaims() {
        let recorder = HTTP3Recorder()
        let parser = parser(recorder)
        // HEADERS (static :method GET, :path /), then DATA with length 2^30 (4-byte varint 0x80 0x40 0x00 0x00 = 1 GB).
        send(parser, 0, client: true, [0x01, 0x04, 0x00, 0x00, 0xd1, 0xc1, 0x00, 0xc0, 0x00, 0x00, 0x00, 0x40, 0x00, 0x00, 0x00])
        let megabyte = [UInt8](repeating: 0x61, count: 1 << 20)
        send(parser, 0, client: true, megabyte, at: 15)
        // Response: HEADERS with an 8-byte length of 2^62 - 1.
        send(parser, 0, client: false, [0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff] + [UInt8](repeating: 0, count: 5000))
        parser.finish()
        let request = recorder.message(0, .up)
        #expect(request?.method == "GET" && request?.bytes.body == 1 << 20 && request?.flags.contains(.incomplete) == true)
        let response = recorder.message(0, .down)
        #expect(response?.flags.contains(.headersTooLarge) == true && response?.bytes.headers == 5000)
    }

    /// A field section that refers past the table, and one whose prefixed integer overflows, fail
    /// alone (`qpackError`); the next request on the connection decodes.
    @Test func badSectionsFailAlone() {
        let recorder = HTTP3Recorder()
        let parser = parser(recorder)
        // Indexed dynamic line with RIC 0 (no entry may be referenced); then an integer of 12 continuation bytes.
        send(parser, 0, client: true, [0x01, 0x03, 0x00, 0x00, 0x80], fin: true)
        send(parser, 4, client: true, [0x01, 0x0f, 0x00, 0x00, 0xff] + [UInt8](repeating: 0xff, count: 11) + [0x01], fin: true)
        send(parser, 8, client: true, [0x01, 0x04, 0x00, 0x00, 0xd1, 0xc1], fin: true)
        parser.finish()
        #expect(recorder.message(0, .up)?.http3?.qpackError == true)
        #expect(recorder.message(4, .up)?.http3?.qpackError == true)
        #expect(recorder.message(8, .up)?.method == "GET" && recorder.message(8, .up)?.http3?.qpackError == false)
        #expect(parser.info.qpackSectionErrors.up == 2)
    }

    /// HTTP/2-only frame types on a request stream are counted as unexpected (`.malformed`); a
    /// section blocked on inserts that never come fails at the end of the connection; a gap across
    /// a frame header makes the rest of the direction unframed body (`.gap`), bytes still counted.
    @Test func unexpectedFramesBlockedForeverAndGaps() {
        let recorder = HTTP3Recorder()
        let parser = parser(recorder)
        send(parser, 0, client: true, [0x01, 0x02, 0x00, 0x00, 0x06, 0x01, 0x00], fin: true)  // HEADERS, then PING (0x6)
        send(parser, 4, client: true, [0x01, 0x03, 0x02, 0x00, 0x80], fin: true)  // RIC 1 without any insert
        send(parser, 8, client: true, [0x01, 0x02, 0x00, 0x00, 0x00, 0x05, 1, 2, 3, 4, 5])
        parser.gap(stream: 8, fromClient: true, offset: 11, length: 3)
        send(parser, 8, client: true, [9, 9, 9, 9], at: 14, fin: true)
        parser.finish()
        let first = recorder.message(0, .up)
        #expect(first?.http3?.unexpectedFrames == 1 && first?.flags.contains(.malformed) == true && first?.bytes.total == 7)
        #expect(recorder.message(4, .up)?.http3?.qpackError == true && recorder.message(4, .up)?.http3?.qpackBlocked == true)
        let third = recorder.message(8, .up)
        #expect(third?.flags.contains(.gap) == true && third?.http3?.unframedBytes == 7 && third?.bytes.total == 18)
    }

    /// Beyond `maxOpenRequests` open request streams, streams are not followed but counted.
    @Test func openStreamsCap() {
        let recorder = HTTP3Recorder()
        let parser = parser(recorder, maxOpenRequests: 2)
        for stream in stride(from: UInt64(0), to: 40, by: 4) { send(parser, stream, client: true, [0x01, 0x02, 0x00, 0x00]) }
        #expect(parser.info.requestStreams == 2 && parser.info.streamsOverCap == 8 && parser.info.bytesOverCap == 32)
        parser.finish()
        #expect(recorder.messages.count == 2)
    }
}
