import Testing
@testable import WireTally

/// `HTTP3ConnectionParser` on the streams aioquic 1.7.2's H3Connection client and server wrote
/// (h3-streams.json, scripts/lib/h3-vectors.py): a GET with a reserved frame, a POST with a body, a
/// HEAD, a 204, a response with a 103 interim response and trailers, a 20 kB body.
@Suite struct HTTP3StreamTests {
    private func loadChunks() throws -> (chunks: [HTTP3Chunk], exchanges: [[String: Any]]) {
        let fixture = try HTTP3Fixtures.json("h3-streams.json")
        let chunks = (fixture["chunks"] as! [[String: Any]]).map {
            HTTP3Chunk(stream: UInt64($0["stream"] as! Int), fromClient: $0["from_client"] as! Bool,
                       bytes: HTTP3Fixtures.hex($0["hex"] as! String), fin: $0["fin"] as! Bool)
        }
        return (chunks, fixture["exchanges"] as! [[String: Any]])
    }

    private func run(_ chunks: [HTTP3Chunk], split: @escaping (Int) -> [Int] = { [$0] }) -> (HTTP3Recorder, HTTP3ConnectionParser) {
        let recorder = HTTP3Recorder()
        var limits = HTTPLimits()
        limits.retainedBodyBytes = 64
        let parser = HTTP3ConnectionParser(limits: limits, delegate: recorder)
        parser.feed(chunks, split: split)
        parser.finish()
        return (recorder, parser)
    }

    /// Method, path, status and the bytes breakdown of every message match what aioquic sent (the
    /// fixture's frame walk): headers = HEADERS payloads, body = DATA, framing = varints + the
    /// reserved frame, total = every byte of the stream; interim and trailers where sent.
    @Test func aioquicExchanges() throws {
        let (chunks, exchanges) = try loadChunks()
        let (recorder, parser) = run(chunks)
        #expect(recorder.messages.count == 2 * exchanges.count)
        for (index, exchange) in exchanges.enumerated() {
            let stream = UInt64(exchange["stream"] as! Int)
            #expect(parser.exchangeIndex(ofStream: stream) == index)
            guard let request = recorder.message(stream, .up), let response = recorder.message(stream, .down) else {
                Issue.record("stream \(stream): messages missing")
                continue
            }
            #expect(request.method == exchange["method"] as? String)
            #expect(request.target == exchange["path"] as? String)
            #expect(request.header("host") == "www.wt.test")
            #expect(request.http3?.scheme == "https")
            #expect(response.status == exchange["status"] as? Int)
            #expect(request.version == "HTTP/3" && request.exchangeIndex == index && response.exchangeIndex == index)
            #expect(request.flags.isEmpty && response.flags.isEmpty, "stream \(stream): \(request.flags) \(response.flags)")
            for (message, key) in [(request, "request"), (response, "response")] {
                let truth = exchange[key] as! [String: Int]
                let interim = message.interimBytes
                #expect(message.bytes.headers + message.bytes.framing + interim == truth["headers"]! + truth["framing"]!, "\(stream) \(key)")
                #expect(message.bytes.body == truth["body"], "\(stream) \(key)")
                #expect(message.bytes.total + interim == truth["total"], "\(stream) \(key)")
                #expect(message.bytes.control == 0 && message.bytes.startLine == 0)
                #expect(message.http3?.frames == truth["frames"] && message.http3?.headerBlocks == truth["header_blocks"])
                #expect(message.http3?.unknownFrames == truth["unknown_frames"])
                #expect(message.streamRange == 0..<Int64(truth["total"]!))
                #expect((message.http3?.headersDecodedBytes ?? 0) > 0)
            }
            if exchange["interim"] as? Int == 103 {
                #expect(response.interimCount == 1 && response.interimBytes > 0)
                #expect(response.trailers == [HTTPHeader(name: "x-checksum", value: "abc123")])
            }
        }
        // The POST's body was retained (no content coding).
        #expect(recorder.message(4, .up)?.retainedBody == Array((0..<64).map { UInt8($0) }))
        let info = parser.info
        #expect(info.requestStreams == exchanges.count)
        #expect(info.settings.up.qpackMaxTableCapacity == 4096 && info.settings.down.qpackBlockedStreams == 16)
        #expect(info.maxPushIDFrames.up == 1 && info.controlStreamErrors == DirectionPair(0, 0))
        #expect(info.qpackInserts.up > 0 && info.qpackInserts.down > 0)
        #expect(info.qpackSectionErrors == DirectionPair(0, 0))
        #expect(info.qpackSectionAcknowledgments.up + info.qpackSectionAcknowledgments.down > 0)
        let sent = { (client: Bool, id: UInt64) in chunks.filter { $0.fromClient == client && $0.stream == id }.reduce(0) { $0 + $1.bytes.count } }
        #expect(info.unidirectionalBytes.up.control == Int64(sent(true, 2)))
        #expect(info.unidirectionalBytes.up.qpackEncoder == Int64(sent(true, 6)))
        #expect(info.unidirectionalBytes.down.qpackDecoder == Int64(sent(false, 11)))
    }

    /// The result does not depend on how the bytes are split: 1-byte pieces and random splits give
    /// what whole chunks give (messages, byte counts, flags, connection info).
    @Test(arguments: [0, 1, 2, 3]) func splitIndependence(seed: Int) throws {
        let (chunks, _) = try loadChunks()
        let (whole, wholeParser) = run(chunks)
        let (split, splitParser) = run(chunks, split: seed == 0 ? HTTP3Splits.bytes : HTTP3Splits.random(seed: UInt64(seed)))
        #expect(split.digest == whole.digest)
        #expect(splitParser.info == wholeParser.info)
    }

    /// Request HEADERS delivered before the client's encoder-stream inserts they refer to wait, and
    /// are decoded once the encoder stream catches up (aioquic's chunks reordered: every request
    /// stream first, then the unidirectional streams).
    @Test func headersBeforeTheirInserts() throws {
        let (chunks, exchanges) = try loadChunks()
        let reordered = chunks.filter { $0.stream % 4 == 0 } + chunks.filter { $0.stream % 4 != 0 }
        let (recorder, parser) = run(reordered)
        #expect(parser.info.qpackBlockedSections.up + parser.info.qpackBlockedSections.down > 0)
        for exchange in exchanges {
            let stream = UInt64(exchange["stream"] as! Int)
            #expect(recorder.message(stream, .up)?.target == exchange["path"] as? String)
            #expect(recorder.message(stream, .down)?.status == exchange["status"] as? Int)
            #expect(recorder.message(stream, .down)?.http3?.qpackError == false)
        }
        #expect(recorder.messages.contains { $0.message.http3?.qpackBlocked == true })
    }
}
