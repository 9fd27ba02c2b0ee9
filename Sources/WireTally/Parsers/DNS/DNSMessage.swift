/// A parsed DNS message (RFC 1035 §4), from a UDP payload or one TCP-framed message.
///
/// Parsing never traps and never reads outside the given bytes. A message is rejected (nil) only when
/// its 12-byte header is missing; when a later section is cut or impossible, the records before the
/// damage are kept and `isMalformed` is set. An SVCB/HTTPS record whose data breaks RFC 9460 is kept
/// (flagged, or as raw data) and also sets `isMalformed`, without stopping the reading.
package struct DNSMessage: Hashable, Sendable {
    package var header: DNSHeader
    package var questions: [DNSQuestion]
    package var answers: [DNSResourceRecord]
    package var authorities: [DNSResourceRecord]
    /// The additional section without the OPT pseudo-record (see `edns`).
    package var additionals: [DNSResourceRecord]
    /// The EDNS OPT record, when present.
    package var edns: DNSEDNS?
    /// True when the counts in the header promise more than the bytes hold, or a name or record is
    /// impossible (bad compression pointer, label beyond the message), or an SVCB/HTTPS record's data is
    /// malformed (of the sections parsed: with `allSections: false`, the answers).
    package var isMalformed: Bool
    /// The message's length in bytes.
    package var length: Int

    package init(
        header: DNSHeader, questions: [DNSQuestion] = [], answers: [DNSResourceRecord] = [],
        authorities: [DNSResourceRecord] = [], additionals: [DNSResourceRecord] = [], edns: DNSEDNS? = nil,
        isMalformed: Bool = false, length: Int = DNSHeader.length
    ) {
        self.header = header
        self.questions = questions
        self.answers = answers
        self.authorities = authorities
        self.additionals = additionals
        self.edns = edns
        self.isMalformed = isMalformed
        self.length = length
    }

    /// The response code, extended by the OPT record's upper bits when present.
    package var rcode: DNSResponseCode {
        DNSResponseCode(rawValue: UInt16(edns?.extendedRcodeHigh ?? 0) << 4 | UInt16(header.headerRcode))
    }

    /// The first question (DNS messages carry one in practice).
    package var question: DNSQuestion? { questions.first }

    /// Parses `bytes` as one DNS message; nil when they cannot hold a header.
    ///
    /// - Parameters:
    ///   - bytes: the message, from its header on (DNS over TCP: after the length prefix).
    ///   - allSections: false to step over the authority and additional sections checking only
    ///     their bounds (`authorities` and `additionals` stay empty; `edns` is still read): what a
    ///     transaction keeps, without allocating names it would drop.
    package static func parse(_ bytes: UnsafeRawBufferPointer, allSections: Bool = true) -> DNSMessage? {
        guard let id = bytes.uint16BigEndian(at: 0), let flags = bytes.uint16BigEndian(at: 2),
              let questionCount = bytes.uint16BigEndian(at: 4), let answerCount = bytes.uint16BigEndian(at: 6),
              let authorityCount = bytes.uint16BigEndian(at: 8), let additionalCount = bytes.uint16BigEndian(at: 10)
        else { return nil }
        let header = DNSHeader(
            id: id, flags: flags, questionCount: questionCount, answerCount: answerCount,
            authorityCount: authorityCount, additionalCount: additionalCount)
        var message = DNSMessage(header: header, length: bytes.count)
        var reader = DNSSectionReader(bytes: bytes, offset: DNSHeader.length)
        message.questions = reader.questions(count: Int(questionCount))
        message.answers = reader.records(count: Int(answerCount))
        if allSections {
            message.authorities = reader.records(count: Int(authorityCount))
            let additionals = reader.records(count: Int(additionalCount))
            message.additionals = additionals.filter { $0.type != .opt }
            if let opt = additionals.first(where: { $0.type == .opt }) { message.edns = Self.edns(from: opt) }
        } else {
            reader.skipRecords(count: Int(authorityCount))
            if let opt = reader.skipRecords(count: Int(additionalCount)) { message.edns = Self.edns(from: opt) }
        }
        message.isMalformed = reader.failed || reader.foundMalformedData
        return message
    }

    /// An OPT record's fields live in its class (payload size) and TTL (extended rcode, version, DO).
    private static func edns(from opt: DNSResourceRecord) -> DNSEDNS {
        var optionsLength = 0
        if case let .raw(length) = opt.data { optionsLength = length }
        return DNSEDNS(
            udpPayloadSize: opt.recordClass, extendedRcodeHigh: UInt8(truncatingIfNeeded: opt.ttl >> 24),
            version: UInt8(truncatingIfNeeded: opt.ttl >> 16), dnssecOK: opt.ttl & 0x8000 != 0,
            optionsLength: optionsLength)
    }
}
