/// Addresses inside DNS record data (A, AAAA, and the SVCB/HTTPS address hints), bounds-checked.
extension UnsafeRawBufferPointer {
    /// The IPv4 address in the 4 bytes at `offset`; nil when they are not all inside the buffer.
    func ipv4Address(at offset: Int) -> IPAddress? {
        uint32BigEndian(at: offset).map { IPAddress(ipv4: $0) }
    }

    /// The IPv6 address in the 16 bytes at `offset`; nil when they are not all inside the buffer.
    func ipv6Address(at offset: Int) -> IPAddress? {
        guard let high = uint32BigEndian(at: offset), let high2 = uint32BigEndian(at: offset + 4),
              let low = uint32BigEndian(at: offset + 8), let low2 = uint32BigEndian(at: offset + 12)
        else { return nil }
        return IPAddress(ipv6High: UInt64(high) << 32 | UInt64(high2), low: UInt64(low) << 32 | UInt64(low2))
    }
}
