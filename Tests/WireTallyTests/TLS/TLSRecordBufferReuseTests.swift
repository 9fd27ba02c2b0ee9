import Foundation
import Testing
@testable import WireTally

/// The record reader gathers each protected record into one buffer reused from record to record, and
/// the cipher writes each record's nonce into the room before it: whatever the segmentation, every
/// record of a recorded connection opens to the application data tshark decrypted with the same key log
/// (records of every size in a row, handshake and 16 KB ones; a record cut into hundreds of 1-byte
/// segments), and a record that does not authenticate leaves the next one in the reused buffer intact.
@Suite struct TLSRecordBufferReuseTests {
    /// One direction of a recorded connection read by a `TLSRecordReader` and opened by a `TLSDecryptor`
    /// as the analysis does: the outcome of every protected record in order (its application data, empty
    /// for other content, nil when it did not open); nil when the suite is not one wiretally opens.
    static func openRecords(_ connection: RecordedTLSStreams.Connection, fromClient: Bool, secrets: TLSKeyLog.Secrets,
                            stream: [UInt8], chunkSizes: [Int]) -> [[UInt8]?]? {
        let version: UInt16 = connection.isTLS13 ? 0x0304 : 0x0303
        guard let decryptor = TLSDecryptor(
            secrets: secrets, suite: connection.suite, version: version, clientRandom: connection.clientRandom,
            serverRandom: connection.serverRandom, encryptThenMAC: connection.encryptThenMAC) else { return nil }
        let reader = TLSRecordReader(isClient: fromClient)
        let direction: FlowDirection = fromClient ? .up : .down
        var changedCipherSpec = false, outcomes: [[UInt8]?] = []
        reader.keepsProtectedRecords = true
        reader.isEncrypted = { _ in changedCipherSpec && !connection.isTLS13 }
        reader.handler = { event in
            switch event {
            case let .protectedRecord(record):
                switch decryptor.open(record, direction) {
                case let .opened(opened):
                    outcomes.append(opened.contentType == TLSContentType.applicationData.rawValue ? [UInt8](opened.plaintext) : [])
                case .handshakeWithoutKey, .failed:
                    outcomes.append(nil)
                }
            case let .recordEnded(type, _, _):
                if type == .changeCipherSpec { changedCipherSpec = true }
            default:
                break
            }
        }
        var offset = 0, chunk = 0
        while offset < stream.count {
            let length = min(chunkSizes[chunk % chunkSizes.count], stream.count - offset)
            stream[offset ..< offset + length].withUnsafeBytes {
                reader.feed($0, offset: Int64(offset), origin: PacketOrigin(frameNumber: chunk + 1, timestamp: Timestamp(nanoseconds: 0)))
            }
            offset += length
            chunk += 1
        }
        return outcomes
    }

    /// One direction of a recorded connection: its secrets, its records and their stream bytes.
    struct Direction {
        var connection: RecordedTLSStreams.Connection
        var secrets: TLSKeyLog.Secrets
        var fromClient: Bool
        var records: [RecordedTLSStreams.Record]
        var stream: [UInt8]
        var what: String { "stream \(connection.stream) \(fromClient ? "client" : "server")" }

        /// `openRecords` on this direction's connection, with `stream` (its own by default) cut into `chunkSizes`.
        func open(_ stream: [UInt8]? = nil, chunkSizes: [Int]) -> [[UInt8]?]? {
            TLSRecordBufferReuseTests.openRecords(connection, fromClient: fromClient, secrets: secrets,
                                                  stream: stream ?? self.stream, chunkSizes: chunkSizes)
        }
    }

    /// Both directions of every recorded connection of `name` (`captures/NAME.pcap` and `NAME.keys`).
    static func directions(_ name: String) throws -> [Direction] {
        let log = TLSKeyLog(try Data(contentsOf: URL(fileURLWithPath: TestPaths.capture(name + ".keys"))))
        return try RecordedTLSStreams.load(name).connections.flatMap { connection in
            let secrets = try #require(log.secrets(clientRandom: connection.clientRandom), "\(name) stream \(connection.stream)")
            return [true, false].map { fromClient in
                let records = connection.records[fromClient] ?? []
                return Direction(connection: connection, secrets: secrets, fromClient: fromClient, records: records,
                                 stream: records.flatMap { $0.header + $0.body })
            }
        }
    }

    /// Every segmentation opens every record to tshark's application data: the stream in one piece,
    /// 1-byte segments (a 16 KB record gathered from 16,000 of them), and segments of varying sizes that
    /// cut records and headers anywhere.
    @Test(.requires(.tshark), arguments: ["tls13-http1", "tls12-http1", "tls-ciphers"])
    func everySegmentationOpensEveryRecord(_ name: String) throws {
        var opened = 0
        for direction in try Self.directions(name) {
            let truth = direction.connection.tsharkApplicationData[direction.fromClient] ?? []
            for chunkSizes in [[direction.stream.count], [1], [7, 1448, 3, 16_389, 1, 600]] {
                guard let outcomes = direction.open(chunkSizes: chunkSizes) else { continue }
                let what = "\(name) \(direction.what), segments \(chunkSizes)"
                #expect(outcomes.allSatisfy { $0 != nil }, "\(what): every protected record opens")
                #expect(outcomes.compactMap { $0 }.flatMap { $0 } == truth, "\(what): tshark's application data")
                opened += outcomes.count
            }
        }
        #expect(opened > 0)
    }

    /// A damaged byte in one application-data record: that record does not open, and every other
    /// record — the next one gathered into the same buffer first — opens to what it gave undamaged.
    @Test(.requires(.tshark), arguments: ["tls13-http1", "tls12-http1", "tls-ciphers"])
    func aFailedRecordLeavesTheNextOneIntact(_ name: String) throws {
        var damagedRecords = 0
        for direction in try Self.directions(name) {
            let records = direction.records, isTLS13 = direction.connection.isTLS13
            guard let intact = direction.open(chunkSizes: [1448]) else { continue }
            let what = "\(name) \(direction.what)"
            // the protected records in stream order (TLS 1.2: every record after the ChangeCipherSpec)
            let changeCipherSpec = records.firstIndex { $0.contentType == TLSContentType.changeCipherSpec.rawValue }
            let protected = records.indices.filter {
                isTLS13 ? records[$0].contentType == TLSContentType.applicationData.rawValue : $0 > (changeCipherSpec ?? .max)
            }
            try #require(protected.count == intact.count, "\(what): protected records")
            #expect(intact.allSatisfy { $0 != nil }, "\(what)")
            // the last application-data record followed by another (a record carrying a KeyUpdate would
            // fail the records after it by design)
            guard let target = intact.indices.dropLast().last(where: { intact[$0]?.isEmpty == false && intact[$0 + 1]?.isEmpty == false })
            else { continue }
            var damagedStream = direction.stream
            let at = records[..<protected[target]].reduce(0) { $0 + 5 + $1.body.count } + 5 + records[protected[target]].body.count / 2
            damagedStream[at] ^= 0x40
            let damaged = try #require(direction.open(damagedStream, chunkSizes: [1448]))
            try #require(damaged.count == intact.count, "\(what): as many protected records")
            let failed = damaged.indices.filter { damaged[$0] == nil }
            #expect(failed == [target], "\(what): only the damaged record fails: \(failed) of \(damaged.count)")
            for index in damaged.indices where !failed.contains(index) {
                #expect(damaged[index] == intact[index], "\(what): record \(index) after the failed one")
            }
            damagedRecords += 1
        }
        #expect(damagedRecords > 0)
    }

    /// The gather buffer itself: records of different lengths in a row (longer, shorter, empty, the
    /// longest TLS allows), each body whole after its nonce room, whatever was gathered before.
    @Test func gatherBufferHoldsEachRecordWhole() {
        var buffer = TLSRecordGatherBuffer()
        for (index, length) in [300, 17, 16_401, 0, 5, TLSRecordReader.maxRecordLength, 1].enumerated() {
            let body = (0 ..< length).map { UInt8(truncatingIfNeeded: $0 * 7 + index) }
            buffer.start(length: length)
            var offset = 0
            while offset < length {
                let piece = min(1 + (offset % 1500), length - offset)
                body[offset ..< offset + piece].withUnsafeBytes { buffer.append($0) }
                offset += piece
            }
            let sealed = buffer.sealed
            #expect(sealed.count == TLSRecordCipher.nonceRoom + length)
            #expect(Array(sealed[TLSRecordCipher.nonceRoom...]) == body, "record \(index) of \(length) bytes")
        }
    }
}
