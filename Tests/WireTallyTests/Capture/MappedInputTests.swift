import Foundation
import Glibc
import Testing
@testable import WireTally

/// A regular capture file read through memory mappings (`MappedCaptureFile`) gives the same packets
/// as the same file read with `read()`, whatever the window boundaries cut, however the file
/// changes while it is read, and lets every window go once nothing views it.
@Suite struct MappedInputTests {
    /// Keeps (weakly or strongly) the windows an input hands over.
    final class WindowKeeper: CaptureBufferLender {
        private let keepsStrongly: Bool
        private(set) var kept: [MappedFileWindow] = []
        private(set) var seen: [() -> MappedFileWindow?] = []

        init(keepsStrongly: Bool) { self.keepsStrongly = keepsStrongly }

        func exchangeBuffer(unread: UnsafeRawBufferPointer, minimumCapacity: Int) -> UnsafeMutableRawBufferPointer {
            Issue.record("a mapped input asked for a buffer")
            return UnsafeMutableRawBufferPointer(start: nil, count: 0)
        }

        func keepAlive(_ window: MappedFileWindow) {
            if keepsStrongly { kept.append(window) }
            seen.append { [weak window] in window }
        }
    }

    /// A pcap of more than two windows (`MappedCaptureFile.windowSize`) of records up to 70,000 bytes,
    /// each with bytes of its own, and where each record starts in the file.
    static func bigCapture() throws -> (bytes: [UInt8], recordStarts: [Int]) {
        var random = SeededGenerator(state: 20)
        let writer = try PcapWriter(destination: .memory, linkType: .ethernet, precision: .nanoseconds, snaplen: 1 << 20)
        var starts: [Int] = []
        var index = 0
        while writer.bytes.count < 2 * MappedCaptureFile.windowSize + 1_000_000 {
            let size = Int.random(in: 1...70_000, using: &random)
            let seed = UInt8.random(in: 0...255, using: &random)
            let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7) &+ seed }
            starts.append(writer.bytes.count)
            try bytes.withUnsafeBytes { bytes in
                try writer.write(CapturedPacket(
                    frameNumber: index + 1, timestamp: Timestamp(seconds: 1_700_000_000 + Int64(index), nanoseconds: 5),
                    linkType: .ethernet, originalLength: size + index % 3, bytes: bytes))
            }
            index += 1
        }
        return (writer.bytes, starts)
    }

    static func readCopied(_ path: String) -> ReadResult {
        do {
            var source = try CaptureFile.open(path: path, allowsMapping: false)
            return readAll(&source)
        } catch {
            return ReadResult(error: error)
        }
    }

    /// Reads `path` mapped, keeping every packet's view (not a copy) until the end, its windows kept
    /// by `keeper`.
    static func readMapped(_ path: String, keeper: WindowKeeper) throws -> ReadResult {
        var source = try CaptureFile.open(path: path)
        let input = try #require((source as? any CaptureFileReader)?.input)
        #expect(input.isMapped)
        input.lend(to: keeper)
        var views: [CapturedPacket] = []
        var result = ReadResult()
        do {
            while let packet = try source.nextPacket() { views.append(packet) }
        } catch {
            result.error = error
        }
        result.packets = views.map(OwnedPacket.init)
        result.timestampDigits = source.timestampDigits
        return result
    }

    static func expectSame(_ mapped: ReadResult, _ copied: ReadResult, _ name: String) {
        #expect(mapped.packets.count == copied.packets.count, "\(name)")
        #expect(mapped.packets == copied.packets, "\(name)")
        #expect(mapped.captureError == copied.captureError, "\(name)")
        #expect(mapped.timestampDigits == copied.timestampDigits, "\(name)")
    }

    @Test func repositoryCapturesReadTheSameBothWays() throws {
        let names = TestPaths.files(in: TestPaths.captures, endingWith: [".pcap", ".pcapng"])
        #expect(names.count > 20)
        for name in names {
            let path = TestPaths.capture(name)
            Self.expectSame(try Self.readMapped(path, keeper: WindowKeeper(keepsStrongly: true)), Self.readCopied(path), name)
        }
    }

    @Test(.requires(.publicCaptures), arguments: TestPaths.publicCaptureFiles.filter { !$0.hasSuffix(".gz") })
    func publicCapturesReadTheSameBothWays(name: String) throws {
        let path = try #require(TestPaths.publicCaptures).appendingPathComponent(name).path
        Self.expectSame(try Self.readMapped(path, keeper: WindowKeeper(keepsStrongly: true)), Self.readCopied(path), name)
    }

    /// Records cross the windows' ends; every packet keeps its bytes while its window is kept, and
    /// windows nothing keeps are unmapped as the input moves on.
    @Test func recordsAcrossWindowBoundaries() throws {
        let scratch = try TemporaryDirectory()
        let capture = try Self.bigCapture()
        let path = try scratch.file("big.pcap", capture.bytes)
        let boundary = MappedCaptureFile.windowSize
        let straddling = zip(capture.recordStarts, capture.recordStarts.dropFirst()).contains { $0 < boundary && $1 > boundary + 16 }
        #expect(straddling)
        let copied = Self.readCopied(path)
        #expect(copied.error == nil && copied.packets.count == capture.recordStarts.count)

        let keeper = WindowKeeper(keepsStrongly: true)
        Self.expectSame(try Self.readMapped(path, keeper: keeper), copied, "kept windows")
        #expect(keeper.kept.count >= 3)

        let forgetting = WindowKeeper(keepsStrongly: false)
        var source = try CaptureFile.open(path: path)
        try #require((source as? any CaptureFileReader)?.input).lend(to: forgetting)
        var packets: [OwnedPacket] = []
        while let packet = try source.nextPacket() {
            packets.append(OwnedPacket(packet))
            #expect(forgetting.seen.dropLast().allSatisfy { $0() == nil }, "only the input's window is mapped")
        }
        #expect(packets == copied.packets)
        #expect(forgetting.seen.count >= 3)
    }

    /// The reading thread's batches keep the windows of their packets: the packets come out as
    /// read with `read()`.
    @Test func backgroundReaderBatchesViewTheWindows() throws {
        let scratch = try TemporaryDirectory()
        let path = try scratch.file("big.pcap", try Self.bigCapture().bytes)
        let copied = Self.readCopied(path)
        let reader = BackgroundPacketReader(source: MergedPacketSource(paths: [path]), decodes: true, batches: 3)
        #expect(reader.start())
        var packets: [OwnedPacket] = []
        while let batch = reader.nextBatch() {
            packets += batch.slots.map { OwnedPacket($0.packet) }
            reader.done(batch)
        }
        reader.finish()
        #expect(packets == copied.packets)
    }

    /// A file cut before it is opened gives the same packets and error both ways.
    @Test(arguments: [24 + 16 + 100, 24 + 10, MappedCaptureFile.windowSize + 500_000])
    func fileTruncatedInAPacket(length: Int) throws {
        let scratch = try TemporaryDirectory()
        let path = try scratch.file("cut.pcap", Array(try Self.bigCapture().bytes.prefix(length)))
        let copied = Self.readCopied(path)
        #expect(copied.captureError.map { if case .truncated = $0 { true } else { false } } == true)
        Self.expectSame(try Self.readMapped(path, keeper: WindowKeeper(keepsStrongly: true)), copied, "cut at \(length)")
    }

    /// A file truncated in the middle of a packet while it is mapped: no crash (SIGBUS is handled),
    /// the records before the cut are kept, and the reading ends with an error.
    @Test func fileTruncatedUnderneathTheMapping() throws {
        let scratch = try TemporaryDirectory()
        let capture = try Self.bigCapture()
        let path = try scratch.file("shrinking.pcap", capture.bytes)
        let copied = Self.readCopied(path)
        let cut = capture.recordStarts[40] + 16 + 5
        var source = try CaptureFile.open(path: path)
        var packets: [OwnedPacket] = []
        var failure: (any Error)?
        do {
            while let packet = try source.nextPacket() {
                packets.append(OwnedPacket(packet))
                if packets.count == 10 { #expect(truncate(path, off_t(cut)) == 0) }
            }
        } catch {
            failure = error
        }
        #expect(packets.count >= 40)
        #expect(Array(packets.prefix(40)) == Array(copied.packets.prefix(40)))
        #expect(failure.map { "\($0)".contains("shrank") } == true)
    }

    /// A file that grows after it was opened (a capture still being written) is read to its end,
    /// across the size it had when it was mapped.
    @Test func growingFileIsReadToItsEnd() throws {
        let scratch = try TemporaryDirectory()
        let capture = try Self.bigCapture()
        let firstPart = capture.recordStarts[30] + 16 + 7  // ends inside record 31
        let path = try scratch.file("growing.pcap", Array(capture.bytes.prefix(firstPart)))
        var source = try CaptureFile.open(path: path)
        #expect(try #require((source as? any CaptureFileReader)?.input).isMapped)
        var packets: [OwnedPacket] = []
        while let packet = try source.nextPacket() {
            packets.append(OwnedPacket(packet))
            if packets.count == 5 {
                let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
                try handle.seekToEnd()
                try handle.write(contentsOf: Data(capture.bytes[firstPart...]))
                try handle.close()
            }
        }
        #expect(packets == Self.readCopied(path).packets)
        #expect(packets.count == capture.recordStarts.count)
    }

    /// Standard input, pipes and gzip files are read, not mapped.
    @Test func onlyRegularUncompressedFilesAreMapped() throws {
        let scratch = try TemporaryDirectory()
        let bytes = try LentBufferTests.recordsOfManySizes()
        let plain = try scratch.file("plain.pcap", bytes)
        let compressed = try scratch.file("compressed.pcap.gz", try gzipped(bytes))
        #expect(try CaptureInput(path: plain).isMapped)
        #expect(try !CaptureInput(path: plain, allowsMapping: false).isMapped)
        #expect(try !CaptureInput(path: compressed).isMapped)
        let fifo = scratch.path + "/fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        let writer = Thread(block: {
            let descriptor = open(fifo, O_WRONLY)
            bytes.withUnsafeBytes { _ = write(descriptor, $0.baseAddress, $0.count) }
            close(descriptor)
        })
        writer.start()
        var source = try CaptureFile.open(path: fifo)
        #expect(try !#require((source as? any CaptureFileReader)?.input).isMapped)
        #expect(readAll(&source).packets == Self.readCopied(plain).packets)
    }
}
