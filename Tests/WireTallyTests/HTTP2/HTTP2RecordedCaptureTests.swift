import Testing

@testable import WireTally

/// The recorded curl → nginx HTTP/2 over TLS 1.3 capture (`captures/tls13-h2`): the plaintext tshark
/// decrypts with the key log (`-z follow,tls,raw`, through `RecordedTLSStreams`), fed to the parser,
/// against tshark's frames at recording time (`tls13-h2.http2.tsv`).
@Suite struct HTTP2RecordedCaptureTests {
    @Test(.requires(.tshark)) func tls13H2MatchesTsharksFrames() throws {
        let streams = try RecordedTLSStreams.load("tls13-h2")
        let table = try TruthTable.load("tls13-h2", "http2.tsv")
        let rows = table.rows.map { row in HTTP2TsharkTruth.fields.map { row[$0] } }
        try #require(streams.connections.count == 2)
        var compared = 0
        for connection in streams.connections {
            let truth = try HTTP2TsharkTruth(rows: rows, stream: connection.stream, clientPort: connection.clientPort)
            try #require(!truth.frames.isEmpty)
            let client = try #require(connection.tsharkApplicationData[true]), server = try #require(connection.tsharkApplicationData[false])
            for seed in UInt64(1)...3 {
                let h = try truth.check(client: client, server: server, seed: seed)
                compared += seed == 1 ? h.recorder.requests.count : 0
            }
        }
        // 4 transfers on the first connection, 3 multiplexed on the second (captures/README.md).
        #expect(compared == 7)
    }
}
