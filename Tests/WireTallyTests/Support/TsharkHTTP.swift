import Foundation

/// tshark's HTTP/1.x view of a recorded capture (`NAME.http.tsv`, `tshark -Y http` with reassembly;
/// decrypted with the key log for TLS captures): per TCP stream, the requests and responses it parsed,
/// in order.
struct TsharkHTTP {
    struct Request {
        var method: String
        var uri: String
        /// `Content-Length` when the frame held a single request that had one.
        var contentLength: Int?
        var chunked: Bool
    }

    struct Response {
        var status: Int
        /// `Content-Length`, `Content-Encoding`, chunked: only when the frame held a single response
        /// (tshark joins the fields of several messages without marking which one had none).
        var contentLength: Int?
        var contentEncoding: String?
        var chunked: Bool?
    }

    struct Stream {
        var id: Int
        var clientPort: Int
        var serverPort: Int
        var requests: [Request] = []
        var responses: [Response] = []
    }

    /// Streams in tshark's order (the order of their first HTTP frame's stream number).
    var streams: [Stream]

    static func load(_ name: String) throws -> TsharkHTTP {
        var streams: [Int: Stream] = [:]
        for row in try TruthTable.load(name, "http.tsv").rows {
            let id = row.int("tcp.stream")!
            let methods = row.list("http.request.method"), codes = row.list("http.response.code")
            let isRequest = !methods.isEmpty
            var stream = streams[id] ?? Stream(
                id: id, clientPort: row.int(isRequest ? "tcp.srcport" : "tcp.dstport")!,
                serverPort: row.int(isRequest ? "tcp.dstport" : "tcp.srcport")!)
            let single = methods.count + codes.count == 1
            let chunked = row["http.transfer_encoding"].contains("chunked")
            for (method, uri) in zip(methods, row.list("http.request.uri")) {
                stream.requests.append(Request(method: method, uri: uri,
                                               contentLength: single ? row.int("http.content_length") : nil, chunked: chunked))
            }
            for code in codes {
                stream.responses.append(Response(
                    status: Int(code)!, contentLength: single ? row.int("http.content_length") : nil,
                    contentEncoding: single ? row["http.content_encoding"] : nil, chunked: single ? chunked : nil))
            }
            streams[id] = stream
        }
        return TsharkHTTP(streams: streams.values.sorted { $0.id < $1.id })
    }
}
