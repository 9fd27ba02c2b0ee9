import Testing
@testable import WireTally

/// The reader thread settles each frame's owner into the packet (`recordFrameOwner(reusing:)`) so that
/// the analysing thread never reads the frame for it: the owner it then gives must be the one read from
/// the frame, on every device capture (PKTAP, PCAPdroid trailer, the pcapng layouts whose blocks name
/// the owner) and every public capture.
@Suite struct FrameOwnerRecordingTests {
    static let deviceFiles = ["device-pktap.pcap", "device-pktap.pcapng", "device-pcapdroid.pcap", "device-pcapdroid.pcapng"]

    /// Every packet's owner, once read from the frame and once after `recordFrameOwner(reusing:)`, with
    /// the owners recorded reused while consecutive packets name the same one. Returns how many packets
    /// name an owner.
    static func expectRecordedOwnersEqualFrameOwners(in path: String) throws -> Int {
        var source = try CaptureFile.open(path: path)
        var last: RecordedOwner?
        var named = 0
        while let packet = try source.nextPacket() {
            var recorded = packet
            let previous = last
            recorded.recordFrameOwner(reusing: &last)
            #expect(recorded.owner == packet.owner, "\(path) frame \(packet.frameNumber)")
            #expect(recorded.isFrameOwnerRecorded)
            if let blocks = packet.recordedOwner { #expect(recorded.recordedOwner === blocks) }
            if let owner = packet.owner {
                named += 1
                if packet.recordedOwner == nil, let previous, previous.owner == owner {
                    #expect(recorded.recordedOwner === previous)
                }
            }
        }
        return named
    }

    @Test(arguments: deviceFiles)
    func deviceCapturesGiveTheFramesOwner(file: String) throws {
        #expect(try Self.expectRecordedOwnersEqualFrameOwners(in: TestPaths.capture(file)) > 0)
    }

    @Test func everyRecordedCaptureGivesTheFramesOwner() throws {
        for path in TestPaths.files(in: TestPaths.captures, endingWith: [".pcap", ".pcapng", ".pcap.gz"]).map(TestPaths.capture) {
            _ = try Self.expectRecordedOwnersEqualFrameOwners(in: path)
        }
    }

    @Test(.requires(.publicCaptures))
    func everyPublicCaptureGivesTheFramesOwner() throws {
        for path in try TestPaths.publicCaptureFiles.map(Requirement.publicCapture) {
            do {
                _ = try Self.expectRecordedOwnersEqualFrameOwners(in: path)
            } catch is CaptureError {
                continue  // a truncated or corrupt public capture: the packets before the error were compared
            }
        }
    }

    /// Recording twice changes nothing; a packet recorded as naming no owner keeps `owner` nil and
    /// never reads its frame again (here given PCAPdroid bytes afterwards), and the owner to reuse
    /// stays the last one recorded.
    @Test func recordedOwnerIsReadOnce() throws {
        let plain = FrameBuilder.tcp(from: "10.0.0.1:50000", to: "10.0.0.2:80", flags: [.syn])
        let droid = DeviceFrames.pcapdroid(plain, uid: 10_123, app: "org.example")
        try droid.withUnsafeBytes { droidBytes in
            var named = CapturedPacket(frameNumber: 1, timestamp: Timestamp(nanoseconds: 0), linkType: .ethernet,
                                       originalLength: droidBytes.count, bytes: droidBytes)
            let owner = try #require(named.owner)
            var last: RecordedOwner?
            named.recordFrameOwner(reusing: &last)
            let first = try #require(last)
            named.recordFrameOwner(reusing: &last)
            #expect(first.owner == owner && named.recordedOwner === first && last === first)
            plain.withUnsafeBytes { plainBytes in
                var unnamed = CapturedPacket(frameNumber: 2, timestamp: Timestamp(nanoseconds: 0), linkType: .ethernet,
                                             originalLength: plainBytes.count, bytes: plainBytes)
                unnamed.recordFrameOwner(reusing: &last)
                #expect(last === first)
                unnamed.bytes = droidBytes
                unnamed.originalLength = droidBytes.count
                #expect(unnamed.recordedOwner == nil && unnamed.owner == nil)
            }
        }
    }
}
