/// Walks the sections after the header; after the first failure every further read yields nothing.
struct DNSSectionReader {
    let bytes: UnsafeRawBufferPointer
    var offset: Int
    var failed = false
    /// A record read whole but whose data breaks its type's format (SVCB/HTTPS): kept, and the message
    /// flagged, the reading goes on.
    private(set) var foundMalformedData = false

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
    /// `bytes` and must end exactly at the end of the RDATA (except SVCB/HTTPS targets: never compressed).
    private mutating func data(of type: DNSRecordType, from start: Int, to end: Int) -> DNSRecordData {
        let length = end - start
        switch type.rawValue {
        case DNSRecordType.a.rawValue where length == 4:
            return bytes.ipv4Address(at: start).map { .address($0) } ?? .raw(length: length)
        case DNSRecordType.aaaa.rawValue where length == 16:
            return bytes.ipv6Address(at: start).map { .address($0) } ?? .raw(length: length)
        case DNSRecordType.svcb.rawValue, DNSRecordType.https.rawValue:
            guard let binding = DNSServiceBindingReader.read(bytes.clamped(from: start, to: end)) else {
                foundMalformedData = true
                return .raw(length: length)
            }
            if binding.isMalformed { foundMalformedData = true }
            return .serviceBinding(binding)
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
