@testable import WireTally

/// Builds pcapng bytes block by block, independently of `PcapNGWriter`, including odd blocks the
/// writer never produces (several sections, big-endian, SPB, obsolete packet blocks, unknown types).
struct PcapNGBuilder {
    private(set) var bytes: [UInt8] = []
    private var byteOrder = ByteOrder.littleEndian

    /// Fields of one block body in the section's byte order.
    struct Body {
        fileprivate(set) var bytes: [UInt8] = []
        fileprivate let byteOrder: ByteOrder

        mutating func u8(_ value: UInt8) { bytes.append(value) }
        mutating func u16(_ value: UInt16) { append(byteOrder == .littleEndian ? value.littleEndian : value.bigEndian) }
        mutating func u32(_ value: UInt32) { append(byteOrder == .littleEndian ? value.littleEndian : value.bigEndian) }
        mutating func u64(_ value: UInt64) { append(byteOrder == .littleEndian ? value.littleEndian : value.bigEndian) }
        mutating func raw(_ data: [UInt8]) { bytes += data }
        mutating func pad() { while bytes.count % 4 != 0 { bytes.append(0) } }

        private mutating func append<Value: FixedWidthInteger>(_ value: Value) {
            withUnsafeBytes(of: value) { bytes += $0 }
        }
    }

    /// Appends a block of `type` whose body `fill` writes (padded to 4 bytes).
    mutating func block(_ type: UInt32, _ fill: (inout Body) -> Void) {
        var body = Body(byteOrder: byteOrder)
        fill(&body)
        body.pad()
        var whole = Body(byteOrder: byteOrder)
        whole.u32(type)
        whole.u32(UInt32(12 + body.bytes.count))
        whole.raw(body.bytes)
        whole.u32(UInt32(12 + body.bytes.count))
        bytes += whole.bytes
    }

    mutating func sectionHeader(_ order: ByteOrder = .littleEndian) {
        byteOrder = order
        block(0x0A0D_0D0A) {
            $0.u32(0x1A2B_3C4D)
            $0.u16(1)
            $0.u16(0)
            $0.u64(UInt64.max)
        }
    }

    mutating func interface(linkType: UInt16, snaplen: UInt32 = 0, tsresol: UInt8? = nil, tsoffset: Int64? = nil) {
        block(1) {
            $0.u16(linkType)
            $0.u16(0)
            $0.u32(snaplen)
            if let tsresol {
                $0.u16(9)
                $0.u16(1)
                $0.u8(tsresol)
                $0.pad()
            }
            if let tsoffset {
                $0.u16(14)
                $0.u16(8)
                $0.u64(UInt64(bitPattern: tsoffset))
            }
            $0.u32(0)
        }
    }

    mutating func enhancedPacket(interface: UInt32, units: UInt64, data: [UInt8], originalLength: UInt32? = nil) {
        block(6) {
            $0.u32(interface)
            $0.u32(UInt32(units >> 32))
            $0.u32(UInt32(units & 0xffff_ffff))
            $0.u32(UInt32(data.count))
            $0.u32(originalLength ?? UInt32(data.count))
            $0.raw(data)
        }
    }

    mutating func obsoletePacket(interface: UInt16, units: UInt64, data: [UInt8]) {
        block(2) {
            $0.u16(interface)
            $0.u16(0)
            $0.u32(UInt32(units >> 32))
            $0.u32(UInt32(units & 0xffff_ffff))
            $0.u32(UInt32(data.count))
            $0.u32(UInt32(data.count))
            $0.raw(data)
        }
    }

    mutating func simplePacket(originalLength: UInt32, data: [UInt8]) {
        block(3) {
            $0.u32(originalLength)
            $0.raw(data)
        }
    }
}
