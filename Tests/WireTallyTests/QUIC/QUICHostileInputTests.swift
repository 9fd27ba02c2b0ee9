import Testing
@testable import WireTally

/// Truncated, mutated and garbage datagrams never trap, never loop, and a packet whose bytes were
/// changed never passes the AEAD (so nothing forged is reported as read).
@Suite struct QUICHostileInputTests {
    typealias V = QUICTestSupport
    static let packets = [
        QUICRFCVectors.v1.clientProtected, QUICRFCVectors.v1.serverProtected, QUICRFCVectors.v1.retry,
        QUICRFCVectors.v2.clientProtected, QUICRFCVectors.v2.serverProtected, QUICRFCVectors.v2.retry,
    ].map(V.bytes)

    /// Every prefix of every RFC packet, to both directions of a fresh observer and to the header view.
    @Test func everyTruncationIsHandled() {
        for packet in Self.packets {
            for length in 0 ... packet.count {
                let prefix = Array(packet.prefix(length))
                let observer = QUICConnectionObserver()
                observer.observe(prefix, fromClient: true)
                observer.observe(prefix, fromClient: false)
                if length < packet.count, length > 0, let first = prefix.first, first & 0x30 != 0x30 {
                    // a truncated Initial never decrypts
                    #expect(observer.info.clientHello == nil && observer.info.serverHello == nil)
                }
                _ = V.header(prefix, shortHeaderDCIDLength: 8) { $0?.supportedVersions }
            }
        }
    }

    /// Random byte flips, insertions and deletions, and random datagrams, into one observer that
    /// first saw the real client Initial (so it has keys and looks for more).
    @Test func randomMutationsNeverTrap() {
        var random = SeededGenerator(state: 0x5155_4943)
        for round in 0 ..< 400 {
            let observer = QUICConnectionObserver()
            observer.observe(Self.packets[round % 2 == 0 ? 0 : 3], fromClient: true)
            for _ in 0 ..< 4 {
                var packet = Self.packets[Int.random(in: 0 ..< Self.packets.count, using: &random)]
                for _ in 0 ..< Int.random(in: 1 ... 6, using: &random) {
                    let index = Int.random(in: 0 ..< packet.count, using: &random)
                    switch Int.random(in: 0 ..< 4, using: &random) {
                    case 0: packet[index] ^= UInt8.random(in: 1 ... 255, using: &random)
                    case 1: packet.removeSubrange(index ..< min(packet.count, index + Int.random(in: 1 ... 40, using: &random)))
                    case 2: packet.insert(contentsOf: (0 ..< 8).map { _ in UInt8.random(in: 0 ... 255, using: &random) }, at: index)
                    default: packet = Array(packet.prefix(index))
                    }
                    if packet.isEmpty { break }
                }
                observer.observe(packet, fromClient: Bool.random(using: &random))
            }
            let garbage = (0 ..< Int.random(in: 0 ..< 1500, using: &random)).map { _ in UInt8.random(in: 0 ... 255, using: &random) }
            observer.observe(garbage, fromClient: false)
            #expect(observer.info.sourceConnectionIDs.count <= QUICConnectionObserver.maxSourceConnectionIDs)
        }
    }

    /// A flipped bit anywhere in the protected client Initial fails the tag (or the header), so no
    /// ClientHello is read from it.
    @Test func flippedBitsNeverDecrypt() throws {
        let packet = V.bytes(QUICRFCVectors.v1.clientProtected)
        let keys = try #require(QUICInitialKeys(version: .v1, clientDestinationConnectionID: V.bytes("8394c8f03e515708")))
        for index in stride(from: 0, to: packet.count, by: 7) where index != 0 {
            var mutated = packet
            mutated[index] ^= 0x01
            #expect(V.open(mutated, keys: keys.client) == nil, "byte \(index)")
        }
    }

    /// Hostile varints and frames: ACK range counts beyond the packet, CRYPTO lengths beyond it,
    /// huge offsets; the frame parser and the crypto stream stop cleanly.
    @Test func framesAndCryptoStreamBounds() {
        let hugeAck: [UInt8] = [0x02, 0x01, 0x00, 0xbf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00]
        #expect(QUICFrameParser.parse(hugeAck).error == QUICFrameError(offset: 0, type: 2, unknownType: false))
        let longCrypto: [UInt8] = [0x06, 0x00, 0x80, 0x00, 0xff, 0xff, 0x01]
        #expect(QUICFrameParser.parse(longCrypto).error?.type == 6)
        let farCrypto: [UInt8] = [0x06, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x41]
        let walk = QUICFrameParser.parse(farCrypto)
        #expect(walk.error == nil && walk.frames.count == 1)
        var stream = QUICCryptoStream(capacity: 1024)
        if case let .crypto(offset, data)? = walk.frames.first?.kind {
            #expect(stream.add(offset: Int(offset), data: farCrypto[data]).isEmpty)
        }
        #expect(stream.overflowed)
        #expect(QUICFrameParser.parse([0x1f]).error == QUICFrameError(offset: 0, type: 0x1f, unknownType: true))
    }

    /// The CRYPTO stream reassembles out-of-order, overlapping and repeated pieces and delivers each
    /// handshake message once, when complete.
    @Test func cryptoStreamReassemblesOutOfOrder() {
        let message: [UInt8] = [0x01, 0x00, 0x00, 0x06] + [1, 2, 3, 4, 5, 6] + [0x02, 0x00, 0x00, 0x01, 9]
        var stream = QUICCryptoStream()
        #expect(stream.add(offset: 8, data: message[8...]).isEmpty)
        #expect(stream.add(offset: 3, data: message[3 ..< 9]).isEmpty)
        let first = stream.add(offset: 0, data: message[0 ..< 4])
        #expect(first.map(\.type) == [1, 2])
        #expect(first.first?.body == [1, 2, 3, 4, 5, 6] && first.last?.body == [9])
        #expect(stream.add(offset: 0, data: message[...]).isEmpty)  // a repeat delivers nothing again
    }

    @Test func varintsAndPacketNumbers() {
        // RFC 9000 §16 and Appendix A examples
        for (hex, value) in [("c2197c5eff14e88c", UInt64(151_288_809_941_952_652)), ("9d7f3e7d", 494_878_333),
                             ("7bbd", 15293), ("25", 37), ("4025", 37)] {
            var index = 0
            #expect(QUICByteReader.varint(in: V.bytes(hex), at: &index) == value)
        }
        var index = 0
        #expect(QUICByteReader.varint(in: [0xc2, 0x19], at: &index) == nil)
        #expect(QUICPacketProtection.decodePacketNumber(truncated: 0x9b32, length: 2, largest: 0xa82f30ea) == 0xa82f9b32)
    }

    /// Random and mutated plaintexts: the frame parser never traps, its frames tile the plaintext from
    /// the start with in-bounds ranges, and a walk without error covers every byte.
    @Test func randomPlaintextsParseWithinBounds() {
        var random = SeededGenerator(state: 0x4652_414d)
        let seeds: [[UInt8]] = [
            [0x02, 0x05, 0x00, 0x01, 0x02, 0x00, 0x01, 0x03, 0x00, 0x00, 0x00],  // ACK with two ranges
            [0x0f, 0x04, 0x10, 0x03, 0x61, 0x62, 0x63],  // STREAM OFF|LEN|FIN
            [0x18, 0x02, 0x01, 0x04, 1, 2, 3, 4] + [UInt8](repeating: 7, count: 16),  // NEW_CONNECTION_ID
            [0x1c, 0x0a, 0x06, 0x02, 0x68, 0x69, 0x1d, 0x00, 0x00, 0x31, 0x01, 0xff, 0x30, 0x01, 0x02],
        ]
        for round in 0 ..< 3000 {
            var plaintext = seeds[round % seeds.count]
            if round % 3 == 0 {
                plaintext = (0 ..< Int.random(in: 0 ..< 64, using: &random)).map { _ in UInt8.random(in: 0 ... 255, using: &random) }
            } else {
                for _ in 0 ..< Int.random(in: 1 ... 4, using: &random) where !plaintext.isEmpty {
                    let index = Int.random(in: 0 ..< plaintext.count, using: &random)
                    if Bool.random(using: &random) { plaintext[index] = UInt8.random(in: 0 ... 255, using: &random) }
                    else { plaintext = Array(plaintext.prefix(index)) }
                }
            }
            let walk = QUICFrameParser.parse(plaintext)
            var end = 0
            for frame in walk.frames {
                #expect(frame.range.lowerBound == end && frame.range.upperBound <= plaintext.count)
                end = frame.range.upperBound
                switch frame.kind {
                case let .stream(_, _, data, _), let .crypto(_, data), let .datagram(data), let .newConnectionID(_, _, data):
                    #expect(frame.range.contains(data.lowerBound) || data.isEmpty)
                    #expect(data.upperBound <= frame.range.upperBound)
                case let .ack(largest, ranges, _):
                    #expect(ranges.first?.upperBound == largest)
                    #expect(zip(ranges, ranges.dropFirst()).allSatisfy { $0.0.lowerBound > $0.1.upperBound + 1 })
                default:
                    break
                }
            }
            #expect(walk.error == nil ? end == plaintext.count : walk.error?.offset == end)
        }
    }

    /// Varints at their limit, ACK range counts and gaps that run below packet 0 or past the bytes,
    /// CONNECTION_CLOSE reason lengths past the end, NEW_CONNECTION_ID lengths out of 1...20: each stops
    /// the walk at its frame.
    @Test func hostileFieldsStopTheWalk() {
        let max8: [UInt8] = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]
        let cases: [(String, [UInt8])] = [
            ("ack count beyond bytes", [0x02, 0x0a, 0x00, 0x80, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00]),
            ("ack first range below 0", [0x02, 0x01, 0x00, 0x00, 0x02]),
            ("ack gap below 0", [0x02, 0x05, 0x00, 0x01, 0x01, 0x03, 0x00]),
            ("ack range length below 0", [0x02, 0x05, 0x00, 0x01, 0x01, 0x00, 0x03]),
            ("ack ecn counts missing", [0x03, 0x05, 0x00, 0x00, 0x00, 0x01]),
            ("close reason past end", [0x1c, 0x01, 0x00] + max8),
            ("app close reason past end", [0x1d, 0x01, 0x44, 0x00, 0x61]),
            ("stream offset + length ≥ 2^62", [0x0e, 0x00] + max8 + [0x01, 0x61]),
            ("stream length past end", [0x0a, 0x00, 0x05, 0x61]),
            ("new connection id length 0", [0x18, 0x01, 0x00, 0x00] + [UInt8](repeating: 0, count: 16)),
            ("new connection id retire > sequence", [0x18, 0x01, 0x02, 0x01, 0x01] + [UInt8](repeating: 0, count: 16)),
            ("path challenge short", [0x1a, 1, 2, 3]),
            ("new token empty", [0x07, 0x00]),
            ("datagram length past end", [0x31, 0x05, 0x00]),
            ("truncated varint", [0x10, 0xc0, 0x00]),
            ("unknown type", [0x40, 0x21]),
        ]
        for (label, bytes) in cases {
            let walk = QUICFrameParser.parse([0x01] + bytes)
            #expect(walk.frames.first?.kind == .ping && walk.error?.offset == 1, "\(label)")
        }
        // a maximal varint as a value is fine, and consecutive PADDING is one frame
        let fine = QUICFrameParser.parse([0x10] + max8 + [0x00, 0x00, 0x00, 0x01])
        #expect(fine.error == nil && fine.frames.map(\.kind) == [.maxData((1 << 62) - 1), .padding, .ping])
        #expect(fine.frames[1].range == 9 ..< 12)
    }

    /// A keyed observer fed mutated datagrams of a real connection (flipped bytes, cuts, inserted
    /// garbage, after its real handshake): never traps, every datagram's packets and trailing bytes are
    /// the payload, and nothing damaged decrypts.
    @Test func keyedObserverSurvivesMutatedDatagrams() throws {
        let name = "quic-sequential"
        let datagrams = try QUICCaptureTests.datagrams(TestPaths.capture(name + ".pcap"))
        let keys = try TLSKeyStore.reading(files: [TestPaths.capture(name + ".keys")])
        var random = SeededGenerator(state: 0x4b45_5953)
        let observer = QUICConnectionObserver(keys: keys)
        for datagram in datagrams.prefix(6) { observer.observe(datagram.payload, fromClient: datagram.destinationPort == 443) }
        let decrypted = observer.info.decryption?.decrypted ?? 0
        for _ in 0 ..< 600 {
            let datagram = datagrams[Int.random(in: 0 ..< datagrams.count, using: &random)]
            var payload = datagram.payload
            let index = Int.random(in: 0 ..< payload.count, using: &random)
            switch Int.random(in: 0 ..< 3, using: &random) {
            case 0: payload[index] ^= UInt8.random(in: 1 ... 255, using: &random)
            case 1: payload = Array(payload.prefix(index))
            default: payload.insert(contentsOf: (0 ..< 9).map { _ in UInt8.random(in: 0 ... 255, using: &random) }, at: index)
            }
            let contents = observer.observe(payload, fromClient: datagram.destinationPort == 443)
            QUICKeyedObservation.checkIdentities(contents, payloadLength: payload.count, "mutated")
        }
        #expect((observer.info.decryption?.decrypted ?? 0) >= decrypted)
        #expect(observer.info.flags.contains("decrypt_failed"))
    }
}
