/// Reads SVCB/HTTPS RDATA (RFC 9460 §2.2) in place, never trapping: SvcPriority, an uncompressed
/// TargetName, then SvcParams (key, length, value) up to the end of the RDATA.
enum DNSServiceBindingReader {
    /// The binding in `rdata` (the record's data alone); nil when even the priority and target cannot be
    /// read (too short, or a target that is compressed or runs past the data). After the target, a
    /// parameter running past the data or whose key is not above the previous one ends the reading (so
    /// no key is ever seen twice) and a value of the wrong format is skipped: both set `isMalformed`,
    /// what came before is kept.
    static func read(_ rdata: UnsafeRawBufferPointer) -> DNSServiceBinding? {
        guard let priority = rdata.uint16BigEndian(at: 0),
              let (target, targetEnd) = DNSNameReader.read(rdata, at: 2, allowsCompression: false)
        else { return nil }
        var binding = DNSServiceBinding(priority: priority, target: target)
        var offset = targetEnd
        var previousKey: UInt16?
        while offset < rdata.count {
            guard let key = rdata.uint16BigEndian(at: offset), let length = rdata.uint16BigEndian(at: offset + 2),
                  offset + 4 + Int(length) <= rdata.count, previousKey.map({ key > $0 }) ?? true
            else {
                binding.isMalformed = true
                break
            }
            previousKey = key
            let valueStart = offset + 4
            offset = valueStart + Int(length)
            if !apply(key: key, value: rdata.clamped(from: valueStart, to: offset), to: &binding) {
                binding.isMalformed = true
            }
        }
        return binding
    }

    /// Decodes one SvcParam into `binding`; false (nothing stored) when its value has not the format
    /// RFC 9460 §7 gives its key.
    private static func apply(key: UInt16, value: UnsafeRawBufferPointer, to binding: inout DNSServiceBinding) -> Bool {
        switch key {
        case DNSServiceParameter.mandatory:
            guard !value.isEmpty, value.count % 2 == 0 else { return false }
            binding.mandatory = stride(from: 0, to: value.count, by: 2).compactMap { value.uint16BigEndian(at: $0) }
        case DNSServiceParameter.alpn:
            guard let ids = alpnIDs(value) else { return false }
            binding.alpn = ids
        case DNSServiceParameter.noDefaultALPN:
            guard value.isEmpty else { return false }
            binding.noDefaultALPN = true
        case DNSServiceParameter.port:
            guard value.count == 2, let port = value.uint16BigEndian(at: 0) else { return false }
            binding.port = port
        case DNSServiceParameter.ipv4Hint:
            guard !value.isEmpty, value.count % 4 == 0 else { return false }
            binding.ipv4Hints = stride(from: 0, to: value.count, by: 4).compactMap { value.ipv4Address(at: $0) }
        case DNSServiceParameter.ech:
            binding.echLength = value.count
        case DNSServiceParameter.ipv6Hint:
            guard !value.isEmpty, value.count % 16 == 0 else { return false }
            binding.ipv6Hints = stride(from: 0, to: value.count, by: 16).compactMap { value.ipv6Address(at: $0) }
        default:
            binding.otherParameters.append(DNSServiceParameter(key: key, length: value.count))
        }
        return true
    }

    /// The length-prefixed protocol ids of an `alpn` value: at least one, none empty, the last ending
    /// exactly at the end of the value; nil otherwise.
    private static func alpnIDs(_ value: UnsafeRawBufferPointer) -> [String]? {
        var ids: [String] = []
        var offset = 0
        while let length = value.byte(at: offset) {
            let end = offset + 1 + Int(length)
            guard length > 0, end <= value.count else { return nil }
            ids.append(DNSNameReader.escaped(value.clamped(from: offset + 1, to: end)))
            offset = end
        }
        return ids.isEmpty ? nil : ids
    }
}
