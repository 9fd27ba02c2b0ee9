import Testing
@testable import WireTally

/// Apple's PKTAP header: every field as tshark's `pktap.*` reads it, on the public capture (tcpdump's
/// test file) and on every frame of the recorded `device-pktap.pcap`; then what the header says about
/// the owner.
@Suite struct PKTAPHeaderTests {
    static let tsharkFields = [
        "pktap.hdrlen", "pktap.rectype", "pktap.dlt", "pktap.ifname", "pktap.flags", "pktap.pfamily",
        "pktap.llhdrlen", "pktap.lltrlrlen", "pktap.pid", "pktap.cmdname", "pktap.svc_class", "pktap.iftype",
        "pktap.ifunit", "pktap.epid", "pktap.ecmdname",
    ]

    /// Our header as tshark prints those fields (pids as unsigned, flags as 0x%08x).
    static func printed(_ header: PKTAPHeader) -> [String] {
        let flags = String(header.flags, radix: 16)
        return [
            String(header.length), String(header.recordType), String(header.dlt), header.interfaceName.description,
            "0x" + String(repeating: "0", count: 8 - flags.count) + flags, String(header.protocolFamily),
            String(header.framePreLength), String(header.framePostLength), String(UInt32(bitPattern: header.pid)),
            header.command.description, String(header.serviceClass), String(header.interfaceType),
            String(header.interfaceUnit), String(UInt32(bitPattern: header.effectivePID)),
            header.effectiveCommand.description,
        ]
    }

    static func headers(_ path: String) throws -> [PKTAPHeader?] {
        var source = try CaptureFile.open(path: path)
        var headers: [PKTAPHeader?] = []
        while let packet = try source.nextPacket() { headers.append(PKTAPHeader(packet.bytes)) }
        return headers
    }

    @Test(.requires(.publicCaptures), .requires(.tshark))
    func publicCaptureFieldsEqualTshark() throws {
        let path = try Requirement.publicCapture("tcpdump__LINKTYPE_PKTAP.pcap")
        let expected = try Tshark.fields(path, Self.tsharkFields)
        let ours = try Self.headers(path)
        #expect(ours.count == expected.count && !ours.isEmpty)
        for (header, row) in zip(ours, expected) { #expect(try Self.printed(#require(header)) == row) }
        // pid 512 without a command name, not delegated (epid -1): the flow names pid 512 only
        let (writer, result) = CollectingWriter.analyze([path])
        Conservation.check(writer, result)
        #expect(writer.flows.first?["process"]?.serialized
            == #"{"pid":512,"name":null,"effective_pid":null,"effective_name":null}"#)
    }

    @Test func recordedDeviceHeadersEqualTshark() throws {
        let truth = try TruthTable.load("device-pktap", "pktap.tsv")
        let ours = try Self.headers(TestPaths.capture("device-pktap.pcap"))
        #expect(ours.count == truth.rows.count && !ours.isEmpty)
        for (header, row) in zip(ours, truth.rows) {
            #expect(try Self.printed(#require(header)) == Self.tsharkFields.map { row[$0] })
        }
    }

    @Test func delegatedSocketNamesTheEffectiveProcess() throws {
        let frame = DeviceFrames.pktap(
            FrameBuilder.tcp(from: "10.0.0.1:50000", to: "10.0.0.2:443", flags: [.syn]), pid: 88, command: "nsurlsessiond",
            effectivePID: 4242, effectiveCommand: "Weather", flags: 0x1, serviceClass: 0x80000)
        let owner = try frame.withUnsafeBytes { try #require(PKTAPHeader($0)?.owner) }
        #expect(owner.kind == .process && owner.id == 88 && owner.name.description == "nsurlsessiond")
        #expect(owner.effectiveID == 4242 && owner.effectiveName.description == "Weather")
        #expect(owner.direction == .inbound && owner.serviceClass == 0x80000)
        #expect(TrafficOwner(owner).label == "Weather")
        // not delegated: epid -1
        let plain = DeviceFrames.pktap(FrameBuilder.tcp(from: "10.0.0.1:50000", to: "10.0.0.2:443"), pid: 7, command: "curl")
        let plainOwner = try plain.withUnsafeBytes { try #require(PKTAPHeader($0)?.owner) }
        #expect(plainOwner.effectiveID == nil && plainOwner.direction == .outbound && TrafficOwner(plainOwner).label == "curl")
        // no process: pid -1, no name
        let none = DeviceFrames.pktap(FrameBuilder.tcp(from: "10.0.0.1:50000", to: "10.0.0.2:443"), pid: -1, command: "")
        #expect(none.withUnsafeBytes { PKTAPHeader($0)?.owner } == nil)
    }

    @Test func innerLinkTypeIsTheHeadersDLT() {
        let ip = Array(FrameBuilder.tcp(from: "10.0.0.1:50000", to: "10.0.0.2:443", link: .null))
        // DLT_NULL (0) inside: the loopback header, then IPv4 at 108 + 4
        let loopback = DeviceFrames.pktap(ip, pid: 1, command: "a", dlt: 0)
        #expect(loopback.withUnsafeBytes {
            LinkLayer.locateNetworkLayer(in: $0, linkType: .pktap, originalLength: $0.count)
        } == .ip(offset: 112, version: 4))
        // a record that is not a packet (pth_type_next != 1) is not decoded further
        let other = DeviceFrames.pktap(ip, pid: 1, command: "a", recordType: 2, dlt: 0)
        #expect(other.withUnsafeBytes {
            LinkLayer.locateNetworkLayer(in: $0, linkType: .pktap, originalLength: $0.count)
        } == .failure(.nonIP))
    }
}
