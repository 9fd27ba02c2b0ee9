import Testing
@testable import WireTally

/// Byte conservation, checked on every capture the tests read.
enum Conservation {
    /// Per connection and direction: categories add up to totals, exchanges + unattributed == totals;
    /// the same for QUIC connections; for the capture: every packet read is in exactly one outcome, and
    /// the TCP connection, QUIC connection and flow records add up to the summary's TCP, QUIC and
    /// other-IP outcomes, at every level.
    static func check(_ writer: CollectingWriter, _ result: AnalysisRun.Result, sourceLocation: SourceLocation = #_sourceLocation) {
        let levels = ["packets", "ip_bytes", "frame_bytes", "payload_bytes"]
        var tcpSum = [String: Int]()
        var exchangesByConnection: [Int: [JSONValue]] = [:]
        for exchange in writer.exchanges { exchangesByConnection[exchange.int("conn.id") ?? -1, default: []].append(exchange) }
        var dnsByConnection: [Int: [JSONValue]] = [:]
        for record in writer.dns { if let id = record.int("conn.id") { dnsByConnection[id, default: []].append(record) } }
        for connection in writer.connections {
            let exchanges = exchangesByConnection[connection.int("id") ?? -1] ?? []
            let dnsRecords = dnsByConnection[connection.int("id") ?? -1] ?? []
            #expect(connection.int("exchanges") == exchanges.count, sourceLocation: sourceLocation)
            for level in levels {
                var bothDirections = (owned: 0, total: 0)
                for direction in ["up", "down"] {
                    let total = connection.int("\(direction).\(level)") ?? -1
                    let byCategory = PacketCategory.allCases.reduce(0) {
                        $0 + (connection.int("\(direction).categories.\($1.name).\(level)") ?? 0)
                    }
                    #expect(byCategory == total, "connection \(connection.int("id") ?? 0) \(direction) \(level)", sourceLocation: sourceLocation)
                    let owned = exchanges.reduce(connection.int("unattributed.\(direction).\(level)") ?? 0) {
                        $0 + ($1.int("wire.\(direction).\(level)") ?? 0)
                    }
                    if dnsRecords.isEmpty {
                        #expect(owned == total, "connection \(connection.int("id") ?? 0) \(direction) \(level): exchanges + unattributed", sourceLocation: sourceLocation)
                    }
                    bothDirections.owned += owned
                    bothDirections.total += total
                    tcpSum[level, default: 0] += total
                }
                // DNS over TCP: each transaction's record owns its share of both directions together.
                let dnsOwned = dnsRecords.reduce(0) { $0 + ($1.int("wire.\(level)") ?? 0) }
                #expect(bothDirections.owned + dnsOwned == bothDirections.total, "connection \(connection.int("id") ?? 0) \(level): owners", sourceLocation: sourceLocation)
            }
        }
        var quicSum = [String: Int]()
        for connection in writer.quicConnections {
            let exchanges = exchangesByConnection[connection.int("id") ?? -1] ?? []
            #expect(connection.int("exchanges") == exchanges.count, sourceLocation: sourceLocation)
            for level in levels {
                for direction in ["up", "down"] {
                    let total = connection.int("\(direction).\(level)") ?? -1
                    let byCategory = PacketCategory.allCases.reduce(0) {
                        $0 + (connection.int("\(direction).categories.\($1.name).\(level)") ?? 0)
                    }
                    #expect(byCategory == total, "quic connection \(connection.int("id") ?? 0) \(direction) \(level)", sourceLocation: sourceLocation)
                    let owned = exchanges.reduce(connection.int("unattributed.\(direction).\(level)") ?? 0) {
                        $0 + ($1.int("wire.\(direction).\(level)") ?? 0)
                    }
                    #expect(owned == total, "quic connection \(connection.int("id") ?? 0) \(direction) \(level): exchanges + unattributed", sourceLocation: sourceLocation)
                    quicSum[level, default: 0] += total
                }
            }
        }
        var flowSum = [String: Int]()
        for flow in writer.flows {
            for direction in ["up", "down"] {
                for level in levels { flowSum[level, default: 0] += flow.int("\(direction).\(level)") ?? 0 }
            }
        }
        let summary = try! #require(writer.summary, sourceLocation: sourceLocation)
        for level in levels {
            #expect(summary.int("outcomes.tcp.\(level)") == tcpSum[level, default: 0], "tcp \(level)", sourceLocation: sourceLocation)
            #expect(summary.int("outcomes.other_ip.\(level)") == flowSum[level, default: 0], "other_ip \(level)", sourceLocation: sourceLocation)
            #expect(summary.int("outcomes.quic.\(level)") == quicSum[level, default: 0], "quic \(level)", sourceLocation: sourceLocation)
        }
        #expect(result.summary.isConserved, sourceLocation: sourceLocation)
        #expect(summary["conserved"] == .bool(true), sourceLocation: sourceLocation)
        #expect(result.summary.accounted.packets == result.summary.read.packets, sourceLocation: sourceLocation)
        #expect(result.summary.accounted.frameBytes == result.summary.read.frameBytes, sourceLocation: sourceLocation)
    }
}
