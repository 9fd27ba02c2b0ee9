import Testing
@testable import WireTally

/// IPv4 endpoints written from the texts kept of recent ones (`IPv4EndpointTexts`): in any order — the
/// same one again, two alternating, several in turn, addresses differing only in their port, thousands
/// of random ones taking each other's slots — each the dotted quad and port as interpolation prints them,
/// in JSON and in CSV.
@Suite struct IPv4EndpointTextsTests {
    private static func text(_ address: UInt32, _ port: UInt16) -> String {
        "\(address >> 24).\(address >> 16 & 0xff).\(address >> 8 & 0xff).\(address & 0xff):\(port)"
    }

    private static let sequence: [(UInt32, UInt16)] = {
        let pool: [(UInt32, UInt16)] = [
            (0x0A4D_0001, 59470), (0x0A4D_0002, 80), (0x0A4D_0001, 59471), (0, 0), (0xFFFF_FFFF, 65535),
            (0x0A4D_0002, 8080), (0x7F00_0001, 1), (0x0102_0304, 10000),
        ]
        var sequence: [(UInt32, UInt16)] = []
        // the same again; two alternating; three in turn (each replaces one kept); then random picks
        for index in [0, 0, 0, 1, 0, 1, 0, 1, 2, 1, 2, 0, 3, 4, 5, 3, 4, 5, 6, 7, 6, 7, 1] { sequence.append(pool[index]) }
        var generator = SeededGenerator(state: 41)
        for _ in 0..<2000 {
            if Bool.random(using: &generator) {
                sequence.append(pool[Int.random(in: 0..<pool.count, using: &generator)])
            } else {
                sequence.append((UInt32.random(in: 0...UInt32.max, using: &generator) >> UInt32.random(in: 0...31, using: &generator),
                                 UInt16.random(in: 0...UInt16.max, using: &generator) >> UInt16.random(in: 0...15, using: &generator)))
            }
        }
        return sequence
    }()

    @Test func jsonEndpointsAreTheirText() {
        var encoder = JSONTextEncoder()
        encoder.array { encoder in
            for (address, port) in Self.sequence { encoder.endpoint(IPAddress(ipv4: address), port: port) }
        }
        #expect(encoder.buffer.text == "[" + Self.sequence.map { "\"" + Self.text($0.0, $0.1) + "\"" }.joined(separator: ",") + "]")
    }

    /// One row reused for every pair (as the CSV writer reuses it), written as a line and as cells.
    @Test func csvEndpointsAreTheirText() {
        var row = CSVRowEncoder(columns: ["client", "server"])
        func write(_ client: (UInt32, UInt16), _ server: (UInt32, UInt16), to row: inout CSVRowEncoder) {
            row.object { row in
                row.key("client")
                row.endpoint(IPAddress(ipv4: client.0), port: client.1)
                row.key("server")
                row.endpoint(IPAddress(ipv4: server.0), port: server.1)
            }
        }
        for start in stride(from: 0, to: Self.sequence.count - 1, by: 2) {
            let (client, server) = (Self.sequence[start], Self.sequence[start + 1])
            let expected = Self.text(client.0, client.1) + "," + Self.text(server.0, server.1) + "\n"
            let lines = ByteBuffer(capacity: 16)
            row.beginLine(in: lines)
            write(client, server, to: &row)
            let wroteLine = row.endLine()
            #expect(wroteLine)
            #expect(lines.text == expected)
            row.reset()
            write(client, server, to: &row)
            let cells = ByteBuffer(capacity: 16)
            row.appendRow(to: cells)
            #expect(cells.text == expected)
        }
    }
}
