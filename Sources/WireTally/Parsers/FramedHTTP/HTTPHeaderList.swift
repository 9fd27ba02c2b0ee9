import NIOHPACK

/// A decoded HTTP/2 or HTTP/3 header list split as `HTTPMessage` holds it: pseudo-header fields
/// (RFC 9113 §8.3, RFC 9114 §4.3) and the regular fields in order, with `:authority` reported as a
/// `host` field when there is none.
struct HTTPHeaderList {
    var method: String?
    var scheme: String?
    var path: String?
    var authority: String?
    var status: Int?
    /// `:status` was there but not a three-digit number, or a pseudo-header came after a regular field.
    var malformed = false
    var fields: [HTTPHeader] = []

    /// Splits `headers` (name, value) in order.
    init(_ headers: some Collection<(name: String, value: String)>) {
        fields.reserveCapacity(headers.count)
        var sawRegular = false
        for (name, value) in headers {
            guard name.utf8.first == UInt8(ascii: ":") else {
                sawRegular = true
                fields.append(HTTPHeader(name: name, value: value))
                continue
            }
            if sawRegular { malformed = true }
            switch name {
            case ":method": method = value
            case ":scheme": scheme = value
            case ":path": path = value
            case ":authority": authority = value
            case ":status":
                status = value.utf8.count == 3 ? Int(value) : nil
                if status == nil { malformed = true }
            default: break
            }
        }
    }

    /// Whether the list is a response's (interim or final) header block.
    var isResponseHead: Bool { status != nil }
    /// Whether the list is a request's header block.
    var isRequestHead: Bool { method != nil }
    /// Interim (1xx) response.
    var isInterim: Bool { (status ?? 0) >= 100 && (status ?? 0) < 200 }

    /// The regular fields, plus `host` from `:authority` when no `host` field exists (so code that
    /// reads Host works as for HTTP/1.x).
    var fieldsWithHost: [HTTPHeader] {
        guard let authority, !fields.contains(where: { $0.name.lowercased() == "host" }) else { return fields }
        return fields + [HTTPHeader(name: "host", value: authority)]
    }

    /// The list written as HTTP/1.1 text (see `HTTP2StreamInfo.headersDecodedBytes`, the same for HTTP/3).
    var http1TextBytes: Int {
        let crlf = 2, version = "HTTP/1.1".utf8.count
        var total: Int
        if let status {
            total = version + 1 + String(status).utf8.count + 1 + crlf
        } else {
            total = (method?.utf8.count ?? 0) + 1 + (path?.utf8.count ?? 0) + 1 + version + crlf
        }
        if let authority { total += "Host: ".utf8.count + authority.utf8.count + crlf }
        for field in fields where authority == nil || field.name.lowercased() != "host" {
            total += field.name.utf8.count + 2 + field.value.utf8.count + crlf
        }
        return total + crlf
    }
}

extension HTTPHeaderList {
    /// Splits an HPACK-decoded header block.
    init(_ headers: HPACKHeaders) {
        self.init(headers.lazy.map { (name: $0.name, value: $0.value) })
    }
}
