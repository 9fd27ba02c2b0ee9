import Foundation
import Testing
@testable import WireTally

/// Our readers against libpcap on real captures from other projects.
@Suite struct LibpcapComparisonTests {
    /// Every pcap/pcapng (optionally gzipped) file in the public folder.
    static func captureFiles() -> [String] {
        guard let folder = publicCapturesFolder(),
              let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return [] }
        let suffixes = [".pcap", ".pcapng", ".pcap.gz", ".pcapng.gz"]
        return names.filter { name in suffixes.contains { name.hasSuffix($0) } }
            .sorted().map { folder + "/" + $0 }
    }

    @Test func publicCapturesFolderIsPresentOrSkipped() {
        if publicCapturesFolder() == nil {
            print("skipping libpcap comparisons: ../shared/captures/public is absent")
        }
    }

    @Test(arguments: captureFiles())
    func sameAsLibpcap(path: String) throws {
        let scratch = try TemporaryDirectory()
        var libpcapPath = path
        if path.hasSuffix(".gz") {
            let data = try gunzipped(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
            libpcapPath = try scratch.file("inflated", data)
        }
        guard let expected = readWithLibpcap(path: libpcapPath) else {
            print("skipping \(path): libpcap cannot open it")
            return
        }
        let ours = readAll(path: path)
        #expect(ours.packets.count == expected.packets.count, "\(path)")
        #expect((ours.error == nil) == (expected.error == nil), "\(path): ours \(String(describing: ours.error)), libpcap \(expected.error ?? "none")")
        for (mine, theirs) in zip(ours.packets, expected.packets) {
            #expect(mine.nanoseconds == theirs.nanoseconds, "\(path) frame \(theirs.frameNumber)")
            // libpcap cuts records longer than the file's snaplen down to it (zeek__trunc__trunc-hdr.pcap has
            // snaplen 1); we keep every byte the record holds, as Wireshark does.
            let clippedByLibpcap = theirs.bytes.count < mine.bytes.count && mine.bytes.starts(with: theirs.bytes)
            #expect(mine.bytes == theirs.bytes || clippedByLibpcap, "\(path) frame \(theirs.frameNumber)")
            // libpcap reports orig_len as stored; we raise it to incl_len when smaller (as Wireshark does).
            #expect(mine.originalLength == max(theirs.originalLength, theirs.bytes.count), "\(path) frame \(theirs.frameNumber)")
            #expect(LinkType(rawValue: mine.linkType).libpcapDataLinkType == theirs.linkType, "\(path) frame \(theirs.frameNumber)")
        }
    }

    @Test func knownFilesHaveTheirFormatDetails() throws {
        guard let folder = publicCapturesFolder() else { return }
        let bigEndianNano = readAll(path: folder + "/pcapplusplus__nanosecs_big_endian.pcap")
        #expect(bigEndianNano.timestampDigits == 9)
        #expect(bigEndianNano.error == nil && !bigEndianNano.packets.isEmpty)

        let multiInterface = readAll(path: folder + "/zeek__pcapng-multi-interface.pcapng")
        #expect(multiInterface.timestampDigits == 9)
        #expect(Set(multiInterface.packets.map(\.interfaceIndex)) == [0, 1])

        let gzipped = readAll(path: folder + "/zeek__http__1000-requests-one-dropped-response.pcap.gz")
        #expect(gzipped.error == nil)
        #expect(gzipped.packets.count > 1000)
    }
}
