import Testing
@testable import WireTally

/// Device metadata that lies: PKTAP headers cut short or claiming impossible lengths, pcapng packets
/// pointing at process blocks that do not exist or with options overrunning their block, PCAPdroid
/// trailers that are not quite trailers. Never a crash; the packets are still counted; no owner is
/// invented.
@Suite struct OwnerHostileInputTests {
    static let frame = FrameBuilder.tcp(from: "10.0.0.1:50000", to: "10.0.0.2:80", flags: [.syn])

    @Test func truncatedOrLyingPKTAPHeaders() throws {
        let whole = DeviceFrames.pktap(Self.frame, pid: 42, command: "curl")
        var frames: [[UInt8]] = (0..<110).map { Array(whole.prefix($0)) }  // cut anywhere in the header
        for length: UInt32 in [0, 8, 11, 107, 4096, .max] {  // impossible header lengths
            var lying = whole
            lying.replaceSubrange(0..<4, with: FrameBuilder.le32(length))
            frames.append(lying)
        }
        for frame in frames {
            #expect(frame.withUnsafeBytes { PKTAPHeader($0)?.owner } == nil || frame.count >= 108)
        }
        let scratch = try TemporaryDirectory()
        let path = try scratch.file("pktap.pcap", FrameBuilder.pcap(frames: frames, link: .pktap))
        let (writer, result) = CollectingWriter.analyze([path])
        Conservation.check(writer, result)
        #expect(result.summary.read.packets == frames.count)
        #expect(writer.connections.allSatisfy { $0["process"] == nil || $0.int("process.pid") == 42 })
    }

    /// An Apple pcapng: one process block, then packets whose index options point past it, are cut
    /// short, or overrun the block; a PIB too short for its pid.
    @Test func bogusProcessReferencesInPcapNG() throws {
        var builder = PcapNGBuilder()
        builder.sectionHeader()
        builder.interface(linkType: 1)
        builder.block(0x8000_0001) {
            $0.u32(42)
            $0.u16(2); $0.u16(4); $0.raw(Array("curl".utf8))
            $0.u16(0); $0.u16(0)
        }
        builder.block(0x8000_0001) { $0.raw([1, 2]) }  // too short: no pid, never indexed
        func packet(_ options: (inout PcapNGBuilder.Body) -> Void) {
            builder.block(6) {
                $0.u32(0); $0.u32(0); $0.u32(1)
                $0.u32(UInt32(Self.frame.count)); $0.u32(UInt32(Self.frame.count))
                $0.raw(Self.frame)
                $0.pad()
                options(&$0)
            }
        }
        packet { $0.u16(0x8001); $0.u16(4); $0.u32(0); $0.u16(0); $0.u16(0) }  // valid: process 0
        packet { $0.u16(0x8001); $0.u16(4); $0.u32(7); $0.u16(0); $0.u16(0) }  // no process 7
        packet { $0.u16(0x8003); $0.u16(4); $0.u32(.max); $0.u16(0); $0.u16(0) }  // no effective process
        packet { $0.u16(0x8001); $0.u16(2); $0.u16(0); $0.u16(0); $0.u16(0) }  // index of 2 bytes
        packet { $0.u16(0x8001); $0.u16(400); $0.u32(0) }  // option longer than the block
        packet { $0.u16(1); $0.u16(12); $0.raw(Array("u-9999999999".utf8)) }  // uid out of range, no mapping
        let scratch = try TemporaryDirectory()
        let path = try scratch.file("apple.pcapng", builder.bytes)
        var source = try CaptureFile.open(path: path)
        var owners: [PacketOwner?] = []
        while let packet = try source.nextPacket() { owners.append(packet.owner) }
        #expect(owners.count == 6)
        #expect(owners.first??.id == 42 && owners.first??.name.description == "curl")
        #expect(owners.dropFirst().allSatisfy { $0 == nil })
        let (writer, result) = CollectingWriter.analyze([path])
        Conservation.check(writer, result)
        #expect(writer.connections.first?.flagNames.contains("owner_conflict") == false)
    }

    @Test func almostPCAPdroidTrailers() throws {
        let good = DeviceFrames.pcapdroid(Self.frame, uid: 10123, app: "com.example.app")
        var wrongMagic = DeviceFrames.pcapdroid(Self.frame, uid: 10123, app: "x", magic: 0x0107_2022)
        var realMAC = good
        realMAC[0] = 0x02
        let cut = Array(good.dropLast(1))
        let noRoom = Array(good.prefix(40))
        wrongMagic[0] = 0
        var longName = good
        longName.replaceSubrange((longName.count - 24)..<(longName.count - 4), with: [UInt8](repeating: 0x41, count: 20))
        func owner(_ frame: [UInt8], originalLength: Int? = nil) -> PacketOwner? {
            frame.withUnsafeBytes { PCAPdroidTrailer.owner(in: $0, originalLength: originalLength ?? frame.count) }
        }
        #expect(owner(good)?.id == 10123 && owner(good)?.name.description == "com.example.app")
        #expect(owner(wrongMagic) == nil && owner(realMAC) == nil && owner(cut) == nil && owner(noRoom) == nil)
        #expect(owner(good, originalLength: good.count + 10) == nil)  // cut by the snaplen: the end is not the trailer
        #expect(owner(DeviceFrames.pcapdroid(Self.frame, uid: -1, app: "")) == nil)  // PCAPdroid's unknown uid
        #expect(owner(longName)?.name.description == String(repeating: "A", count: 20))  // no NUL: all 20 bytes
        let scratch = try TemporaryDirectory()
        let frames = [good, wrongMagic, realMAC, cut, noRoom, longName]
        let path = try scratch.file("droid.pcap", FrameBuilder.pcap(frames: frames, link: .ethernet))
        let (writer, result) = CollectingWriter.analyze([path])
        Conservation.check(writer, result)
        #expect(result.summary.read.packets == frames.count)
    }
}
