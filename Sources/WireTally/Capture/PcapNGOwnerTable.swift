/// The processes and apps a pcapng section declares, and the packet options that point into them.
///
/// Apple (`tcpdump -k` writing pcapng; Apple's libpcap `pcap-ng.h`, Wireshark's
/// `wiretap/pcapng-darwin-custom.c`): a Process Information Block, type 0x80000001, holds a
/// process id (32 bits) and options 2 (name, UTF-8) and 4 (UUID); the blocks of a section are
/// numbered 0, 1, … in file order. An Enhanced Packet Block points into them with option 0x8001
/// (process index, 32 bits) and 0x8003 (effective process index), and carries 0x8002 (service class)
/// and the standard `epb_flags` (option 2; bits 0-1: 1 inbound, 2 outbound).
///
/// PCAPdroid (`pcap_dump.c`, `dump_pcapng_uid_mapping`, and its Wireshark plugin `pcapdroid.lua`): a
/// Custom Block (type 0x00000BAD) with PCAPdroid's private enterprise number 62652, version (16
/// bits), block type 1 (UID mapping), a reserved byte, then uid (32 bits), package name length
/// (8 bits), app name length (8 bits), the package name and the app name; each Enhanced Packet
/// Block names its uid in a comment (option 1) `u-<uid>`.
struct PcapNGOwnerTable {
    static let appleProcessBlock: UInt32 = 0x8000_0001
    static let customBlock: UInt32 = 0x0000_0BAD
    static let pcapdroidEnterpriseNumber: UInt32 = 62652

    private enum Option {
        static let comment: UInt16 = 1
        static let flags: UInt16 = 2
        static let processIndex: UInt16 = 0x8001
        static let serviceClass: UInt16 = 0x8002
        static let effectiveProcessIndex: UInt16 = 0x8003
        static let processName: UInt16 = 2
    }

    private struct Process {
        var pid: Int32
        var name: InlineName
    }

    private var processes: [Process] = []
    private var appNames: [Int32: InlineName] = [:]

    /// A new section: its blocks are numbered anew.
    mutating func startSection() {
        processes.removeAll(keepingCapacity: true)
        appNames.removeAll(keepingCapacity: true)
    }

    /// Reads an Apple Process Information Block of `length` bytes at `block`.
    mutating func addAppleProcess(_ block: UnsafeRawPointer, length: Int, _ order: ByteOrder) {
        guard length >= 16 else { return }
        var process = Process(pid: Int32(bitPattern: block.load(uint32At: 8, order)), name: InlineName())
        Self.forEachOption(block, from: 12, to: length - 4, order) { code, value in
            if code == Option.processName { process.name = InlineName(value) }
        }
        processes.append(process)
    }

    /// Reads a Custom Block; only PCAPdroid's UID mappings are kept.
    mutating func addCustomBlock(_ block: UnsafeRawPointer, length: Int, _ order: ByteOrder) {
        guard length >= 28, block.load(uint32At: 8, order) == Self.pcapdroidEnterpriseNumber,
              block.load(fromByteOffset: 14, as: UInt8.self) == 1
        else { return }
        let uid = Int32(bitPattern: block.load(uint32At: 16, order))
        let packageLength = Int(block.load(fromByteOffset: 20, as: UInt8.self))
        guard 22 + packageLength <= length - 4 else { return }
        appNames[uid] = InlineName(UnsafeRawBufferPointer(start: block + 22, count: packageLength))
    }

    /// The owner the options of an Enhanced Packet Block (bytes `start..<end` of `block`) name. An
    /// index past the section's process blocks names nothing.
    func owner(ofOptions block: UnsafeRawPointer, from start: Int, to end: Int, _ order: ByteOrder) -> PacketOwner {
        guard start + 4 <= end, !(processes.isEmpty && appNames.isEmpty) else { return .none }
        var origin = PacketOwner.none
        var process: Int?
        var effective: Int?
        Self.forEachOption(block, from: start, to: end, order) { code, value in
            switch (code, value.count) {
            case (Option.processIndex, 4), (Option.effectiveProcessIndex, 4):
                let index = Int(value.baseAddress!.load(uint32At: 0, order))
                guard index < processes.count else { return }
                if code == Option.processIndex { process = index } else { effective = index }
            case (Option.serviceClass, 4):
                origin.serviceClass = value.baseAddress!.load(uint32At: 0, order)
            case (Option.flags, 4):
                switch value.baseAddress!.load(uint32At: 0, order) & 0x3 {
                case 1: origin.direction = .inbound
                case 2: origin.direction = .outbound
                default: break
                }
            case (Option.comment, _):
                if let uid = Self.pcapdroidUID(value), uid != -1, let name = appNames[uid] {
                    origin.kind = .app
                    origin.id = uid
                    origin.name = name
                }
            default: break
            }
        }
        if let index = process ?? effective {
            origin.kind = .process
            origin.id = processes[index].pid
            origin.name = processes[index].name
            if let effective, effective != index || process == nil {
                origin.effectiveID = processes[effective].pid
                origin.effectiveName = processes[effective].name
            }
        }
        return origin.kind == .none ? .none : origin
    }

    /// The uid of a PCAPdroid comment `u-<uid>`.
    private static func pcapdroidUID(_ comment: UnsafeRawBufferPointer) -> Int32? {
        guard comment.count > 2, comment.count <= 13, comment[0] == UInt8(ascii: "u"), comment[1] == UInt8(ascii: "-")
        else { return nil }
        var value: Int64 = 0
        var negative = false
        for (position, byte) in comment.dropFirst(2).enumerated() {
            if position == 0 && byte == UInt8(ascii: "-") { negative = true; continue }
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int64(byte - UInt8(ascii: "0"))
        }
        return Int32(exactly: negative ? -value : value)
    }

    /// Calls `body` with each option's code and value in `start..<end`, up to `opt_endofopt`.
    private static func forEachOption(
        _ block: UnsafeRawPointer, from start: Int, to end: Int, _ order: ByteOrder,
        _ body: (UInt16, UnsafeRawBufferPointer) -> Void
    ) {
        var offset = start
        while offset + 4 <= end {
            let code = block.load(uint16At: offset, order)
            let length = Int(block.load(uint16At: offset + 2, order))
            let value = offset + 4
            guard code != 0, value + length <= end else { return }
            body(code, UnsafeRawBufferPointer(start: block + value, count: length))
            offset = value + (length + 3) & ~3
        }
    }
}
