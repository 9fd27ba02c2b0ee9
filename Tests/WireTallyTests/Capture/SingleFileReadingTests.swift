import Testing
@testable import WireTally

/// A one-file capture read straight from its reader (`MergedPacketSource.readSingleFile`, the reader
/// thread's path and the one-thread run's) gives exactly the packets the merge's `nextPacket()` gives (order, numbers, file
/// index, bytes) and keeps the same failures; any other source is left unread.
@Suite struct SingleFileReadingTests {
    /// The packets and failures of `path` read through `nextPacket()`.
    static func throughMerge(_ path: String) -> (packets: [OwnedPacket], failures: [String]) {
        let merged = MergedPacketSource(paths: [path])
        var packets: [OwnedPacket] = []
        while let packet = try? merged.nextPacket() { packets.append(OwnedPacket(packet)) }
        return (packets, merged.failures.map { "\($0)" })
    }

    /// The packets and failures of `path` read by `readSingleFile`, into small lent buffers (the
    /// packets' views kept until the end, as the batches keep them).
    static func straight(_ path: String) throws -> (packets: [OwnedPacket], failures: [String]) {
        let merged = MergedPacketSource(paths: [path])
        let lender = LentBufferTests.KeepingLender(size: 4096)
        var views: [CapturedPacket] = []
        #expect(merged.readSingleFile(lending: lender) { views.append($0) })
        return (views.map(OwnedPacket.init), merged.failures.map { "\($0)" })
    }

    @Test func givesWhatTheMergeGives() throws {
        let scratch = try TemporaryDirectory()
        let pcap = try LentBufferTests.recordsOfManySizes()
        let files = [
            try scratch.file("sizes.pcap", pcap),
            try scratch.file("sizes.pcap.gz", try gzipped(pcap)),
            try scratch.file("cut.pcap", Array(pcap.prefix(pcap.count - 100))),
            try scratch.file("mixed.pcapng", PcapNGReaderTests.mixedFile()),
        ] + TestPaths.files(in: TestPaths.captures, endingWith: [".pcap", ".pcapng"]).map(TestPaths.capture)
        for path in files {
            let expected = Self.throughMerge(path)
            let read = try Self.straight(path)
            #expect(read.packets == expected.packets, "\(path)")
            #expect(read.failures == expected.failures, "\(path)")
        }
        #expect(try Self.straight(files[2]).failures.count == 1)
    }

    /// Two files, or a file that cannot be opened, are not one file: nothing is read, and the merge
    /// then gives every packet as before.
    @Test func leavesOtherSourcesUnread() throws {
        let scratch = try TemporaryDirectory()
        let path = try scratch.file("sizes.pcap", try LentBufferTests.recordsOfManySizes())
        let lender = LentBufferTests.KeepingLender(size: 4096)
        for paths in [[path, path], [scratch.path + "/missing.pcap"]] {
            let merged = MergedPacketSource(paths: paths)
            var read = 0
            #expect(!merged.readSingleFile(lending: lender) { _ in read += 1 })
            #expect(read == 0 && lender.buffers.isEmpty)
            var count = 0
            while (try? merged.nextPacket()) != nil { count += 1 }
            #expect(count == (paths.count == 2 ? 2022 : 0))
        }
    }
}
