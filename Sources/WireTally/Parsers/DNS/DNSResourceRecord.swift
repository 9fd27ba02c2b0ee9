/// One entry of the question section.
public struct DNSQuestion: Hashable, Sendable {
    /// Lower-cased, no trailing dot (the root is "").
    public var name: String
    public var type: DNSRecordType
    /// The class (1 = IN); mDNS's unicast-response bit is kept as sent.
    public var recordClass: UInt16

    public init(name: String, type: DNSRecordType, recordClass: UInt16 = 1) {
        self.name = name
        self.type = type
        self.recordClass = recordClass
    }
}

/// The data of a resource record: decoded for the types wiretally follows, else just its length.
public enum DNSRecordData: Hashable, Sendable {
    /// A or AAAA.
    case address(IPAddress)
    /// CNAME, NS, PTR, DNAME: the target name.
    case name(String)
    /// SVCB or HTTPS (RFC 9460), possibly flagged malformed after its target.
    case serviceBinding(DNSServiceBinding)
    /// Any other type (or a known type whose data is malformed; for SVCB/HTTPS: without a readable
    /// priority and target): the RDATA length.
    case raw(length: Int)
}

/// A resource record of the answer, authority or additional section.
public struct DNSResourceRecord: Hashable, Sendable {
    /// Lower-cased owner name, no trailing dot.
    public var name: String
    public var type: DNSRecordType
    public var recordClass: UInt16
    public var ttl: UInt32
    public var data: DNSRecordData

    public init(name: String, type: DNSRecordType, recordClass: UInt16 = 1, ttl: UInt32, data: DNSRecordData) {
        self.name = name
        self.type = type
        self.recordClass = recordClass
        self.ttl = ttl
        self.data = data
    }

    /// The data as `dig` would show it: an address, a name, a service binding (`DNSServiceBinding.text`),
    /// or `<n bytes>` for undecoded data.
    public var dataText: String {
        switch data {
        case let .address(address): return address.description
        case let .name(name): return name
        case let .serviceBinding(binding): return binding.text
        case let .raw(length): return "<\(length) bytes>"
        }
    }
}

/// What an EDNS OPT pseudo-record (RFC 6891) announces.
public struct DNSEDNS: Hashable, Sendable {
    /// The sender's UDP payload size.
    public var udpPayloadSize: UInt16
    /// The upper 8 bits of the extended rcode.
    public var extendedRcodeHigh: UInt8
    public var version: UInt8
    /// DO: DNSSEC answers OK.
    public var dnssecOK: Bool
    /// Total length of the options.
    public var optionsLength: Int

    public init(udpPayloadSize: UInt16, extendedRcodeHigh: UInt8, version: UInt8, dnssecOK: Bool, optionsLength: Int) {
        self.udpPayloadSize = udpPayloadSize
        self.extendedRcodeHigh = extendedRcodeHigh
        self.version = version
        self.dnssecOK = dnssecOK
        self.optionsLength = optionsLength
    }
}
