import Foundation
@testable import WireTally

enum QUICTestSupport {
    /// Bytes of a hex string (the RFC vectors); traps on a typo in the test itself.
    static func bytes(_ hex: String) -> [UInt8] {
        precondition(hex.count % 2 == 0)
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index ..< next], radix: 16)!)
            index = next
        }
        return bytes
    }

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    /// The header of a single packet at the start of `datagram`.
    static func header<R>(_ datagram: [UInt8], shortHeaderDCIDLength: Int = 0,
                          _ body: (QUICPacketHeaderView?) -> R) -> R {
        datagram.withUnsafeBytes { body(QUICPacketHeaderView(datagram: $0, shortHeaderDCIDLength: shortHeaderDCIDLength)) }
    }

    /// Opens the single packet at the start of `datagram`.
    static func open(_ datagram: [UInt8], keys: QUICPacketKeys) -> QUICOpenedPacket? {
        header(datagram) { header in header.flatMap { QUICPacketProtection.open($0, keys: keys, largestPacketNumber: nil) } }
    }
}


