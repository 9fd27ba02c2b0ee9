/// The fixed 12-byte header of a DNS message (RFC 1035 §4.1.1).
package struct DNSHeader: Hashable, Sendable {
    /// The transaction id chosen by the querier and echoed by the responder.
    package var id: UInt16
    /// The raw flags word: QR, opcode, AA, TC, RD, RA, Z/AD/CD and the low 4 bits of the rcode.
    package var flags: UInt16
    package var questionCount: UInt16
    package var answerCount: UInt16
    package var authorityCount: UInt16
    package var additionalCount: UInt16

    package init(
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
    package var isResponse: Bool { flags & 0x8000 != 0 }
    /// 0 QUERY, 1 IQUERY, 2 STATUS, 4 NOTIFY, 5 UPDATE.
    package var opcode: UInt8 { UInt8(flags >> 11 & 0x0f) }
    /// AA: the responder is authoritative.
    package var isAuthoritative: Bool { flags & 0x0400 != 0 }
    /// TC: the message was truncated (the client should retry over TCP).
    package var isTruncated: Bool { flags & 0x0200 != 0 }
    /// RD: recursion desired.
    package var recursionDesired: Bool { flags & 0x0100 != 0 }
    /// RA: recursion available.
    package var recursionAvailable: Bool { flags & 0x0080 != 0 }
    /// The 4-bit header rcode (an OPT record may extend it, see `DNSMessage.rcode`).
    package var headerRcode: UInt8 { UInt8(flags & 0x000f) }

    /// The size of the header on the wire.
    package static let length = 12
}
