import Foundation
import Testing
@testable import WireTally

extension Requirement {
    /// Wireshark's editcap (writes pcapng files with Decryption Secrets Blocks: `--inject-secrets`).
    static let editcap = program("editcap", need: "editcap (apt-get install wireshark-common, or scripts/setup with WIRETALLY_TEST_TOOLS=1)")
    /// Wireshark's capinfos (counts a file's decryption secrets blocks).
    static let capinfos = program("capinfos", need: "capinfos (apt-get install wireshark-common, or scripts/setup with WIRETALLY_TEST_TOOLS=1)")
}

/// pcapng Decryption Secrets Blocks: `DecryptionSecretsScan` finds the TLS key logs of files that
/// Wireshark's editcap wrote (`--inject-secrets`, the DSB before the packets), that our writer wrote
/// with the DSB after the packets, with two sections, gzip-compressed, damaged; tshark decrypting
/// with the embedded keys and capinfos counting the blocks say the files are what the test claims;
/// the truth for the secrets is the key log curl wrote while recording `tls13-http1`.
@Suite struct DecryptionSecretsTests {
    static let pcap = TestPaths.capture("tls13-http1.pcap")
    static let keys = TestPaths.capture("tls13-http1.keys")
    static let packetCount = 82

    static func keyLogBytes() throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: keys))) }

    // MARK: Truth from the Wireshark tools

    /// The requests tshark found when `tls13-http1` was recorded, decrypted with curl's key log
    /// (`tls13-http1.http.tsv`): frame, method, target.
    static func recordedRequests() throws -> [[String]] {
        let table = try TruthTable.load("tls13-http1", "http.tsv")
        let requests = table.rows.filter { !$0["http.request.method"].isEmpty }
            .map { [$0["frame.number"], $0["http.request.method"], $0["http.request.uri"]] }
        #expect(requests.count == 6, "tls13-http1 has six requests")
        return requests
    }

    /// The requests tshark decrypts in `path` with only the keys the file itself carries.
    static func tsharkRequests(_ path: String) throws -> [[String]] {
        try Tshark.fields(path, filter: "http.request", ["frame.number", "http.request.method", "http.request.uri"],
                          options: ["-o", "tls.keylog_file:"])
    }

    /// capinfos' count of the decryption secrets blocks in `path`.
    static func capinfosSecrets(_ path: String) throws -> Int {
        let text = String(decoding: try ExternalProgram.output("capinfos", [path]), as: UTF8.self)
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("Number of decryption secrets in file:") },
                                "capinfos printed no secrets count for \(path)")
        return try #require(Int(line.split(separator: ":").last!.trimmingCharacters(in: .whitespaces)))
    }

    /// `editcap` with the arguments (its "Running as root" chatter is on standard error).
    static func editcap(_ arguments: [String]) throws {
        _ = try ExternalProgram.output("editcap", arguments)
    }

    // MARK: Helpers

    /// The packets of `tls13-http1.pcap` written by `PcapNGWriter`, with `before` written as DSBs
    /// before them and `after` after them.
    static func rewritten(before: [[UInt8]] = [], after: [[UInt8]] = [], byteOrder: ByteOrder = .littleEndian) throws -> [UInt8] {
        let writer = try PcapNGWriter(destination: .memory, byteOrder: byteOrder)
        for secrets in before { try writer.writeDecryptionSecrets(tlsKeyLog: secrets) }
        var source = try CaptureFile.open(path: pcap)
        while let packet = try source.nextPacket() { try writer.write(packet) }
        for secrets in after { try writer.writeDecryptionSecrets(tlsKeyLog: secrets) }
        return writer.bytes
    }

    /// Checks that `path` reads (with `PcapNGReader`) as exactly the packets of `tls13-http1.pcap`.
    static func expectSamePacketsAsThePcap(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let original = readAll(path: pcap)
        let read = readAll(path: path)
        #expect(original.error == nil && read.error == nil, "\(read.error.map { "\($0)" } ?? "")", sourceLocation: sourceLocation)
        #expect(read.packets.count == packetCount, sourceLocation: sourceLocation)
        #expect(read.packets.map(\.bytes) == original.packets.map(\.bytes), sourceLocation: sourceLocation)
        #expect(read.packets.map(\.nanoseconds) == original.packets.map(\.nanoseconds), sourceLocation: sourceLocation)
        #expect(read.packets.map(\.originalLength) == original.packets.map(\.originalLength), sourceLocation: sourceLocation)
    }

    /// Checks that the scan's joined key log holds exactly the secrets of `keyLog` (a key log's bytes).
    static func expectSameSecrets(_ scan: DecryptionSecretsScan, as keyLog: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let expected = TLSKeyLog(keyLog)
        let found = scan.tlsKeyLog
        #expect(found.problems.isEmpty, "\(found.problems)", sourceLocation: sourceLocation)
        #expect(found.secretCount == expected.secretCount, sourceLocation: sourceLocation)
        #expect(found.connectionCount == expected.connectionCount, sourceLocation: sourceLocation)
        for random in try clientRandoms(keyLog) {
            #expect(found.secrets(clientRandom: random) == expected.secrets(clientRandom: random), sourceLocation: sourceLocation)
        }
    }

    /// The distinct client randoms of a key log's lines, in order, read from the text itself.
    static func clientRandoms(_ keyLog: [UInt8]) throws -> [[UInt8]] {
        var seen: [[UInt8]] = []
        for line in String(decoding: keyLog, as: UTF8.self).split(separator: "\n") {
            let random = try Tshark.bytes(line.split(separator: " ")[1])
            if !seen.contains(random) { seen.append(random) }
        }
        return seen
    }

    /// The key log's lines for one client random (hex as in the file), with their newlines.
    static func lines(of keyLog: [UInt8], clientRandom: [UInt8]) -> [UInt8] {
        let hex = clientRandom.map { String(format: "%02x", $0) }.joined()
        return String(decoding: keyLog, as: UTF8.self).split(separator: "\n")
            .filter { $0.split(separator: " ")[1].lowercased() == hex }
            .flatMap { Array($0.utf8) + [UInt8(ascii: "\n")] }
    }

    /// Offsets where each block of a (well-formed, little-endian) pcapng file starts, and its end.
    static func blockBoundaries(_ bytes: [UInt8]) -> [(type: UInt32, start: Int, end: Int)] {
        var blocks: [(UInt32, Int, Int)] = []
        var offset = 0
        while offset + 8 <= bytes.count {
            let type = bytes[offset..<offset + 4].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            let length = bytes[offset + 4..<offset + 8].reversed().reduce(0) { $0 << 8 | Int($1) }
            blocks.append((type, offset, offset + length))
            offset += length
        }
        return blocks
    }

    // MARK: Files Wireshark wrote

    /// editcap --inject-secrets puts curl's key log in a DSB before the packets: capinfos counts it,
    /// tshark decrypts every request with it alone, the scan returns exactly the key log's bytes (one
    /// payload, the same secrets) and the packet reader reads the same 82 packets as from the pcap.
    @Test(.requires(.tshark, .editcap, .capinfos))
    func editcapInjectedSecretsAreTheKeyLog() throws {
        let scratch = try TemporaryDirectory()
        let injected = scratch.path + "/injected.pcapng"
        try Self.editcap(["--inject-secrets", "tls,\(Self.keys)", Self.pcap, injected])
        #expect(try Self.capinfosSecrets(injected) == 1)
        #expect(try Self.tsharkRequests(injected) == Self.recordedRequests())
        #expect(try Self.tsharkRequests(Self.pcap).isEmpty, "without the DSB tshark decrypts nothing")

        let scan = try DecryptionSecretsScan(path: injected)
        let keyLog = try Self.keyLogBytes()
        #expect(scan.tlsKeyLogs == [keyLog])
        #expect(try DecryptionSecretsScan.tlsKeyLogSecrets(in: injected) == [keyLog])
        #expect(scan.damage == nil)
        #expect(scan.sections == 1)
        #expect(scan.packetBlocks == Self.packetCount)
        #expect(scan.otherSecretsBlocks == 0 && scan.malformedSecretsBlocks == 0 && scan.droppedTLSKeyLogs == 0)
        try Self.expectSameSecrets(scan, as: keyLog)
        #expect(scan.tlsKeyLog.secretCount == 8, "four traffic secrets for each of the two connections (exporter lines skipped)")
        #expect(scan.tlsKeyLog.connectionCount == 2)
        Self.expectSamePacketsAsThePcap(injected)
    }

    /// Two sections, each with the secrets of its own connection (editcap on each half of the capture,
    /// the files concatenated): tshark decrypts every request, capinfos counts both blocks, the scan
    /// returns both payloads in file order and the reader all 82 packets.
    @Test(.requires(.tshark, .editcap, .capinfos))
    func twoSectionsEachWithItsSecrets() throws {
        let scratch = try TemporaryDirectory()
        let keyLog = try Self.keyLogBytes()
        let hellos = try Tshark.fields(Self.pcap, filter: "tls.handshake.type == 1", ["frame.number", "tcp.stream", "tls.handshake.random"])
        #expect(hellos.map { $0[1] } == ["0", "1"])
        let streams = try Tshark.fields(Self.pcap, filter: "tcp.stream == 1", ["frame.number"])
        let split = try #require(Int(streams[0][0]))
        #expect(try Tshark.fields(Self.pcap, filter: "frame.number >= \(split) && !(tcp.stream == 1)", ["frame.number"]).isEmpty,
                "the second connection has every frame from its first on")
        var parts: [[UInt8]] = []
        var halves: [[UInt8]] = []
        for (index, range) in ["1-\(split - 1)", "\(split)-\(Self.packetCount)"].enumerated() {
            let half = Self.lines(of: keyLog, clientRandom: try Tshark.bytes(hellos[index][2]))
            #expect(String(decoding: half, as: UTF8.self).split(separator: "\n").count == 5)
            let halfKeys = try scratch.file("half\(index).keys", half)
            let part = scratch.path + "/part\(index).pcapng"
            try Self.editcap(["--inject-secrets", "tls,\(halfKeys)", "-r", Self.pcap, part, range])
            parts.append(Array(try Data(contentsOf: URL(fileURLWithPath: part))))
            halves.append(half)
        }
        let joined = try scratch.file("two-sections.pcapng", parts[0] + parts[1])
        #expect(try Self.capinfosSecrets(joined) == 2)
        #expect(try Self.tsharkRequests(joined) == Self.recordedRequests())

        let scan = try DecryptionSecretsScan(path: joined)
        #expect(scan.tlsKeyLogs == halves)
        #expect(scan.sections == 2)
        #expect(scan.packetBlocks == Self.packetCount)
        #expect(scan.damage == nil)
        try Self.expectSameSecrets(scan, as: keyLog)
        Self.expectSamePacketsAsThePcap(joined)

        // The same two sections with the second one's secrets after its packets (our writer).
        let secondWithSecretsLast = try Self.rewrittenRange(split..., after: [halves[1]])
        let mixed = try scratch.file("first-before-second-after.pcapng", parts[0] + secondWithSecretsLast)
        let mixedScan = try DecryptionSecretsScan(path: mixed)
        #expect(mixedScan.tlsKeyLogs == halves)
        #expect(mixedScan.sections == 2 && mixedScan.packetBlocks == Self.packetCount && mixedScan.damage == nil)
        Self.expectSamePacketsAsThePcap(mixed)
        #expect(try Self.capinfosSecrets(mixed) == 2)
        #expect(try Self.tsharkRequests(mixed) == Self.recordedRequests().filter { Int($0[0])! < split },
                "tshark decrypts only the section whose secrets come before its packets")

        // gzip-compressed, whole.
        let compressed = try scratch.file("two-sections.pcapng.gz", try gzipped(parts[0] + parts[1]))
        let compressedScan = try DecryptionSecretsScan(path: compressed)
        #expect(compressedScan.tlsKeyLogs == halves)
        #expect(compressedScan.sections == 2 && compressedScan.packetBlocks == Self.packetCount && compressedScan.damage == nil)
    }

    /// The frames of `tls13-http1.pcap` from `range.lowerBound` (1-based) on, in a pcapng section of
    /// their own written by `PcapNGWriter`, the secrets after them.
    static func rewrittenRange(_ range: PartialRangeFrom<Int>, after: [[UInt8]]) throws -> [UInt8] {
        let writer = try PcapNGWriter(destination: .memory)
        var source = try CaptureFile.open(path: pcap)
        var frame = 0
        while let packet = try source.nextPacket() {
            frame += 1
            if range.contains(frame) { try writer.write(packet) }
        }
        for secrets in after { try writer.writeDecryptionSecrets(tlsKeyLog: secrets) }
        return writer.bytes
    }

    // MARK: Files our writer wrote

    /// The DSB after every packet (what `live -w … --keylog` writes): the scan finds it as it finds
    /// editcap's, the reader reads the packets as from the pcap, capinfos counts the block, but
    /// tshark (4.0) decrypts nothing with it: Wireshark takes a DSB's secrets when it reads the
    /// block, after it has dissected the packets before it (the spec lets tools "limit decryption to
    /// secrets that appear before packet blocks"). The same block written before the packets makes
    /// tshark decrypt every request, in either byte order.
    @Test(.requires(.tshark, .capinfos))
    func secretsAfterThePacketsScanTheSame() throws {
        let scratch = try TemporaryDirectory()
        let keyLog = try Self.keyLogBytes()
        let afterPath = try scratch.file("after.pcapng", try Self.rewritten(after: [keyLog]))
        let scan = try DecryptionSecretsScan(path: afterPath)
        #expect(scan.tlsKeyLogs == [keyLog])
        #expect(scan.sections == 1 && scan.packetBlocks == Self.packetCount && scan.damage == nil)
        try Self.expectSameSecrets(scan, as: keyLog)
        Self.expectSamePacketsAsThePcap(afterPath)
        #expect(try Self.capinfosSecrets(afterPath) == 1)
        #expect(try Self.tsharkRequests(afterPath).isEmpty, "tshark uses no secrets that come after the packets")
        #expect(try Tshark.fields(afterPath, ["frame.number"]).count == Self.packetCount, "and reads the file to its end")

        for byteOrder in [ByteOrder.littleEndian, .bigEndian] {
            let beforePath = try scratch.file("before-\(byteOrder).pcapng", try Self.rewritten(before: [keyLog], byteOrder: byteOrder))
            #expect(try Self.tsharkRequests(beforePath) == Self.recordedRequests(), "\(byteOrder)")
            #expect(try Self.capinfosSecrets(beforePath) == 1)
            #expect(try DecryptionSecretsScan(path: beforePath).tlsKeyLogs == [keyLog], "\(byteOrder)")
            Self.expectSamePacketsAsThePcap(beforePath)
        }

        let compressed = try scratch.file("after.pcapng.gz", try gzipped(try Self.rewritten(after: [keyLog])))
        let compressedScan = try DecryptionSecretsScan(path: compressed)
        #expect(compressedScan.tlsKeyLogs == [keyLog])
        #expect(compressedScan.packetBlocks == Self.packetCount && compressedScan.damage == nil)
    }

    /// A key log longer than a block's limit is split at line ends (here a limit of 400 bytes, so
    /// that curl's 1,876-byte log takes five blocks of up to two lines, and 16 MiB in the public
    /// `writeDecryptionSecrets`): the blocks joined are the log, and tshark decrypts every request
    /// with the secrets spread over them. A line longer than the limit is cut. A log without a last
    /// newline gets one; an empty log writes nothing.
    @Test(.requires(.tshark, .capinfos))
    func longKeyLogsAreSplitAtLineEnds() throws {
        let keyLog = try Self.keyLogBytes()
        let lineEnds = keyLog.indices.filter { keyLog[$0] == UInt8(ascii: "\n") }.map { $0 + 1 }
        #expect(lineEnds.count == 10)
        let writer = try PcapNGWriter(destination: .memory)
        try writer.writeDecryptionSecrets(tlsKeyLog: keyLog, blockLimit: 400)
        var source = try CaptureFile.open(path: Self.pcap)
        while let packet = try source.nextPacket() { try writer.write(packet) }
        let scratch = try TemporaryDirectory()
        let path = try scratch.file("split.pcapng", writer.bytes)
        let scan = try DecryptionSecretsScan(path: path)
        #expect(scan.tlsKeyLogs.allSatisfy { $0.last == UInt8(ascii: "\n") && $0.count <= 400 })
        #expect(scan.tlsKeyLogs.joined().elementsEqual(keyLog))
        // Each block ends at the last line end within 400 bytes of its start.
        var expectedEnds: [Int] = []
        var start = 0
        while start < keyLog.count {
            start = lineEnds.last { $0 <= start + 400 }!
            expectedEnds.append(start)
        }
        #expect(scan.tlsKeyLogs.map(\.count) == zip(expectedEnds, [0] + expectedEnds).map { $0 - $1 })
        #expect(scan.tlsKeyLogs.count == 5)
        try Self.expectSameSecrets(scan, as: keyLog)
        #expect(try Self.capinfosSecrets(path) == 5)
        #expect(try Self.tsharkRequests(path) == Self.recordedRequests())

        let cut = try PcapNGWriter(destination: .memory)
        try cut.writeDecryptionSecrets(tlsKeyLog: keyLog, blockLimit: 100)
        let cutScan = try DecryptionSecretsScan(path: try scratch.file("cut.pcapng", cut.bytes))
        #expect(cutScan.tlsKeyLogs.joined().elementsEqual(keyLog))
        #expect(cutScan.tlsKeyLogs.map(\.count).max() == 100)

        let unterminated = try PcapNGWriter(destination: .memory)
        try unterminated.writeDecryptionSecrets(tlsKeyLog: Array(keyLog.dropLast()))
        try unterminated.writeDecryptionSecrets(tlsKeyLog: [])
        let unterminatedScan = try DecryptionSecretsScan(path: try scratch.file("unterminated.pcapng", unterminated.bytes))
        #expect(unterminatedScan.tlsKeyLogs == [keyLog])
        #expect(unterminated.bytes.count == 28 + 20 + keyLog.count, "SHB, and one DSB of 20 bytes + the log (a multiple of 4)")
    }

    // MARK: Everything the block structure allows

    /// Built block by block: DSBs with options, of other secrets types, with a secrets length that
    /// does not fit, in a big-endian second section, around packets, unknown blocks and a packet
    /// block big enough to be passed with lseek (and inflated past in the .gz copy).
    @Test func secretsAmongEveryKindOfBlock() throws {
        var builder = PcapNGBuilder()
        let first = Array("CLIENT_RANDOM 01 02\n".utf8), second = Array("# second section\n".utf8), third = Array("x".utf8)
        builder.sectionHeader()
        builder.interface(linkType: 1)
        builder.block(0x0A) {
            $0.u32(0x5747_4B4C)  // WireGuard
            $0.u32(4)
            $0.raw([1, 2, 3, 4])
        }
        builder.enhancedPacket(interface: 0, units: 1, data: [1, 2, 3])
        builder.block(0x0A) {
            $0.u32(DecryptionSecretsScan.tlsKeyLogType)
            $0.u32(UInt32(first.count))
            $0.raw(first)
            $0.pad()
            $0.u16(1)  // opt_comment
            $0.u16(5)
            $0.raw(Array("hello".utf8))
            $0.pad()
            $0.u32(0)
        }
        builder.block(0x0A) {
            $0.u32(DecryptionSecretsScan.tlsKeyLogType)
            $0.u32(9)  // says 9 bytes, has 8
            $0.raw(Array("ABCDEFGH".utf8))
        }
        builder.enhancedPacket(interface: 0, units: 2, data: [UInt8](repeating: 7, count: 3_000_000))
        builder.block(0x0BAD) { $0.u32(12345) }
        builder.sectionHeader(.bigEndian)
        builder.block(0x0A) {
            $0.u32(DecryptionSecretsScan.tlsKeyLogType)
            $0.u32(UInt32(second.count))
            $0.raw(second)
        }
        builder.interface(linkType: 1)
        builder.simplePacket(originalLength: 2, data: [9, 9])
        builder.block(0x0A) {
            $0.u32(DecryptionSecretsScan.tlsKeyLogType)
            $0.u32(1)
            $0.raw(third)
        }
        let scratch = try TemporaryDirectory()
        for (name, bytes) in [("blocks.pcapng", builder.bytes), ("blocks.pcapng.gz", try gzipped(builder.bytes))] {
            let path = try scratch.file(name, bytes)
            let scan = try DecryptionSecretsScan(path: path)
            #expect(scan.tlsKeyLogs == [first, second, third], "\(name)")
            #expect(scan.otherSecretsBlocks == 1 && scan.malformedSecretsBlocks == 1, "\(name)")
            #expect(scan.sections == 2 && scan.packetBlocks == 3 && scan.damage == nil, "\(name)")
            let read = readAll(path: path)
            #expect(read.error == nil, "\(name)")
            #expect(read.packets.map(\.bytes.count) == [3, 3_000_000, 2], "\(name)")
        }

        // Cut inside the big packet block: the secrets before it stay, the damage says where.
        let bigPacketStart = Self.blockBoundaries(builder.bytes).first { $0.end - $0.start > 3_000_000 }!.start
        for cut in [bigPacketStart + 100, bigPacketStart + 2_000_000, bigPacketStart + 3_000_030] {
            for (name, bytes) in [("cut.pcapng", Array(builder.bytes[..<cut])), ("cut.pcapng.gz", try gzipped(Array(builder.bytes[..<cut])))] {
                let scan = try DecryptionSecretsScan(path: try scratch.file(name, bytes))
                #expect(scan.tlsKeyLogs == [first], "\(name) at \(cut)")
                #expect(scan.packetBlocks == 1, "\(name) at \(cut)")
                guard case .truncated(_, 1, _)? = scan.damage else {
                    Issue.record("\(name) at \(cut): \(String(describing: scan.damage))")
                    continue
                }
            }
        }
    }

    /// `CaptureInput.skip`, which the scan passes packet blocks with: within the buffer, past it (by
    /// lseek in a plain file, inflating in a .gz), up to the end and beyond it, the bytes after a skip
    /// are the file's bytes at that offset and the count says how far it got.
    @Test func skipLandsOnTheRightBytes() throws {
        let size = 3_000_000
        var generator = SeededGenerator(state: 3)
        var pattern: [UInt8] = []
        pattern.reserveCapacity(size)
        while pattern.count < size { withUnsafeBytes(of: generator.next()) { pattern += $0 } }
        let scratch = try TemporaryDirectory()
        for path in [try scratch.file("plain", pattern), try scratch.file("compressed", try gzipped(pattern))] {
            let input = try CaptureInput(path: path)
            var position = 0
            for step in [10, 100, 70_000, 1_500_000, 1, 65_536, 1_000_000] {
                #expect(try input.skip(step) == step, "\(path) +\(step)")
                position += step
                #expect(try input.fill(16) == 16)
                #expect(Array(UnsafeRawBufferPointer(start: input.bytes, count: 16)) == Array(pattern[position..<position + 16]),
                        "\(path) at \(position)")
            }
            #expect(try input.skip(size) == size - position, "\(path): skipped to the end only")
            #expect(try input.fill(1) == 0)
            #expect(try input.skip(1) == 0)
        }
    }

    /// pcap files have no blocks: nothing is found (plain and gzip). What is no capture at all throws.
    @Test func pcapAndNonCaptures() throws {
        let scratch = try TemporaryDirectory()
        let plain = try DecryptionSecretsScan(path: Self.pcap)
        #expect(plain.tlsKeyLogs.isEmpty && plain.sections == 0 && plain.packetBlocks == 0 && plain.damage == nil)
        let pcapBytes = Array(try Data(contentsOf: URL(fileURLWithPath: Self.pcap)))
        let compressed = try DecryptionSecretsScan(path: try scratch.file("tls13-http1.pcap.gz", try gzipped(pcapBytes)))
        #expect(compressed.tlsKeyLogs.isEmpty && compressed.damage == nil)

        var generator = SeededGenerator(state: 10)
        let garbage = [0] + (0..<5000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        for (name, bytes, expected) in [
            ("garbage", garbage, "not a pcap"), ("garbage.gz", try gzipped(garbage), "not a pcap"),
            ("empty", [], "truncated"), ("three", [0x0A, 0x0D, 0x0D], "truncated"),
            ("corrupt.gz", [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 0xff, 0xff, 0xff, 0xff], "gzip data is corrupt"),
        ] as [(String, [UInt8], String)] {
            let path = try scratch.file(name, bytes)
            #expect {
                _ = try DecryptionSecretsScan(path: path)
            } throws: { error in
                "\(error)".contains(expected)
            }
        }
        #expect(throws: CaptureError.cannotOpen(path: scratch.path + "/absent", reason: "No such file or directory")) {
            try DecryptionSecretsScan.tlsKeyLogSecrets(in: scratch.path + "/absent")
        }
    }

    // MARK: Damage

    /// Cuts of a file with the secrets before the packets and of one with them after — within 4
    /// bytes of every block end, and 300 random ones: never a crash; the secrets are found exactly
    /// when the cut leaves their block whole; a cut at a block end is no damage, any other is
    /// `.truncated` after the packet blocks before it (as many as the packet reader reads from the
    /// same cut file).
    @Test func truncations() throws {
        let keyLog = try Self.keyLogBytes()
        let scratch = try TemporaryDirectory()
        var generator = SeededGenerator(state: 0x544C_534B)
        for bytes in [try Self.rewritten(before: [keyLog]), try Self.rewritten(after: [keyLog])] {
            let blocks = Self.blockBoundaries(bytes)
            #expect(blocks.last!.end == bytes.count)
            let secretsEnd = try #require(blocks.first { $0.type == 0x0A }).end
            let nearEnds = blocks.flatMap { ($0.end - 4...$0.end + 4).filter { $0 >= 4 && $0 < bytes.count } }
            let cuts = Set(nearEnds + (0..<300).map { _ in Int.random(in: 4..<bytes.count, using: &generator) }).sorted()
            for cut in cuts {
                let path = try scratch.file("cut.pcapng", Array(bytes[..<cut]))
                let scan = try DecryptionSecretsScan(path: path)
                #expect(scan.tlsKeyLogs == (cut >= secretsEnd ? [keyLog] : []), "cut at \(cut)")
                let packetsBefore = blocks.filter { $0.type == 6 && $0.end <= cut }.count
                #expect(scan.packetBlocks == packetsBefore, "cut at \(cut)")
                if blocks.contains(where: { $0.end == cut }) {
                    #expect(scan.damage == nil, "cut at \(cut)")
                } else if case let .truncated(_, packets, _)? = scan.damage {
                    #expect(packets == packetsBefore, "cut at \(cut)")
                    #expect(readAll(path: path).packets.count == packetsBefore, "cut at \(cut)")
                } else {
                    Issue.record("cut at \(cut): \(String(describing: scan.damage))")
                }
            }
            #expect(cuts.count > 800)
        }
    }

    /// Random byte changes (plain and gzip-compressed files): never a crash, never more than the one
    /// block of secrets; a change after the DSB leaves the secrets whole, one inside the key log
    /// changes that byte of it alone.
    @Test func randomByteChanges() throws {
        let keyLog = try Self.keyLogBytes()
        let scratch = try TemporaryDirectory()
        var generator = SeededGenerator(state: 0x0A)
        for bytes in [try Self.rewritten(before: [keyLog]), try Self.rewritten(after: [keyLog])] {
            let dsb = try #require(Self.blockBoundaries(bytes).first { $0.type == 0x0A })
            let payload = dsb.start + 16..<dsb.start + 16 + keyLog.count
            for round in 0..<400 {
                var changed = bytes
                let offset = round < 20 ? Int.random(in: 0..<28, using: &generator) : Int.random(in: 0..<bytes.count, using: &generator)
                changed[offset] ^= UInt8.random(in: 1...255, using: &generator)
                let path = try scratch.file("changed.pcapng", changed)
                let scan: DecryptionSecretsScan
                do {
                    scan = try DecryptionSecretsScan(path: path)
                } catch {
                    #expect(offset < 4, "offset \(offset): \(error)")
                    continue
                }
                #expect(scan.tlsKeyLogs.count <= 1, "offset \(offset)")
                if payload.contains(offset) {
                    var expected = keyLog
                    expected[offset - payload.lowerBound] = changed[offset]
                    #expect(scan.tlsKeyLogs == [expected], "offset \(offset)")
                } else if offset >= dsb.end {
                    #expect(scan.tlsKeyLogs == [keyLog], "offset \(offset)")
                }
                if round % 8 == 0 {
                    var compressed = try gzipped(bytes)
                    compressed[Int.random(in: 0..<compressed.count, using: &generator)] ^= UInt8.random(in: 1...255, using: &generator)
                    let compressedPath = try scratch.file("changed.pcapng.gz", compressed)
                    if let compressedScan = try? DecryptionSecretsScan(path: compressedPath) {
                        #expect(compressedScan.tlsKeyLogs.count <= 1)
                    }
                }
            }
        }
    }
}
