/// Walks the sections after the header; after the first failure every further read yields nothing.
struct DNSSectionReader {
    let bytes: UnsafeRawBufferPointer
    var offset: Int
    var failed = false

    init(bytes: UnsafeRawBufferPointer, offset: Int) {
        self.bytes = bytes
        self.offset = offset
    }

    mutating func questions(count: Int) -> [DNSQuestion] {
        var questions: [DNSQuestion] = []
        for _ in 0..<count {
            guard !failed, let (name, end) = DNSNameReader.read(bytes, at: offset),
                  let type = bytes.uint16BigEndian(at: end), let recordClass = bytes.uint16BigEndian(at: end + 2)
            else {
                failed = true
                break
            }
            questions.append(DNSQuestion(name: name, type: DNSRecordType(rawValue: type), recordClass: recordClass))
            offset = end + 4
        }
        return questions
    }

    mutating func records(count: Int) -> [DNSResourceRecord] {
        var records: [DNSResourceRecord] = []
        for _ in 0..<count {
            guard !failed, let record = nextRecord() else {
                failed = true
                break
            }
            records.append(record)
        }
        return records
    }

    /// Steps over records checking their bounds, decoding only an OPT record (whose owner is the root).
    @discardableResult
    mutating func skipRecords(count: Int) -> DNSResourceRecord? {
        var opt: DNSResourceRecord?
        for _ in 0..<count {
            guard !failed else { break }
            guard let end = DNSNameReader.end(of: bytes, at: offset), let type = bytes.uint16BigEndian(at: end),
                  let dataLength = bytes.uint16BigEndian(at: end + 8), end + 10 + Int(dataLength) <= bytes.count
            else {
                failed = true
                break
            }
            if type == DNSRecordType.opt.rawValue, opt == nil, bytes.byte(at: offset) == 0 {
                opt = nextRecord()
            }
            offset = end + 10 + Int(dataLength)
        }
        return opt
    }

    private mutating func nextRecord() -> DNSResourceRecord? {
        guard let (name, end) = DNSNameReader.read(bytes, at: offset),
              let type = bytes.uint16BigEndian(at: end), let recordClass = bytes.uint16BigEndian(at: end + 2),
              let ttl = bytes.uint32BigEndian(at: end + 4), let dataLength = bytes.uint16BigEndian(at: end + 8)
        else { return nil }
        let dataStart = end + 10
        let dataEnd = dataStart + Int(dataLength)
        guard dataEnd <= bytes.count else { return nil }
        offset = dataEnd
        let recordType = DNSRecordType(rawValue: type)
        return DNSResourceRecord(
            name: name, type: recordType, recordClass: recordClass, ttl: ttl,
            data: data(of: recordType, from: dataStart, to: dataEnd))
    }

    /// Names inside RDATA may point anywhere before them in the whole message, so they are read from
    /// `bytes` and must end exactly at the end of the RDATA.
    private func data(of type: DNSRecordType, from start: Int, to end: Int) -> DNSRecordData {
        let length = end - start
        switch type.rawValue {
        case DNSRecordType.a.rawValue where length == 4:
            guard let value = bytes.uint32BigEndian(at: start) else { return .raw(length: length) }
            return .address(IPAddress(ipv4: value))
        case DNSRecordType.aaaa.rawValue where length == 16:
            guard let high = bytes.uint32BigEndian(at: start), let high2 = bytes.uint32BigEndian(at: start + 4),
                  let low = bytes.uint32BigEndian(at: start + 8), let low2 = bytes.uint32BigEndian(at: start + 12)
            else { return .raw(length: length) }
            return .address(IPAddress(
                ipv6High: UInt64(high) << 32 | UInt64(high2), low: UInt64(low) << 32 | UInt64(low2)))
        case DNSRecordType.cname.rawValue, DNSRecordType.ns.rawValue, DNSRecordType.ptr.rawValue, 39:
            let rdata = bytes.clamped(from: 0, to: end)
            guard let (name, nameEnd) = DNSNameReader.read(rdata, at: start), nameEnd == end else {
                return .raw(length: length)
            }
            return .name(name)
        default:
            return .raw(length: length)
        }
    }
}
