import Foundation

/// One line of the python test server's log (`NAME.pyhttp10.jsonl` for port 8000, `NAME.pyhttp11.jsonl`
/// for 8001, `scripts/lib/py-http-server.py`): the bytes it read and wrote for one request, counted
/// on its socket.
struct PythonServerRequest {
    var serverPort: Int
    var clientPort: Int
    /// 1-based position of the request on its connection.
    var connectionRequest: Int
    var method: String
    var path: String
    /// nil when the server answered nothing (`/reset`).
    var status: Int?
    /// Request line + headers + body as read from the socket.
    var requestBytes: Int
    /// Status line + headers + body as written to the socket.
    var responseBytes: Int
    /// The handler reset the connection on purpose (`/reset`, `/reset-mid`).
    var aborted: Bool

    /// Every line of both server logs of capture `name` (either may be absent).
    static func load(_ name: String) throws -> [PythonServerRequest] {
        try ["pyhttp10.jsonl", "pyhttp11.jsonl"].flatMap { kind -> [PythonServerRequest] in
            let path = TestPaths.capture("\(name).\(kind)")
            guard FileManager.default.fileExists(atPath: path) else { return [] }
            return try JSONLines.load(path).map { line in
                PythonServerRequest(
                    serverPort: Int((line["server"] as? String)?.split(separator: ":").last ?? "") ?? -1,
                    clientPort: line["client_port"] as? Int ?? -1, connectionRequest: line["conn_request"] as? Int ?? -1,
                    method: line["method"] as? String ?? "", path: line["path"] as? String ?? "",
                    status: line["status"] as? Int, requestBytes: line["request_bytes"] as? Int ?? -1,
                    responseBytes: line["response_bytes"] as? Int ?? -1, aborted: line["aborted"] as? Bool ?? false)
            }
        }
    }
}

/// `NAME.client.jsonl` of the python clients (`scripts/lib/clients.py`, `scripts/lib/runaway-client.py`):
/// either one line per raw-socket connection or one line per request made with the standard library.
enum PythonClientLog {
    /// A raw-socket connection: what the client wrote and read, counted on its socket.
    struct Connection {
        var name: String
        var localPort: Int
        var remotePort: Int
        /// Request lines it wrote (`GET /x HTTP/1.1` or `GET /x`), in order.
        var requests: [String]
        var bytesSent: Int
        var bytesReceived: Int
        /// How it ended: `eof` (server closed after the last response), `reset`, `limit+client-rst` …
        var ended: String
        /// Status lines it read, in order.
        var responses: [String]
        var time: Double
    }

    /// A request made through urllib or http.client (`clients.py stdlib`) or by a runaway poller.
    struct Request {
        var serverPort: Int
        var method: String
        var path: String
        var status: Int
        /// Decoded response body bytes the client read.
        var bodyBytes: Int
        /// The client's port when it logged one (http.client keep-alive, pollers).
        var localPort: Int?
        var time: Double
    }

    /// The lines of `captures/NAME.client.jsonl`, by kind; `auxiliary` counts lines that only add detail
    /// to a connection line (`write_sizes`).
    static func load(_ name: String) throws -> (connections: [Connection], requests: [Request], auxiliary: Int) {
        var connections: [Connection] = [], requests: [Request] = [], auxiliary = 0
        for line in try JSONLines.load(TestPaths.capture(name + ".client.jsonl")) {
            let time = line["time"] as? Double ?? 0
            if let conn = line["conn"] as? String {
                guard let localPort = line["local_port"] as? Int else { auxiliary += 1; continue }
                connections.append(Connection(
                    name: conn, localPort: localPort, remotePort: line["remote_port"] as? Int ?? -1,
                    requests: line["requests"] as? [String] ?? [], bytesSent: line["bytes_sent"] as? Int ?? -1,
                    bytesReceived: line["bytes_received"] as? Int ?? -1, ended: line["ended"] as? String ?? "",
                    responses: line["responses"] as? [String] ?? [], time: time))
            } else if let url = (line["url"] as? String).flatMap(URL.init(string:)) {
                requests.append(Request(
                    serverPort: url.port ?? 80, method: line["method"] as? String ?? "GET", path: url.path,
                    status: line["status"] as? Int ?? -1, bodyBytes: line["body_bytes"] as? Int ?? -1,
                    localPort: line["local_port"] as? Int, time: time))
            } else {
                // runaway pollers: nginx on port 80, GET, with their local port.
                requests.append(Request(
                    serverPort: 80, method: "GET", path: line["path"] as? String ?? "", status: line["status"] as? Int ?? -1,
                    bodyBytes: line["body_bytes"] as? Int ?? -1, localPort: line["local_port"] as? Int, time: time))
            }
        }
        return (connections, requests, auxiliary)
    }
}
