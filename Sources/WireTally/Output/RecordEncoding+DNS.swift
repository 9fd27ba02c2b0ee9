/// `dns` records (JSON Lines only; table and CSV leave them out):
///
///     {"type":"dns","id":3,"dns_id":26096,"client":"141.142.220.118:40526","server":"141.142.2.2:53",
///      "transport":"udp","query":"upload.wikimedia.org","qtype":"A","rcode":"NOERROR",
///      "answers":[{"name":"upload.wikimedia.org","type":"CNAME","ttl":124,"data":"upload.pmtpa.wikimedia.org"},
///                 {"name":"upload.pmtpa.wikimedia.org","type":"A","ttl":2156,"data":"208.80.152.3"}],
///      "cnames":["upload.pmtpa.wikimedia.org"],"addresses":["208.80.152.3"],"advertises_h3":false,
///      "truncated":false,"retries":0,
///      "ts_query":1300475168.854837,"ts_answer":1300475168.855229,"rtt":0.392,
///      "wire":{"packets":2,"ip_bytes":277,"frame_bytes":305,"payload_bytes":221},"flags":[]}
///
/// - `id` is the record's id (1, 2, … in emission order, what `DNSAnswerIndex` returns); `dns_id` the
///   message id. `query`/`qtype` come from the query (else the response), `qtype` as a mnemonic or
///   `TYPE<n>`; `rcode` is text (`NOERROR`, `NXDOMAIN`…, EDNS-extended) and null when unanswered.
/// - `answers` is the answer section (`data`: address, target name, or `<n bytes>` for other types);
///   `cnames` the alias chain from the query name; `addresses` the A/AAAA data at its end.
/// - An SVCB or HTTPS answer (RFC 9460) has `data` close to presentation format
///   (`1 . alpn=h3,h2 port=8443 ipv4hint=192.0.2.1 ech=<62 bytes>`) and its fields: `priority`
///   (0: AliasMode), `target` ("." for the root: the owner itself), `mandatory` (key names), `alpn`,
///   `no_default_alpn`, `port` (null when absent), `ipv4hint`, `ipv6hint`, `ech_bytes` (the ECHConfigList
///   length, null when absent), `other_params` (`{"key65333":3}`: value lengths of other keys) and
///   `malformed` (keys out of order, a value of the wrong format — left out — or a parameter past the
///   end of the data: RFC 9460 has clients ignore the record; the transaction is flagged `malformed`).
///   Data too short for a priority and target stays `<n bytes>`, the transaction flagged `malformed`.
/// - `advertises_h3`: an HTTPS answer owned by the query name or an alias of the chain, in ServiceMode
///   and well formed, lists `h3` in its `alpn` (the client may go straight to HTTP/3 over QUIC).
/// - `rtt` is milliseconds from the first query to the response (null without either); `retries` the
///   copies of the query re-sent before the answer.
/// - `flags`: `no_query` (a response whose query was not captured), `duplicate_response` (a further
///   answer to a query answered just before: its own record, so its packet is counted once),
///   `no_response`, `malformed`, `evicted` (too many queries waiting).
/// - `wire` (UDP): every datagram of the transaction (queries, retries, response) at the four levels.
///   Those datagrams are also in their UDP `flow` record, which still counts every datagram: the
///   summary's outcomes count each packet once (in `other_ip`), and the `dns` records are a finer view of
///   the same packets, never added to the outcomes. Over TCP `wire` is the ledger's exchange of the
///   transaction on its connection, at the four levels (its packets are also the `connection` record's;
///   the handshake goes to the first transaction, the teardown to the last).
extension RecordEncoding {
    /// A `{"type":"dns",…}` record: one query with its answer and the packets they cost.
    package static func dns(_ transaction: DNSTransaction, timestampDigits digits: Int) -> JSONValue {
        JSONValue { dns(transaction, timestampDigits: digits, to: &$0) }
    }

    static func dns<Encoder: JSONEncoding>(
        _ transaction: DNSTransaction, timestampDigits digits: Int, to encoder: inout Encoder
    ) {
        let response = transaction.response
        let question = transaction.question
        let chain = transaction.chain
        encoder.object { encoder in
            encoder.field("type", literal: "dns")
            encoder.field("id", transaction.id)
            encoder.field("dns_id", Int(transaction.messageID))
            encoder.field("client", transaction.client.description)
            encoder.field("server", transaction.server.description)
            encoder.field("transport", transaction.transport.rawValue)
            encoder.field("query", question?.name)
            encoder.field("qtype", question?.type.description)
            encoder.field("rcode", response?.rcode.description)
            encoder.field("answers") { encoder in
                encoder.array { encoder in
                    for answer in response?.answers ?? [] { dnsAnswer(answer, to: &encoder) }
                }
            }
            encoder.field("cnames", strings: chain.cnames)
            encoder.field("addresses", strings: chain.addresses.map(\.description))
            encoder.field("advertises_h3", chain.advertisesH3)
            encoder.field("truncated", transaction.isTruncated)
            encoder.field("retries", transaction.retries)
            encoder.field("ts_query", timestamp: transaction.queryTimestamp, digits: digits)
            encoder.field("ts_answer", timestamp: transaction.answerTimestamp, digits: digits)
            encoder.field("rtt", milliseconds: transaction.rttNanoseconds)
            encoder.field("wire") { counters(transaction.wire, to: &$0) }
            encoder.object("conn", transaction.connectionID) { encoder, id in
                encoder.field("id", id)
                encoder.field("index", transaction.connectionIndex ?? 0)
            }
            encoder.field("flags", strings: transaction.flags.names)
        }
    }

    /// `{"name","type","ttl","data"}` of one answer record, and the fields of a service binding.
    private static func dnsAnswer<Encoder: JSONEncoding>(_ record: DNSResourceRecord, to encoder: inout Encoder) {
        encoder.object { encoder in
            encoder.field("name", record.name)
            encoder.field("type", record.type.description)
            encoder.field("ttl", Int(record.ttl))
            encoder.field("data", record.dataText)
            if case let .serviceBinding(binding) = record.data { serviceBindingFields(binding, to: &encoder) }
        }
    }

    /// `priority`, `target`, `mandatory`, `alpn`, `no_default_alpn`, `port`, `ipv4hint`, `ipv6hint`,
    /// `ech_bytes`, `other_params`, `malformed` of an SVCB/HTTPS answer.
    private static func serviceBindingFields<Encoder: JSONEncoding>(
        _ binding: DNSServiceBinding, to encoder: inout Encoder
    ) {
        encoder.field("priority", Int(binding.priority))
        encoder.field("target", binding.targetText)
        encoder.field("mandatory", strings: binding.mandatory.map(DNSServiceParameter.name(ofKey:)))
        encoder.field("alpn", strings: binding.alpn)
        encoder.field("no_default_alpn", binding.noDefaultALPN)
        encoder.field("port", binding.port.map(Int.init))
        encoder.field("ipv4hint", strings: binding.ipv4Hints.map(\.description))
        encoder.field("ipv6hint", strings: binding.ipv6Hints.map(\.description))
        encoder.field("ech_bytes", binding.echLength)
        encoder.object("other_params") { encoder in
            for parameter in binding.otherParameters {
                encoder.dynamicKey(parameter.name)
                encoder.integer(parameter.length)
            }
        }
        encoder.field("malformed", binding.isMalformed)
    }
}
