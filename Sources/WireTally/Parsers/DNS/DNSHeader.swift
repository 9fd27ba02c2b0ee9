/// The fixed 12-byte header of a DNS message (RFC 1035 §4.1.1).
public struct DNSHeader: Hashable, Sendable {
    /// The transaction id chosen by the querier and echoed by the responder.
    public var id: UInt16
    /// The raw flags word: QR, opcode, AA, TC, RD, RA, Z/AD/CD and the low 4 bits of the rcode.
    public var flags: UInt16
    public var questionCount: UInt16
    public var answerCount: UInt16
    public var authorityCount: UInt16
    public var additionalCount: UInt16

    public init(
        id: UInt16, flags: UInt16, questionCount: UInt16 = 0, answerCount: UInt16 = 0, authorityCount: UInt16 = 0,
        additionalCount: UInt16 = 0
    ) {
        self.id = id
        self.flags = flags
        self.questionCount = questionCount
        self.answerCount = answerCount
        self.authorityCount = authorityCount
        self.additionalCount = additionalCount
    }

    /// QR: true for a response.
    public var isResponse: Bool { flags & 0x8000 != 0 }
    /// 0 QUERY, 1 IQUERY, 2 STATUS, 4 NOTIFY, 5 UPDATE.
    public var opcode: UInt8 { UInt8(flags >> 11 & 0x0f) }
    /// AA: the responder is authoritative.
    public var isAuthoritative: Bool { flags & 0x0400 != 0 }
    /// TC: the message was truncated (the client should retry over TCP).
    public var isTruncated: Bool { flags & 0x0200 != 0 }
    /// RD: recursion desired.
    public var recursionDesired: Bool { flags & 0x0100 != 0 }
    /// RA: recursion available.
    public var recursionAvailable: Bool { flags & 0x0080 != 0 }
    /// The 4-bit header rcode (an OPT record may extend it, see `DNSMessage.rcode`).
    public var headerRcode: UInt8 { UInt8(flags & 0x000f) }

    /// The size of the header on the wire.
    public static let length = 12
}
