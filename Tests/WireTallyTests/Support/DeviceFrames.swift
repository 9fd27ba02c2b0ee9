@testable import WireTally

/// Frames as device captures lay them out, for the synthetic edge cases (the recorded `device-*`
/// captures are the real-traffic proof): a PKTAP header (xnu `struct pktap_header`, 108 bytes,
/// little-endian) before an Ethernet frame, and PCAPdroid's trailer after the IP packet.
enum DeviceFrames {
    /// `ethernet` behind a PKTAP header naming `pid`/`command` (and the effective process).
    static func pktap(
        _ ethernet: [UInt8], pid: Int32, command: String, effectivePID: Int32 = -1, effectiveCommand: String = "",
        flags: UInt32 = 0x2, serviceClass: UInt32 = 0, recordType: UInt32 = 1, dlt: UInt32 = 1, length: UInt32 = 108
    ) -> [UInt8] {
        typealias F = FrameBuilder
        var header = F.le32(length) + F.le32(recordType) + F.le32(dlt) + name("en0", 24)
        header += F.le32(flags) + F.le32(2) + F.le32(14) + F.le32(0)
        header += F.le32(UInt32(bitPattern: pid)) + name(command, 17) + [0, 0, 0]
        header += F.le32(serviceClass) + F.le16(6) + F.le16(0)
        header += F.le32(UInt32(bitPattern: effectivePID)) + name(effectiveCommand, 17) + [0, 0, 0]
        header += [UInt8](repeating: 0, count: max(0, Int(length) - header.count))
        return header + ethernet
    }

    /// The IP packet of an Ethernet `frame` in PCAPdroid's layout: zero MACs, the packet, padding to 4
    /// bytes, the 32-byte trailer (magic, uid, app name; a zero CRC: wiretally does not check it).
    static func pcapdroid(_ frame: [UInt8], uid: Int32, app: String, magic: UInt32 = 0x0107_2021) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 12) + Array(frame[12...])
        while bytes.count % 4 != 0 { bytes.append(0) }
        return bytes + FrameBuilder.be32(magic) + FrameBuilder.be32(UInt32(bitPattern: uid)) + name(app, 20) + [0, 0, 0, 0]
    }

    /// `text`'s UTF-8 bytes, NUL-padded to `size`.
    static func name(_ text: String, _ size: Int) -> [UInt8] {
        Array(Array(text.utf8).prefix(size - 1)) + [UInt8](repeating: 0, count: size - min(text.utf8.count, size - 1))
    }
}
