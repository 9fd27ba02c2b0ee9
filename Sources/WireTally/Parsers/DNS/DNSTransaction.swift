/// One side of a DNS exchange: an address and a port.
package struct DNSEndpoint: Hashable, Sendable, CustomStringConvertible {
    package var address: IPAddress
    package var port: UInt16

    package init(address: IPAddress, port: UInt16) {
        self.address = address
        self.port = port
    }

    /// `ip:port`, IPv6 as `[ip]:port`.
    package var description: String { address.endpoint(port: port) }
}

/// How the DNS messages travelled.
package enum DNSTransport: String, Hashable, Sendable {
    case udp, tcp
}

/// What went unusually in a transaction.
package struct DNSTransactionFlags: OptionSet, Hashable, Sendable {
    package var rawValue: UInt8
    package init(rawValue: UInt8) { self.rawValue = rawValue }
    /// A response whose query the capture does not hold (the capture started late, or missed it).
    package static let noQuery = DNSTransactionFlags(rawValue: 1 << 0)
    /// A query never answered before the timeout or the end of the capture.
    package static let noResponse = DNSTransactionFlags(rawValue: 1 << 1)
    /// The query or the response could not be parsed completely.
    package static let malformed = DNSTransactionFlags(rawValue: 1 << 2)
    /// Pushed out unanswered because too many queries were waiting.
    package static let evicted = DNSTransactionFlags(rawValue: 1 << 3)
    /// A further response to a query already answered (each copy of a retried query got an answer): its
    /// packet is reported here, the first answer stays the transaction's.
    package static let duplicateResponse = DNSTransactionFlags(rawValue: 1 << 4)

    /// Names in record order.
    package var names: [String] {
        [
            (Self.noQuery, "no_query"), (.noResponse, "no_response"), (.malformed, "malformed"),
            (.evicted, "evicted"), (.duplicateResponse, "duplicate_response"),
        ]
            .filter { contains($0.0) }.map(\.1)
    }
}

/// A DNS query and its answer (either may be missing), with every packet they cost.
package struct DNSTransaction: Hashable, Sendable {
    /// Record id: 1, 2, … in emission order (0 until emitted).
    package internal(set) var id: Int = 0
    /// The DNS message id shared by the query and its response.
    package var messageID: UInt16
    /// The querier (the sender of the query; for a response without query, its destination).
    package var client: DNSEndpoint
    package var server: DNSEndpoint
    package var transport: DNSTransport
    /// The question asked (from the query, else from the response); nil when the message had none.
    package var question: DNSQuestion?
    /// The matching response, nil when unanswered.
    package var response: DNSMessage?
    /// Queries for the same question re-sent (same endpoints and id) before the answer came.
    package var retries = 0
    /// The first query's time; nil for a response without query.
    package var queryTimestamp: Timestamp?
    /// The matching response's time; nil when unanswered.
    package var answerTimestamp: Timestamp?
    /// Every packet of the transaction (queries, retries, response). Over UDP: packets, IP, frame and UDP
    /// payload bytes of each datagram. Over TCP: the connection's packets the ledger attributed to the
    /// transaction (its messages, their ACKs, and handshake/teardown for the first/last), filled in
    /// when the connection ends.
    package var wire = TrafficCounters()
    /// The part of `wire` the server sent (responses; over TCP the connection's down direction).
    package var responseWire = TrafficCounters()
    /// Over TCP: the connection's record id and the transaction's position on it.
    package var connectionID: Int?
    package var connectionIndex: Int?
    package var flags: DNSTransactionFlags = []

    package init(
        messageID: UInt16, client: DNSEndpoint, server: DNSEndpoint, transport: DNSTransport, question: DNSQuestion?
    ) {
        self.messageID = messageID
        self.client = client
        self.server = server
        self.transport = transport
        self.question = question
    }

    /// Response time in nanoseconds (first query to response); nil when either is missing.
    package var rttNanoseconds: Int64? {
        guard let queryTimestamp, let answerTimestamp else { return nil }
        return answerTimestamp.nanoseconds &- queryTimestamp.nanoseconds
    }

    /// True when the response had TC set (truncated: the client should ask again over TCP).
    package var isTruncated: Bool { response?.header.isTruncated ?? false }

    /// The CNAME chain from the question's name, in order, followed through the answer section (bounded
    /// by its size, so a CNAME loop ends).
    package var cnames: [String] { chain.cnames }

    /// The A and AAAA addresses of the question's name after following the CNAME chain, in answer order.
    package var addresses: [IPAddress] { chain.addresses }

    /// The address hints of the SVCB/HTTPS answers along the CNAME chain (ServiceMode, well formed).
    package var hintAddresses: [IPAddress] { chain.hints }

    /// An HTTPS answer along the CNAME chain (ServiceMode, well formed) lists `h3` in its `alpn`.
    package var advertisesH3: Bool { chain.advertisesH3 }

    /// The answer section read from the question's name (build once when several of its parts are read).
    var chain: DNSAnswerChain { DNSAnswerChain(question: question, answers: response?.answers ?? []) }
}
