import Foundation

/// Per-connection, per-direction sums computed from a `NAME.frames.tsv` that tshark wrote when the
/// capture was recorded (`scripts/record-captures`): the independent truth for connection counters.
struct TsharkConversation: Equatable, CustomStringConvertible {
    /// Sender endpoint of each direction: `ip:port` / `[ip]:port`.
    var endpointA: String
    var endpointB: String
    var firstTime: Double
    /// Frames, frame bytes, IP bytes and TCP payload bytes sent by A, then by B.
    var fromA: [Int] = [0, 0, 0, 0]
    var fromB: [Int] = [0, 0, 0, 0]

    var description: String { "\(endpointA)→\(endpointB) \(fromA) / \(fromB)" }

    /// Sums `frames.tsv` by `tcp.stream`, in order of first frame.
    static func load(_ path: String) throws -> [TsharkConversation] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: true).map {
            $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        }
        let header = lines.removeFirst()
        func column(_ name: String) -> Int { header.firstIndex(of: name)! }
        let stream = column("tcp.stream"), frameLength = column("frame.len"), ipLength = column("ip.len")
        let ipv6PayloadLength = column("ipv6.plen"), tcpLength = column("tcp.len"), time = column("frame.time_epoch")
        let source4 = column("ip.src"), source6 = column("ipv6.src"), sourcePort = column("tcp.srcport")
        let destination4 = column("ip.dst"), destination6 = column("ipv6.dst"), destinationPort = column("tcp.dstport")
        var byStream: [Int: TsharkConversation] = [:]
        for fields in lines {
            guard let id = Int(fields[stream]) else { continue }
            func endpoint(_ v4: Int, _ v6: Int, _ port: Int) -> String {
                fields[v4].isEmpty ? "[\(fields[v6])]:\(fields[port])" : "\(fields[v4]):\(fields[port])"
            }
            let source = endpoint(source4, source6, sourcePort)
            let destination = endpoint(destination4, destination6, destinationPort)
            let ip = Int(fields[ipLength]) ?? (Int(fields[ipv6PayloadLength]).map { $0 + 40 } ?? 0)
            let counts = [1, Int(fields[frameLength]) ?? 0, ip, Int(fields[tcpLength]) ?? 0]
            var conversation = byStream[id] ?? TsharkConversation(
                endpointA: source, endpointB: destination, firstTime: Double(fields[time]) ?? 0)
            if source == conversation.endpointA {
                conversation.fromA = zip(conversation.fromA, counts).map(+)
            } else {
                conversation.fromB = zip(conversation.fromB, counts).map(+)
            }
            byStream[id] = conversation
        }
        return byStream.values.sorted { $0.firstTime < $1.firstTime }
    }
}

extension TsharkConversation {
    /// TCP payload bytes a client sent after the server of the same `tcp.stream` had reset it, summed
    /// over the capture's streams, from `NAME.frames.tsv`: data that is on the wire but that no receiver
    /// reads (a client still uploading after nginx's `return 444` reset the connection). The other way
    /// round — a server's data still arriving after the client's reset — is the response of a cancelled
    /// request, which wiretally reads (`CancelTests`).
    static func clientPayloadAfterServerReset(_ path: String) throws -> Int {
        var lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map {
            $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        }
        let header = lines.removeFirst()
        func column(_ name: String) -> Int { header.firstIndex(of: name)! }
        let stream = column("tcp.stream"), sourcePort = column("tcp.srcport"), tcpLength = column("tcp.len")
        let flags = column("tcp.flags")
        var resetBy: [Int: String] = [:]  // stream → source port of its first RST
        var clientPort: [Int: String] = [:]  // stream → source port of its SYN
        var total = 0
        for fields in lines {
            guard let id = Int(fields[stream]) else { continue }
            let bits = Int(fields[flags].dropFirst(2), radix: 16) ?? 0
            if bits & 0x12 == 0x02 { clientPort[id] = fields[sourcePort] }
            if let resetter = resetBy[id], resetter != fields[sourcePort], fields[sourcePort] == clientPort[id] {
                total += Int(fields[tcpLength]) ?? 0
            }
            if bits & 0x04 != 0 && resetBy[id] == nil { resetBy[id] = fields[sourcePort] }
        }
        return total
    }
}
