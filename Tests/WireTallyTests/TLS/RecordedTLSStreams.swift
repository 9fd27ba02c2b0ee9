import Foundation
import Testing
@testable import WireTally

/// The TLS connections of a recorded capture with every record's bytes, for opening them with the key
/// log: each direction's TCP payload as tshark reassembled it (`-z follow,tcp,raw`), cut into records
/// at their 5-byte headers, and the application data tshark itself decrypted with the key log
/// (`-z follow,tls,raw`). The record lengths must be those of `NAME.tls-records.tsv` (checked by the
/// tests), so the bytes are the records tshark listed at recording time.
struct RecordedTLSStreams {
    /// One TLS record: the content type and version of its header, and its body.
    struct Record {
        var contentType: UInt8
        var header: [UInt8]
        var body: [UInt8]
    }

    /// One TLS connection (a tshark TCP stream with a ClientHello and a ServerHello).
    struct Connection {
        var stream: Int
        var clientPort: Int
        var serverPort: Int
        var clientRandom: [UInt8]
        var serverRandom: [UInt8]
        var suite: TLSCipherSuite
        /// The ServerHello selected TLS 1.3 (supported_versions 0x0304).
        var isTLS13: Bool
        /// The ServerHello's extension types (22: encrypt_then_mac, RFC 7366; it answers the client's).
        var serverExtensions: [Int]
        /// Records sent by the client (`true`) and by the server (`false`), in stream order.
        var records: [Bool: [Record]]
        /// The application data tshark decrypted, per direction, concatenated.
        var tsharkApplicationData: [Bool: [UInt8]]

        /// Encrypt-then-MAC was negotiated (TLS 1.2; the server only echoes the extension for CBC suites).
        var encryptThenMAC: Bool { !isTLS13 && serverExtensions.contains(22) }
    }

    var connections: [Connection]

    /// tshark options the truth files of `name` were made with (`scripts/record-captures`): the TLS
    /// views of the captures through the lossy path (tls-lossy, h2-lossy) reassemble out-of-order
    /// segments.
    static func tsharkOptions(_ name: String) -> [String] {
        ["tls-lossy", "h2-lossy"].contains(name) ? ["-o", "tcp.reassemble_out_of_order:TRUE"] : []
    }

    /// Reads capture `name` (`captures/NAME.pcap` with `NAME.keys`) through tshark.
    static func load(_ name: String) throws -> RecordedTLSStreams {
        let capture = TestPaths.capture(name + ".pcap"), options = tsharkOptions(name)
        let hellos = try Tshark.fields(capture, filter: "tls.handshake.type == 1",
                                       ["tcp.stream", "tls.handshake.random", "tcp.srcport", "tcp.dstport"], options: options)
        let servers = try Tshark.fields(capture, filter: "tls.handshake.type == 2",
                                        ["tcp.stream", "tls.handshake.random", "tls.handshake.ciphersuite",
                                         "tls.handshake.extensions.supported_version", "tls.handshake.extension.type"], options: options)
        var connections: [Connection] = []
        for server in servers where !connections.contains(where: { String($0.stream) == server[0] }) {
            let hello = try #require(hellos.first { $0[0] == server[0] }, "\(name) stream \(server[0]): ClientHello")
            let code = try #require(UInt16(server[2].dropFirst(2), radix: 16), "\(name) stream \(server[0]): suite \(server[2])")
            connections.append(Connection(
                stream: Int(server[0])!, clientPort: Int(hello[2])!, serverPort: Int(hello[3])!,
                clientRandom: try Tshark.bytes(hello[1]), serverRandom: try Tshark.bytes(server[1]),
                suite: TLSCipherSuite(code: code), isTLS13: server[3].contains("0x0304"),
                serverExtensions: server[4].split(separator: ",").compactMap { Int($0) }, records: [:], tsharkApplicationData: [:]))
        }
        guard !connections.isEmpty else { return RecordedTLSStreams(connections: []) }
        var arguments = ["-q", "-o", "tls.keylog_file:" + TestPaths.capture(name + ".keys")] + options + ["-r", capture]
        for connection in connections {
            arguments += ["-z", "follow,tcp,raw,\(connection.stream)", "-z", "follow,tls,raw,\(connection.stream)"]
        }
        for block in try followBlocks(try Tshark.output(arguments)) {
            let index = try #require(connections.firstIndex { $0.stream == block.stream }, "\(name): follow of stream \(block.stream)")
            let connection = connections[index]
            // node 0 is the side that sent first (the client: its ClientHello, its request)
            let clientIsNode0 = block.node0Port == connection.clientPort
            try #require(clientIsNode0 || block.node0Port == connection.serverPort,
                         "\(name) stream \(block.stream): follow \(block.kind)'s node 0 is port \(block.node0Port)")
            for fromClient in [true, false] {
                let bytes = clientIsNode0 == fromClient ? block.node0 : block.node1
                if block.kind == "tcp" {
                    connections[index].records[fromClient] = try records(in: bytes, "\(name) stream \(block.stream)")
                } else {
                    connections[index].tsharkApplicationData[fromClient] = bytes
                }
            }
        }
        return RecordedTLSStreams(connections: connections)
    }

    /// One `-z follow,KIND,raw,N` block of tshark's output: the bytes each node sent, in order.
    struct FollowBlock {
        var kind: String
        var stream: Int
        var node0Port: Int
        var node0: [UInt8] = []
        var node1: [UInt8] = []
    }

    /// Splits tshark's follow output (`Follow: tcp,raw` / `Filter: tcp.stream eq N` / `Node 0: a:p` /
    /// hex lines, node 1's indented by a tab / a line of `=`).
    static func followBlocks(_ output: String) throws -> [FollowBlock] {
        var blocks: [FollowBlock] = [], current: FollowBlock?, kind = "", stream = -1
        for line in output.split(separator: "\n", omittingEmptySubsequences: true) {
            if line.hasPrefix("Follow: ") {
                kind = String(line.dropFirst(8).prefix { $0 != "," })
            } else if line.hasPrefix("Filter: tcp.stream eq ") {
                stream = Int(line.dropFirst(22)) ?? -1
            } else if line.hasPrefix("Node 0: ") {
                current = FollowBlock(kind: kind, stream: stream, node0Port: Int(line.split(separator: ":").last ?? "") ?? -1)
            } else if line.hasPrefix("Node 1: ") {
                continue
            } else if line.hasPrefix("====") {
                if let block = current { blocks.append(block) }
                current = nil
            } else if current != nil {
                let bytes = try Tshark.bytes(line.trimmingCharacters(in: .whitespaces))
                if line.hasPrefix("\t") { current!.node1 += bytes } else { current!.node0 += bytes }
            }
        }
        return blocks
    }

    /// The records of one direction's stream bytes; the stream must end at a record boundary.
    static func records(in bytes: [UInt8], _ what: String) throws -> [Record] {
        var records: [Record] = [], offset = 0
        while offset < bytes.count {
            try #require(offset + 5 <= bytes.count, "\(what): a record header cut at offset \(offset)")
            let length = Int(bytes[offset + 3]) << 8 | Int(bytes[offset + 4])
            try #require(offset + 5 + length <= bytes.count, "\(what): a record cut at offset \(offset)")
            records.append(Record(contentType: bytes[offset], header: Array(bytes[offset ..< offset + 5]),
                                  body: Array(bytes[(offset + 5) ..< (offset + 5 + length)])))
            offset += 5 + length
        }
        return records
    }
}
