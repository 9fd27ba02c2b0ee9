/// An IPv4 or IPv6 address stored in 128 bits, hashable and cheap to copy (no allocation).
///
/// IPv4 addresses are kept in the low 32 bits of `low` with `isIPv6 == false`.
package struct IPAddress: Hashable, Comparable, Sendable, BitwiseCopyable, CustomStringConvertible {
    package var high: UInt64
    package var low: UInt64
    package var isIPv6: Bool

    package init(ipv4 value: UInt32) {
        high = 0
        low = UInt64(value)
        isIPv6 = false
    }

    package init(ipv6High high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
        isIPv6 = true
    }

    /// Parses dotted IPv4 (`10.0.0.1`) or textual IPv6 (`fe80::1`); nil when malformed.
    package init?(_ text: String) {
        if text.contains(":") {
            guard let parsed = IPAddress.parseIPv6(text) else { return nil }
            self = parsed
        } else {
            let parts = text.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 4 else { return nil }
            var value: UInt32 = 0
            for part in parts {
                guard let octet = UInt8(part) else { return nil }
                value = value << 8 | UInt32(octet)
            }
            self.init(ipv4: value)
        }
    }

    /// IPv4 before IPv6, then by address. Field by field: a tuple comparison costs about three times
    /// as much, and every packet orders its two endpoints (`FlowKey`).
    @inline(__always)
    package static func < (lhs: IPAddress, rhs: IPAddress) -> Bool {
        if lhs.isIPv6 != rhs.isIPv6 { return !lhs.isIPv6 }
        if lhs.high != rhs.high { return lhs.high < rhs.high }
        return lhs.low < rhs.low
    }

    /// Dotted quad for IPv4; RFC 5952 text (lower case, longest zero run as `::`) for IPv6.
    package var description: String {
        if !isIPv6 { return ipv4Text(port: nil) }
        var groups = [UInt16](repeating: 0, count: 8)
        for i in 0..<4 {
            groups[i] = UInt16(truncatingIfNeeded: high >> (48 - 16 * UInt64(i)))
            groups[i + 4] = UInt16(truncatingIfNeeded: low >> (48 - 16 * UInt64(i)))
        }
        var bestStart = -1, bestLength = 0, index = 0
        while index < 8 {
            guard groups[index] == 0 else { index += 1; continue }
            var end = index
            while end < 8 && groups[end] == 0 { end += 1 }
            if end - index > bestLength && end - index >= 2 { bestStart = index; bestLength = end - index }
            index = end
        }
        func hex(_ range: Range<Int>) -> String {
            groups[range].map { String($0, radix: 16) }.joined(separator: ":")
        }
        guard bestStart >= 0 else { return hex(0..<8) }
        return hex(0..<bestStart) + "::" + hex((bestStart + bestLength)..<8)
    }

    /// `ip:port` for IPv4, `[ip]:port` for IPv6.
    package func endpoint(port: UInt16) -> String {
        isIPv6 ? "[\(description)]:\(port)" : ipv4Text(port: port)
    }

    /// The dotted quad of an IPv4 address, then `:port` when given, formatted byte-wise (records
    /// carry two endpoints each; interpolation cost more than the rest of a field).
    private func ipv4Text(port: UInt16?) -> String {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.maximumIPv4EndpointCount) { text in
            guard let start = text.baseAddress else { return "" }
            return String(decoding: UnsafeBufferPointer(start: start, count: writeIPv4Text(port: port, to: start)), as: UTF8.self)
        }
    }

    /// The most bytes `writeIPv4Text(port:to:)` stores: `255.255.255.255:65535`.
    static let maximumIPv4EndpointCount = 21

    /// Stores the dotted quad of this IPv4 address, then `:port` when given, at `start` (room for
    /// `maximumIPv4EndpointCount` bytes); returns how many bytes it stored.
    func writeIPv4Text(port: UInt16?, to start: UnsafeMutablePointer<UInt8>) -> Int {
        let value = UInt32(truncatingIfNeeded: low)
        var count = DecimalDigits.write(Int(value >> 24), to: start)
        for shift: UInt32 in [16, 8, 0] {
            start[count] = UInt8(ascii: ".")
            count += 1 + DecimalDigits.write(Int(value >> shift & 0xff), to: start + count + 1)
        }
        if let port {
            start[count] = UInt8(ascii: ":")
            count += 1 + DecimalDigits.write(Int(port), to: start + count + 1)
        }
        return count
    }

    private static func parseIPv6(_ text: String) -> IPAddress? {
        let halves = text.split(separator: "::", omittingEmptySubsequences: false).map(String.init)
        guard halves.count <= 2 else { return nil }
        func groups(_ part: String) -> [UInt16]? {
            if part.isEmpty { return [] }
            var result: [UInt16] = []
            for piece in part.split(separator: ":", omittingEmptySubsequences: false) {
                guard let value = UInt16(piece, radix: 16) else { return nil }
                result.append(value)
            }
            return result
        }
        guard let head = groups(halves[0]) else { return nil }
        var all = head
        if halves.count == 2 {
            guard let tail = groups(halves[1]), head.count + tail.count < 8 else { return nil }
            all += [UInt16](repeating: 0, count: 8 - head.count - tail.count) + tail
        }
        guard all.count == 8 else { return nil }
        var high: UInt64 = 0, low: UInt64 = 0
        for i in 0..<4 { high = high << 16 | UInt64(all[i]) }
        for i in 4..<8 { low = low << 16 | UInt64(all[i]) }
        return IPAddress(ipv6High: high, low: low)
    }
}
