@testable import WireTally

/// Writes DNS messages by hand for tests: names are written in full unless a compression pointer to an
/// earlier offset is asked for.
struct DNSMessageBuilder {
    private(set) var bytes: [UInt8]

    /// A header: `flags` as on the wire (0x0100 query with RD, 0x8180 response NOERROR…) and the counts.
    init(id: UInt16, flags: UInt16, questions: UInt16 = 1, answers: UInt16 = 0, authorities: UInt16 = 0, additionals: UInt16 = 0) {
        bytes = FrameBuilder.be16(id) + FrameBuilder.be16(flags) + FrameBuilder.be16(questions)
            + FrameBuilder.be16(answers) + FrameBuilder.be16(authorities) + FrameBuilder.be16(additionals)
    }

    /// The wire form of `name` (dot-separated labels), ending with the root label.
    static func encodedName(_ name: String) -> [UInt8] {
        var out: [UInt8] = []
        for label in name.split(separator: ".") { out += [UInt8(label.utf8.count)] + Array(label.utf8) }
        return out + [0]
    }

    /// A compression pointer to `offset`.
    static func pointer(_ offset: Int) -> [UInt8] { [0xc0 | UInt8(offset >> 8), UInt8(offset & 0xff)] }

    /// Current length: the offset the next bytes will have (for pointers to them).
    var offset: Int { bytes.count }

    mutating func question(_ name: [UInt8], type: UInt16, recordClass: UInt16 = 1) {
        bytes += name + FrameBuilder.be16(type) + FrameBuilder.be16(recordClass)
    }

    mutating func question(_ name: String, type: UInt16) { question(Self.encodedName(name), type: type) }

    /// A resource record; `data` as given (a name inside it may use pointers too).
    mutating func record(_ name: [UInt8], type: UInt16, recordClass: UInt16 = 1, ttl: UInt32 = 300, data: [UInt8]) {
        bytes += name + FrameBuilder.be16(type) + FrameBuilder.be16(recordClass) + FrameBuilder.be32(ttl)
        bytes += FrameBuilder.be16(UInt16(data.count)) + data
    }

    mutating func a(_ name: [UInt8], _ address: String, ttl: UInt32 = 300) {
        record(name, type: 1, ttl: ttl, data: Self.addressBytes(address))
    }

    mutating func aaaa(_ name: [UInt8], _ address: String, ttl: UInt32 = 300) {
        record(name, type: 28, ttl: ttl, data: Self.addressBytes(address))
    }

    mutating func cname(_ name: [UInt8], _ target: [UInt8], ttl: UInt32 = 300) {
        record(name, type: 5, ttl: ttl, data: target)
    }

    /// An EDNS OPT record: root name, payload size in the class, extended rcode/version/DO in the TTL.
    mutating func opt(payloadSize: UInt16 = 1232, extendedRcodeHigh: UInt8 = 0, dnssecOK: Bool = false, options: [UInt8] = []) {
        let ttl = UInt32(extendedRcodeHigh) << 24 | (dnssecOK ? 0x8000 : 0)
        record([0], type: 41, recordClass: payloadSize, ttl: ttl, data: options)
    }

    mutating func raw(_ extra: [UInt8]) { bytes += extra }

    static func addressBytes(_ text: String) -> [UInt8] {
        let address = IPAddress(text)!
        if !address.isIPv6 { return FrameBuilder.be32(UInt32(truncatingIfNeeded: address.low)) }
        return FrameBuilder.be32(UInt32(address.high >> 32)) + FrameBuilder.be32(UInt32(truncatingIfNeeded: address.high))
            + FrameBuilder.be32(UInt32(address.low >> 32)) + FrameBuilder.be32(UInt32(truncatingIfNeeded: address.low))
    }

    /// A query for `name`/`type` with RD set.
    static func query(id: UInt16, _ name: String, type: UInt16 = 1) -> [UInt8] {
        var builder = DNSMessageBuilder(id: id, flags: 0x0100)
        builder.question(name, type: type)
        return builder.bytes
    }

    /// A response to `name`/`type`: `addresses` as A/AAAA records of `name`, compressed against the
    /// question, and the given rcode.
    static func response(id: UInt16, _ name: String, type: UInt16 = 1, addresses: [String] = [], rcode: UInt16 = 0) -> [UInt8] {
        var builder = DNSMessageBuilder(id: id, flags: 0x8180 | rcode, answers: UInt16(addresses.count))
        builder.question(name, type: type)
        for address in addresses {
            if address.contains(":") { builder.aaaa(pointer(12), address) } else { builder.a(pointer(12), address) }
        }
        return builder.bytes
    }
}

/// Parses bytes as a DNS message (the buffer is only valid inside the call).
func parseDNS(_ bytes: [UInt8]) -> DNSMessage? {
    bytes.withUnsafeBytes { DNSMessage.parse($0) }
}
