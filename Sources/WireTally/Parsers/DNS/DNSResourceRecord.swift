/// One entry of the question section.
package struct DNSQuestion: Hashable, Sendable {
    /// Lower-cased, no trailing dot (the root is "").
    package var name: String
    package var type: DNSRecordType
    /// The class (1 = IN); mDNS's unicast-response bit is kept as sent.
    package var recordClass: UInt16

    package init(name: String, type: DNSRecordType, recordClass: UInt16 = 1) {
        self.name = name
        self.type = type
        self.recordClass = recordClass
    }
}

/// The data of a resource record: decoded for the types wiretally follows, else just its length.
package enum DNSRecordData: Hashable, Sendable {
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
package struct DNSResourceRecord: Hashable, Sendable {
    /// Lower-cased owner name, no trailing dot.
    package var name: String
    package var type: DNSRecordType
    package var recordClass: UInt16
    package var ttl: UInt32
    package var data: DNSRecordData

    package init(name: String, type: DNSRecordType, recordClass: UInt16 = 1, ttl: UInt32, data: DNSRecordData) {
        self.name = name
        self.type = type
        self.recordClass = recordClass
        self.ttl = ttl
        self.data = data
    }

    /// The data as `dig` would show it: an address, a name, a service binding (`DNSServiceBinding.text`),
    /// or `<n bytes>` for undecoded data.
    package var dataText: String {
        switch data {
        case let .address(address): return address.description
        case let .name(name): return name
        case let .serviceBinding(binding): return binding.text
        case let .raw(length): return "<\(length) bytes>"
        }
    }
}

/// What an EDNS OPT pseudo-record (RFC 6891) announces.
package struct DNSEDNS: Hashable, Sendable {
    /// The sender's UDP payload size.
    package var udpPayloadSize: UInt16
    /// The upper 8 bits of the extended rcode.
    package var extendedRcodeHigh: UInt8
    package var version: UInt8
    /// DO: DNSSEC answers OK.
    package var dnssecOK: Bool
    /// Total length of the options.
    package var optionsLength: Int

    package init(udpPayloadSize: UInt16, extendedRcodeHigh: UInt8, version: UInt8, dnssecOK: Bool, optionsLength: Int) {
        self.udpPayloadSize = udpPayloadSize
        self.extendedRcodeHigh = extendedRcodeHigh
        self.version = version
        self.dnssecOK = dnssecOK
        self.optionsLength = optionsLength
    }
}
