extension RecordEncoding {
    /// A connection record with every part present, for fixed CSV columns.
    static var connectionTemplate: JSONValue {
        let connection = TCPConnection(
            id: 0, endpoints: .init(client: IPAddress(ipv4: 0), clientPort: 0, server: IPAddress(ipv4: 0), serverPort: 0),
            timestamp: Timestamp(nanoseconds: 0), limits: ReassemblyLimits(), consumer: nil)
        return self.connection(connection, timestampDigits: 6)
    }

    /// An exchange record with request and response present, HTTP/2's and HTTP/3's parts included (a
    /// real record has one of them at most; the others leave their columns empty), for fixed CSV columns.
    static var exchangeTemplate: JSONValue {
        let origin = PacketOrigin(frameNumber: 0, timestamp: Timestamp(nanoseconds: 0))
        var request = HTTPMessage(kind: .request, exchangeIndex: 0, streamRange: 0..<0, method: "", target: "",
                                  version: "", firstOrigin: origin, lastOrigin: origin)
        var response = HTTPMessage(kind: .response, exchangeIndex: 0, streamRange: 0..<0, status: 0, reason: "",
                                   version: "", firstOrigin: origin, lastOrigin: origin)
        request.http2 = HTTP2StreamInfo(streamID: 0)
        response.http2 = HTTP2StreamInfo(streamID: 0)
        request.http3 = HTTP3StreamInfo(streamID: 0)
        response.http3 = HTTP3StreamInfo(streamID: 0)
        var exchange = HTTPExchange(index: 0, request: request, response: response)
        exchange.cancelledAt = origin.timestamp
        let connection = ExchangeConnection(
            transport: .tcp, id: 0, client: IPAddress(ipv4: 0), clientPort: 0, server: IPAddress(ipv4: 0), serverPort: 0,
            firstTimestamp: origin.timestamp, owner: nil, wire: ExchangeWire(), tlsSession: nil, protection: .cleartext)
        return http(exchange, id: 0, connection: connection, timestampDigits: 6)
    }

    /// The CSV columns of the `process` and `app` members (a record has one of them at most; records
    /// of captures without owners leave them empty).
    static var ownerColumns: [String] {
        JSONValue { encoder in
            encoder.object { encoder in
                ownerField(TrafficOwner(PacketOwner(kind: .process, id: 0)), to: &encoder)
                ownerField(TrafficOwner(PacketOwner(kind: .app, id: 0)), to: &encoder)
            }
        }.flattened().map(\.0)
    }
}
