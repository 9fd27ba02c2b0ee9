import Testing

@testable import WireTally

@Suite struct HTTP1ContentDecodingTests {
    typealias Step = HTTP1Script.Step

    static let get = "GET /a HTTP/1.1\r\nHost: x\r\n\r\n"

    /// Some compressible text of `count` bytes.
    static func text(_ count: Int) -> [UInt8] {
        let words = ascii("the quick brown fox jumps over the lazy dog 0123456789 ")
        return (0..<count).map { words[($0 * 7 + $0 / 13) % words.count] }
    }

    static func response(_ body: [UInt8], coding: String, chunked: Bool = false) -> [UInt8] {
        if chunked {
            var out = ascii("HTTP/1.1 200 OK\r\nContent-Encoding: \(coding)\r\nTransfer-Encoding: chunked\r\n\r\n")
            var start = 0
            while start < body.count {
                let end = min(start + 777, body.count)
                out += ascii(String(end - start, radix: 16) + "\r\n") + body[start..<end] + ascii("\r\n")
                start = end
            }
            return out + ascii("0\r\n\r\n")
        }
        return ascii("HTTP/1.1 200 OK\r\nContent-Encoding: \(coding)\r\nContent-Length: \(body.count)\r\n\r\n") + body
    }

    static func decode(_ body: [UInt8], coding: String, chunked: Bool = false, limits: HTTPLimits = HTTPLimits(), piece: Int? = nil)
        -> HTTPMessage?
    {
        let wire = response(body, coding: coding, chunked: chunked)
        var steps: [Step] = [.up(ascii(get))]
        if let piece {
            steps += stride(from: 0, to: wire.count, by: piece).map { Step.down(Array(wire[$0..<min($0 + piece, wire.count)])) }
        } else {
            steps.append(.down(wire))
        }
        return HTTP1Script.run(steps, limits: limits).responses.first
    }

    @Test(arguments: [
        (Compression.Wrapper.gzip, "gzip"), (.gzip, "x-gzip"), (.zlib, "deflate"), (.raw, "deflate"), (.gzip, "deflate"),
    ])
    func decodesWithExactDecodedSize(wrapper: Compression.Wrapper, coding: String) throws {
        let plain = Self.text(100_000)
        let compressed = Compression.compress(plain, wrapper)
        for chunked in [false, true] {
            let message = try #require(Self.decode(compressed, coding: coding, chunked: chunked))
            #expect(message.contentEncoding == coding)
            #expect(message.bytes.body == compressed.count)
            #expect(message.decodedBodyBytes == plain.count)
            #expect(message.flags == [])
        }
        // Fed in small pieces, and with a piece boundary between the two sniffed header bytes.
        let pieces = try #require(Self.decode(compressed, coding: coding, piece: 1 + 80))
        #expect(pieces.decodedBodyBytes == plain.count)
    }

    @Test func stackedCodingsAndConcatenatedGzipMembers() throws {
        let plain = Self.text(20_000)
        let inner = Compression.compress(plain, .gzip)
        let outer = Compression.compress(inner, .zlib)
        let stacked = try #require(Self.decode(outer, coding: "gzip, deflate"))
        #expect(stacked.decodedBodyBytes == plain.count && stacked.flags == [])

        let members = Compression.compress(plain, .gzip) + Compression.compress(Array(plain[0..<500]), .gzip)
        let two = try #require(Self.decode(members, coding: "gzip"))
        #expect(two.decodedBodyBytes == plain.count + 500)

        let identity = try #require(Self.decode(plain, coding: "identity"))
        #expect(identity.decodedBodyBytes == nil && identity.flags == [])
    }

    @Test func gzipBombIsFlaggedNotFollowed() throws {
        let zeros = [UInt8](repeating: 0, count: 50_000_000)
        let compressed = Compression.compress(zeros, .gzip, level: 9)
        // The ratio (about 1000:1 for zeros) stops it past 1 MiB by default…
        let byRatio = try #require(Self.decode(compressed, coding: "gzip"))
        #expect(byRatio.flags == [.decompressionBomb])
        #expect(byRatio.bytes.body == compressed.count)
        #expect((byRatio.decodedBodyBytes ?? 0) > 1 << 20 && (byRatio.decodedBodyBytes ?? .max) < 50_000_000)
        // …and the size cap stops it when the ratio is allowed.
        var limits = HTTPLimits()
        limits.maxDecodingRatio = 1_000_000
        limits.maxDecodedBodyBytes = 4 << 20
        let byCap = try #require(Self.decode(compressed, coding: "gzip", limits: limits))
        #expect(byCap.flags == [.decompressionBomb])
        #expect((byCap.decodedBodyBytes ?? 0) > 4 << 20 && (byCap.decodedBodyBytes ?? .max) < (4 << 20) + (64 << 10))
    }

    @Test func corruptAndUnknownCodingsAreUndecodable() throws {
        var compressed = Compression.compress(Self.text(50_000), .gzip)
        for index in stride(from: 40, to: compressed.count - 20, by: 97) { compressed[index] ^= 0x5a }
        let corrupt = try #require(Self.decode(compressed, coding: "gzip"))
        #expect(corrupt.flags == [.undecodable] && corrupt.decodedBodyBytes == nil)
        #expect(corrupt.bytes.body == compressed.count)

        let unknown = try #require(Self.decode([0x1f, 0x9d, 0x90, 0x61], coding: "compress"))
        #expect(unknown.flags == [.undecodable] && unknown.decodedBodyBytes == nil && unknown.contentEncoding == "compress")
        let stackedUnknown = try #require(Self.decode(Compression.compress(Self.text(100), .gzip), coding: "gzip, compress"))
        #expect(stackedUnknown.flags == [.undecodable] && stackedUnknown.decodedBodyBytes == nil)

        var off = HTTPLimits()
        off.decodeBodies = false
        let skipped = try #require(Self.decode(Compression.compress(Self.text(1000), .gzip), coding: "gzip", limits: off))
        #expect(skipped.decodedBodyBytes == nil && skipped.flags == [] && skipped.contentEncoding == "gzip")
    }

    @Test func gapInAnEncodedBodyMakesItUndecodable() throws {
        let compressed = Compression.compress(Self.text(30_000), .gzip)
        let wire = Self.response(compressed, coding: "gzip")
        let cut = wire.count - compressed.count + 100
        let r = HTTP1Script.run([
            .up(ascii(Self.get)), .down(Array(wire[..<cut])), .gap(.down, 50), .down(Array(wire[(cut + 50)...])),
        ])
        let message = try #require(r.responses.first)
        #expect(message.flags == [.gap, .undecodable] && message.decodedBodyBytes == nil)
        #expect(message.bytes.body == compressed.count)
    }

    @Test func headResponseWithCodingHasNoDecodedSize() throws {
        let r = HTTP1Script.run([
            .up(ascii("HEAD / HTTP/1.1\r\n\r\n")),
            .down(ascii("HTTP/1.1 200 OK\r\nContent-Encoding: br\r\nContent-Length: 100\r\n\r\n")),
        ])
        let message = try #require(r.responses.first)
        #expect(message.flags == [] && message.decodedBodyBytes == nil && message.contentEncoding == "br")
    }
}
