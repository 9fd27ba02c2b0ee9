/// A DNS RR type (RFC 1035 and successors), shown by its mnemonic, or `TYPE<n>` (RFC 3597) when unknown.
package struct DNSRecordType: Hashable, Sendable, CustomStringConvertible {
    package var rawValue: UInt16
    package init(rawValue: UInt16) { self.rawValue = rawValue }

    package static let a = DNSRecordType(rawValue: 1)
    package static let ns = DNSRecordType(rawValue: 2)
    package static let cname = DNSRecordType(rawValue: 5)
    package static let ptr = DNSRecordType(rawValue: 12)
    package static let aaaa = DNSRecordType(rawValue: 28)
    package static let opt = DNSRecordType(rawValue: 41)
    package static let svcb = DNSRecordType(rawValue: 64)
    package static let https = DNSRecordType(rawValue: 65)

    private static let mnemonics: [UInt16: String] = [
        1: "A", 2: "NS", 5: "CNAME", 6: "SOA", 12: "PTR", 13: "HINFO", 15: "MX", 16: "TXT", 17: "RP",
        18: "AFSDB", 24: "SIG", 25: "KEY", 28: "AAAA", 29: "LOC", 33: "SRV", 35: "NAPTR", 36: "KX", 37: "CERT",
        39: "DNAME", 41: "OPT", 42: "APL", 43: "DS", 44: "SSHFP", 45: "IPSECKEY", 46: "RRSIG", 47: "NSEC",
        48: "DNSKEY", 49: "DHCID", 50: "NSEC3", 51: "NSEC3PARAM", 52: "TLSA", 53: "SMIMEA", 55: "HIP",
        59: "CDS", 60: "CDNSKEY", 61: "OPENPGPKEY", 62: "CSYNC", 63: "ZONEMD", 64: "SVCB", 65: "HTTPS",
        99: "SPF", 108: "EUI48", 109: "EUI64", 249: "TKEY", 250: "TSIG", 251: "IXFR", 252: "AXFR", 255: "ANY",
        256: "URI", 257: "CAA",
    ]

    /// `A`, `AAAA`, `HTTPS`…, or `TYPE<n>` for a type without a mnemonic here.
    package var description: String { Self.mnemonics[rawValue] ?? "TYPE\(rawValue)" }
}

/// A DNS response code (RFC 1035, 2136, 6891): header rcode, extended by EDNS.
package struct DNSResponseCode: Hashable, Sendable, CustomStringConvertible {
    package var rawValue: UInt16
    package init(rawValue: UInt16) { self.rawValue = rawValue }

    package static let noError = DNSResponseCode(rawValue: 0)
    package static let nameError = DNSResponseCode(rawValue: 3)

    private static let names: [UInt16: String] = [
        0: "NOERROR", 1: "FORMERR", 2: "SERVFAIL", 3: "NXDOMAIN", 4: "NOTIMP", 5: "REFUSED", 6: "YXDOMAIN",
        7: "YXRRSET", 8: "NXRRSET", 9: "NOTAUTH", 10: "NOTZONE", 11: "DSOTYPENI", 16: "BADVERS", 17: "BADKEY",
        18: "BADTIME", 19: "BADMODE", 20: "BADNAME", 21: "BADALG", 22: "BADTRUNC", 23: "BADCOOKIE",
    ]

    /// `NOERROR`, `NXDOMAIN`, `SERVFAIL`…, or `RCODE<n>`.
    package var description: String { Self.names[rawValue] ?? "RCODE\(rawValue)" }
}
