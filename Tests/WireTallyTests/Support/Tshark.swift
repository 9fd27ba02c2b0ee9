import Foundation
@testable import WireTally

/// tshark, the independent decoder most comparisons are made against, run by the tests that declare
/// `.requires(.tshark)`. tshark failing (not there although required, or exiting non-zero) throws:
/// the test fails rather than passing without its comparison.
enum Tshark {
    /// tshark's standard output for `arguments`, run with `-n` (no name resolution).
    static func output(_ arguments: [String]) throws -> String {
        String(decoding: try ExternalProgram.output("tshark", ["-n"] + arguments), as: UTF8.self)
    }

    /// `tshark -r path -T fields` for the frames the display `filter` keeps (every frame without one):
    /// one row per frame, one value per field in `fields` (a field with several values has them
    /// joined by ","). `options` come first (`-o name:value` preferences).
    static func fields(_ path: String, filter: String? = nil, _ fields: [String], options: [String] = []) throws -> [[String]] {
        let arguments = options + ["-r", path] + (filter.map { ["-Y", $0] } ?? [])
            + ["-T", "fields", "-E", "separator=|"] + fields.flatMap { ["-e", $0] }
        var lines = try output(arguments).split(separator: "\n", omittingEmptySubsequences: false)
        if lines.last?.isEmpty == true { lines.removeLast() }
        return lines.map { $0.split(separator: "|", omittingEmptySubsequences: false).map(String.init) }
    }

    /// The bytes of a bytes field's value (`tls.handshake.random`, `tls.app_data`: hex, with or without
    /// `:` between bytes); throws when it is not hex.
    static func bytes(_ value: some StringProtocol) throws -> [UInt8] {
        guard let bytes = TLSKeyLog.hexBytes(value.utf8.filter { $0 != UInt8(ascii: ":") }) else {
            throw ExternalProgram.Failure(message: "tshark bytes field is not hex: \(value.prefix(40))")
        }
        return bytes
    }
}

extension Tshark {
    /// The plaintext bytes of TCP stream `stream` per direction as `tshark -z follow,tls,raw,N` shows
    /// them with `keyLog` (`RecordedTLSStreams.followBlocks` reads the output; `clientPort` tells which
    /// node is the client; `options` come first: `RecordedTLSStreams.tsharkOptions`).
    static func followTLS(_ path: String, stream: Int, keyLog: String, clientPort: Int, options: [String] = []) throws -> (client: Int, server: Int) {
        let text = try output(options + ["-o", "tls.keylog_file:\(keyLog)", "-r", path, "-q", "-z", "follow,tls,raw,\(stream)"])
        guard let block = try RecordedTLSStreams.followBlocks(text).first(where: { $0.kind == "tls" }) else {
            throw ExternalProgram.Failure(message: "tshark follow,tls: no block for stream \(stream)")
        }
        return block.node0Port == clientPort ? (block.node0.count, block.node1.count) : (block.node1.count, block.node0.count)
    }
}
