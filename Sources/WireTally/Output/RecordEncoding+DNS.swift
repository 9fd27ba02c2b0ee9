extension RecordEncoding {
    /// A `{"type":"dns",…}` record: one query with its answer and the packets they cost.
    public static func dns(_ transaction: DNSTransaction, timestampDigits digits: Int) -> JSONValue {
        let response = transaction.response
        let question = transaction.question
        return .object([
            ("type", .string("dns")),
            ("id", .integer(transaction.id)),
            ("dns_id", .integer(Int(transaction.messageID))),
            ("client", .string(transaction.client.description)),
            ("server", .string(transaction.server.description)),
            ("transport", .string(transaction.transport.rawValue)),
            ("query", question.map { .string($0.name) } ?? .null),
            ("qtype", question.map { .string($0.type.description) } ?? .null),
            ("rcode", response.map { .string($0.rcode.description) } ?? .null),
            ("answers", .array((response?.answers ?? []).map(dnsAnswer))),
            ("cnames", .array(transaction.cnames.map(JSONValue.string))),
            ("addresses", .array(transaction.addresses.map { .string($0.description) })),
            ("truncated", .bool(transaction.isTruncated)),
            ("retries", .integer(transaction.retries)),
            ("ts_query", transaction.queryTimestamp.map { .number($0.formatted(digits: digits)) } ?? .null),
            ("ts_answer", transaction.answerTimestamp.map { .number($0.formatted(digits: digits)) } ?? .null),
            ("rtt", transaction.rttNanoseconds.map { .number(milliseconds($0)) } ?? .null),
            ("wire", counters(transaction.wire)),
            ("flags", .array(transaction.flags.names.map(JSONValue.string))),
        ])
    }

    /// `{"name","type","ttl","data"}` of one answer record.
    private static func dnsAnswer(_ record: DNSResourceRecord) -> JSONValue {
        .object([
            ("name", .string(record.name)),
            ("type", .string(record.type.description)),
            ("ttl", .integer(Int(record.ttl))),
            ("data", .string(record.dataText)),
        ])
    }
}
