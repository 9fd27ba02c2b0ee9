import Foundation
import Testing
@testable import WireTally

/// Our readers against libpcap on real captures from other projects.
@Suite struct LibpcapComparisonTests {
    /// The public folder, when there, holds captures: the tests taking them as arguments test something.
    @Test(.requires(.publicCaptures))
    func publicCapturesFolderListsCaptures() {
        #expect(TestPaths.publicCaptureFiles.count >= 30, "\(TestPaths.publicCaptureFiles)")
    }

    @Test(.requires(.publicCaptures), arguments: TestPaths.publicCaptureFiles)
    func sameAsLibpcap(name: String) throws {
        let path = try Requirement.publicCapture(name)
        let scratch = try TemporaryDirectory()
        var libpcapPath = path
        if path.hasSuffix(".gz") {
            let data = try gunzipped(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
            libpcapPath = try scratch.file("inflated", data)
        }
        let expected = try #require(readWithLibpcap(path: libpcapPath), "libpcap cannot open \(path)")
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

    @Test(.requires(.publicCaptures))
    func knownFilesHaveTheirFormatDetails() throws {
        let bigEndianNano = readAll(path: try Requirement.publicCapture("pcapplusplus__nanosecs_big_endian.pcap"))
        #expect(bigEndianNano.timestampDigits == 9)
        #expect(bigEndianNano.error == nil && !bigEndianNano.packets.isEmpty)

        let multiInterface = readAll(path: try Requirement.publicCapture("zeek__pcapng-multi-interface.pcapng"))
        #expect(multiInterface.timestampDigits == 9)
        #expect(Set(multiInterface.packets.map(\.interfaceIndex)) == [0, 1])

        let gzipped = readAll(path: try Requirement.publicCapture("zeek__http__1000-requests-one-dropped-response.pcap.gz"))
        #expect(gzipped.error == nil)
        #expect(gzipped.packets.count > 1000)
    }
}
