/// `dns` records (JSON Lines only; table and CSV leave them out):
///
///     {"type":"dns","id":3,"dns_id":26096,"client":"141.142.220.118:40526","server":"141.142.2.2:53",
///      "transport":"udp","query":"upload.wikimedia.org","qtype":"A","rcode":"NOERROR",
///      "answers":[{"name":"upload.wikimedia.org","type":"CNAME","ttl":124,"data":"upload.pmtpa.wikimedia.org"},
///                 {"name":"upload.pmtpa.wikimedia.org","type":"A","ttl":2156,"data":"208.80.152.3"}],
///      "cnames":["upload.pmtpa.wikimedia.org"],"addresses":["208.80.152.3"],"truncated":false,"retries":0,
///      "ts_query":1300475168.854837,"ts_answer":1300475168.855229,"rtt":0.392,
///      "wire":{"packets":2,"ip_bytes":277,"frame_bytes":305,"payload_bytes":221},"flags":[]}
///
/// - `id` is the record's id (1, 2, … in emission order, what `DNSAnswerIndex` returns); `dns_id` the
///   message id. `query`/`qtype` come from the query (else the response), `qtype` as a mnemonic or
///   `TYPE<n>`; `rcode` is text (`NOERROR`, `NXDOMAIN`…, EDNS-extended) and null when unanswered.
/// - `answers` is the answer section (`data`: address, target name, or `<n bytes>` for other types);
///   `cnames` the alias chain from the query name; `addresses` the A/AAAA data at its end.
/// - `rtt` is milliseconds from the first query to the response (null without either); `retries` the
///   copies of the query re-sent before the answer.
/// - `flags`: `no_query` (a response whose query was not captured), `duplicate_response` (a further
///   answer to a query answered just before: its own record, so its packet is counted once),
///   `no_response`, `malformed`, `evicted` (too many queries waiting).
/// - `wire` (UDP): every datagram of the transaction (queries, retries, response) at the four levels.
///   Those datagrams are also in their UDP `flow` record, which still counts every datagram: the
///   summary's outcomes count each packet once (in `other_ip`), and the `dns` records are a finer view of
///   the same packets, never added to the outcomes. Over TCP the packets are the `connection` record's
///   and `wire` has only `payload_bytes`: each message with its 2-byte length prefix.
extension RecordEncoding {
    /// A `{"type":"dns",…}` record: one query with its answer and the packets they cost.
    public static func dns(_ transaction: DNSTransaction, timestampDigits digits: Int) -> JSONValue {
        let response = transaction.response
        let question = transaction.question
        var connectionReference = JSONValue.null
        if let id = transaction.connectionID {
            connectionReference = .object([("id", .integer(id)), ("index", .integer(transaction.connectionIndex ?? 0))])
        }
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
            ("conn", connectionReference),
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
