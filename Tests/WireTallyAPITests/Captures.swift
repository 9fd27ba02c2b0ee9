import Foundation

/// The repository's recorded captures and their truth files (see captures/README.md).
enum Captures {
    static let folder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("captures")

    static func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    /// One line of a capture's nginx access log (`NAME.nginx.jsonl`): what the server itself counted.
    struct NginxEntry: Decodable {
        var remote_port: Int
        var connection_requests: Int
        var request_method: String
        var request_uri: String
        var status: Int
        var request_length: Int
        var bytes_sent: Int
        var body_bytes_sent: Int
        var msec: Double
        var http_host: String
        var scheme: String
    }

    static func nginxLog(_ name: String) throws -> [NginxEntry] {
        let text = try String(contentsOfFile: path(name + ".nginx.jsonl"), encoding: .utf8)
        return try text.split(separator: "\n").map { try JSONDecoder().decode(NginxEntry.self, from: Data($0.utf8)) }
    }
}
