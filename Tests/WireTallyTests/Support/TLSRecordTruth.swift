import Foundation

/// The TLS records of one recorded capture as tshark saw them, from the truth files beside it:
/// `NAME.tls-records.tsv` (every record's frame, stream, ports, outer content type and length,
/// read **without** keys), `NAME.tls-decrypted.tsv` (handshake message types per frame, read **with**
/// the key log, so TLS 1.3's NewSessionTickets are visible) and `NAME.http.tsv` (decrypted HTTP/1.1:
/// the frame that completes each request). Nothing here comes from wiretally.
struct TLSRecordTruth {
    /// One TLS record, listed by tshark in the frame that completes it.
    struct Record: Equatable {
        var frame: Int
        /// When the frame completing the record was captured (`frame.time_epoch`).
        var time: Double
        var stream: Int
        var sourcePort: Int
        var destinationPort: Int
        /// The record's content type in clear (20 CCS, 21 alert, 22 handshake, 23 application data),
        /// or nil for a TLS 1.3 record whose type tshark reports only as opaque (always 23 on the wire).
        var clearContentType: Int?
        /// `tls.record.length`: the bytes after the 5-byte header.
        var length: Int

        /// The content type written in the record header.
        var wireContentType: Int { clearContentType ?? 23 }
        /// Bytes on the TCP stream: header and body.
        var streamBytes: Int { 5 + length }
    }

    /// A TLS 1.3 record's protection with TLS_AES_256_GCM_SHA384 (the suite of every recording): the
    /// 16-byte AEAD tag and the 1-byte inner content type (RFC 8446 §5.2).
    static let tls13Overhead = 16 + 1

    var records: [Record]
    /// Frames whose decrypted handshake messages are all NewSessionTicket (type 4), with the number
    /// of tickets in each.
    var ticketFrames: [Int: Int]
    /// Frames whose decrypted handshake messages are all TLS 1.3 KeyUpdates (type 24), with the number
    /// of KeyUpdates in each (tls-ciphers: openssl s_client's `K`/`k` and nginx's answers).
    var keyUpdateFrames: [Int: Int]
    /// Per stream, the frames that complete an HTTP/1.x request, in order (decrypted `http.tsv`).
    var requestFrames: [Int: [Int]]
    /// Per stream, the frame of the client's Finished (its last handshake message but for TLS 1.3
    /// KeyUpdates), decrypted view.
    var clientFinishedFrames: [Int: Int]

    /// The truth of capture `name` when it was recorded with TLS record files, else nil (cleartext).
    static func loadIfRecorded(_ name: String) throws -> TLSRecordTruth? {
        FileManager.default.fileExists(atPath: TestPaths.capture(name + ".tls-records.tsv")) ? try load(name) : nil
    }

    /// Reads the three truth files of capture `name`.
    static func load(_ name: String) throws -> TLSRecordTruth {
        var records: [Record] = []
        for row in try TruthTable.load(name, "tls-records.tsv").rows {
            let types = row.list("tls.record.content_type").map { Int($0)! }
            let lengths = row.list("tls.record.length").map { Int($0)! }
            // tshark lists the cleartext types only; within a frame, cleartext records come first
            // (ServerHello and CCS before the encrypted flight; TLS 1.2 has no opaque records).
            guard types.count <= lengths.count else { throw Missing(what: "frame \(row["frame.number"]): more types than records") }
            for (index, length) in lengths.enumerated() {
                records.append(Record(
                    frame: row.int("frame.number")!, time: Double(row["frame.time_epoch"])!, stream: row.int("tcp.stream")!,
                    sourcePort: row.int("tcp.srcport")!, destinationPort: row.int("tcp.dstport")!,
                    clearContentType: index < types.count ? types[index] : nil, length: length))
            }
        }
        var ticketFrames: [Int: Int] = [:], keyUpdateFrames: [Int: Int] = [:]
        let decrypted = try TruthTable.load(name, "tls-decrypted.tsv").rows
        var clientPorts: [Int: Int] = [:]  // stream → the port that sent the ClientHello
        for row in decrypted where row.list("tls.handshake.type").contains("1") {
            clientPorts[row.int("tcp.stream")!] = row.int("tcp.srcport")!
        }
        var clientFinishedFrames: [Int: Int] = [:]
        for row in decrypted {
            let types = row.list("tls.handshake.type"), stream = row.int("tcp.stream")!
            if !types.isEmpty && types.allSatisfy({ $0 == "4" }) { ticketFrames[row.int("frame.number")!] = types.count }
            if !types.isEmpty && types.allSatisfy({ $0 == "24" }) { keyUpdateFrames[row.int("frame.number")!] = types.count }
            // the client's Finished (20), not a later TLS 1.3 KeyUpdate (24)
            if row.int("tcp.srcport") == clientPorts[stream] && types.contains("20") { clientFinishedFrames[stream] = row.int("frame.number")! }
        }
        var requestFrames: [Int: [Int]] = [:]
        let tlsStreams = Set(records.map(\.stream))  // a capture may also hold cleartext HTTP (`latency`)
        for row in try TruthTable.load(name, "http.tsv").rows
        where !row["http.request.method"].isEmpty && tlsStreams.contains(row.int("tcp.stream")!) {
            // Several requests completed in one frame count once each.
            for _ in row.list("http.request.method") { requestFrames[row.int("tcp.stream")!, default: []].append(row.int("frame.number")!) }
        }
        return TLSRecordTruth(records: records, ticketFrames: ticketFrames, keyUpdateFrames: keyUpdateFrames, requestFrames: requestFrames,
                              clientFinishedFrames: clientFinishedFrames)
    }

    /// The stream whose client used `clientPort` (each recorded TLS connection has its own port).
    func stream(clientPort: Int) -> Int? {
        records.first { $0.sourcePort == clientPort || $0.destinationPort == clientPort }?.stream
    }

    /// The records of a stream sent from `sourcePort`, in order.
    func records(stream: Int, from sourcePort: Int) -> [Record] {
        records.filter { $0.stream == stream && $0.sourcePort == sourcePort }
    }

    /// The server's NewSessionTicket records on a stream. A ticket frame must hold exactly the
    /// tickets' records, so that each record's length is a ticket's.
    func ticketRecords(stream: Int, serverPort: Int) throws -> [Record] {
        let server = records(stream: stream, from: serverPort)
        return try server.filter { ticketFrames[$0.frame] != nil }.map { record in
            let inFrame = server.filter { $0.frame == record.frame }.count
            guard inFrame == ticketFrames[record.frame] else {
                throw Missing(what: "frame \(record.frame): \(inFrame) records, \(ticketFrames[record.frame]!) tickets")
            }
            return record
        }
    }

    /// Plaintext bytes of the TLS 1.3 NewSessionTickets the server sent after request `index`
    /// (0-based) of the stream was complete and before the next request: the part of that response
    /// burst that is not HTTP. Tickets sent before the first request are handshake.
    func ticketPlaintextAfterRequest(_ index: Int, stream: Int, serverPort: Int) throws -> Int {
        let frames = requestFrames[stream] ?? []
        guard index < frames.count else { return 0 }
        let next = index + 1 < frames.count ? frames[index + 1] : Int.max
        return try ticketRecords(stream: stream, serverPort: serverPort)
            .filter { $0.frame > frames[index] && $0.frame < next }
            .reduce(0) { $0 + $1.length - Self.tls13Overhead }
    }

    /// Plaintext of one TLS 1.3 KeyUpdate record: the handshake header (4 bytes) and `request_update`.
    static let keyUpdatePlaintext = 5

    /// Plaintext bytes of the KeyUpdates `port` sent on a stream in frames after `after` up to `upTo`.
    func keyUpdatePlaintext(stream: Int, from port: Int, after: Int, upTo: Int) -> Int {
        Set(records(stream: stream, from: port).map(\.frame)).filter { $0 > after && $0 <= upTo }
            .reduce(0) { $0 + (keyUpdateFrames[$1] ?? 0) } * Self.keyUpdatePlaintext
    }

    /// The server's last record on a stream when it is a TLS 1.3 record of 19 bytes (2 bytes of
    /// plaintext: an alert's level and description, + inner type + tag) sent after the last request
    /// (HTTP/2, whose requests `http.tsv` does not list: after the client's Finished — no HTTP/2 frame
    /// is 2 bytes long): the encrypted close_notify. `TLSAlertTruthTests` confirms with the key log
    /// that each one is.
    func trailingEncryptedAlert(stream: Int, serverPort: Int) -> Record? {
        let after = requestFrames[stream]?.last ?? clientFinishedFrames[stream] ?? .max
        guard let last = records(stream: stream, from: serverPort).last, last.clearContentType == nil,
              last.length == 2 + Self.tls13Overhead, last.frame > after
        else { return nil }
        return last
    }
}

extension TLSRecordTruth {
    /// Stream bytes (headers included) of the client records that carry request `index` (0-based):
    /// after the client's Finished or the previous request's last frame, up to the frame that completes
    /// this request; the last request also takes the client's records after it (its close_notify).
    func requestRecordBytes(_ index: Int, stream: Int, clientPort: Int) -> Int {
        let frames = requestFrames[stream] ?? []
        let after = index == 0 ? clientFinishedFrames[stream] ?? 0 : frames[index - 1]
        let upTo = index + 1 < frames.count ? frames[index] : Int.max
        return records(stream: stream, from: clientPort).filter { $0.frame > after && $0.frame <= upTo }
            .reduce(0) { $0 + $1.streamBytes }
    }

    /// Stream bytes of the server records between request `index` and the next request (the last
    /// response: everything after the last request), NewSessionTickets and close_notify included.
    func responseRecordBytes(_ index: Int, stream: Int, serverPort: Int) -> Int {
        let frames = requestFrames[stream] ?? []
        let next = index + 1 < frames.count ? frames[index + 1] : Int.max
        return records(stream: stream, from: serverPort).filter { $0.frame > frames[index] && $0.frame < next }
            .reduce(0) { $0 + $1.streamBytes }
    }

    /// When the first server record with a ChangeCipherSpec after `time` on the connection from
    /// `clientPort` was complete (a full TLS 1.2 handshake: the server's CCS + Finished).
    func firstServerChangeCipherSpec(clientPort: Int, after time: Double) -> Double? {
        serverRecords(clientPort: clientPort).first { $0.clearContentType == 20 && $0.time > time }?.time
    }

    /// When the first server record at or after `time` (a response's first packet) that is not a
    /// session ticket was complete on the connection from `clientPort`: curl's first response byte.
    func firstServerRecordComplete(clientPort: Int, from time: Double) -> Double? {
        serverRecords(clientPort: clientPort).first { $0.time >= time - 1e-7 && ticketFrames[$0.frame] == nil }?.time
    }

    /// The records the server sent on the connection from `clientPort`, in order.
    private func serverRecords(clientPort: Int) -> [Record] {
        records.filter { $0.destinationPort == clientPort && $0.sourcePort == serverPort(clientPort: clientPort) }
    }

    /// The server port of a stream: where its first record (the ClientHello) went.
    func serverPort(stream: Int) -> Int? {
        records.first { $0.stream == stream }?.destinationPort
    }

    /// The server port of the connection from `clientPort`.
    func serverPort(clientPort: Int) -> Int? {
        records.first { $0.sourcePort == clientPort }?.destinationPort
    }

    /// Plaintext bytes of the server's KeyUpdates between the request nginx logged as `entry` and the
    /// next request (nginx answers a KeyUpdate that requested one before its next response).
    func responseKeyUpdatePlaintext(_ entry: NginxLog) -> Int {
        guard let stream = stream(clientPort: entry.clientPort), let serverPort = serverPort(clientPort: entry.clientPort) else { return 0 }
        let frames = requestFrames[stream] ?? [], index = entry.connectionRequests - 1
        guard index >= 0 && index < frames.count else { return 0 }
        return keyUpdatePlaintext(stream: stream, from: serverPort, after: frames[index],
                                  upTo: index + 1 < frames.count ? frames[index + 1] - 1 : Int.max)
    }

    /// Plaintext bytes of the client's KeyUpdates sent after its Finished or the previous request and
    /// up to the request nginx logged as `entry`: without keys they start that request's burst.
    func requestKeyUpdatePlaintext(_ entry: NginxLog) -> Int {
        guard let stream = stream(clientPort: entry.clientPort) else { return 0 }
        let frames = requestFrames[stream] ?? [], index = entry.connectionRequests - 1
        guard index >= 0 && index < frames.count else { return 0 }
        let after = index == 0 ? clientFinishedFrames[stream] ?? 0 : frames[index - 1]
        return keyUpdatePlaintext(stream: stream, from: entry.clientPort, after: after, upTo: frames[index])
    }

    /// Plaintext bytes that are not HTTP but travel in the server's burst of the response nginx logged
    /// as `entry` (its `$bytes_sent` is the HTTP part): NewSessionTickets and KeyUpdates sent after
    /// this request and before the next, and, for the connection's last request, a trailing encrypted
    /// close_notify.
    func plaintextNotHTTP(in entry: NginxLog, of log: [NginxLog]) throws -> Int {
        guard let stream = stream(clientPort: entry.clientPort), let serverPort = serverPort(clientPort: entry.clientPort) else {
            throw Missing(what: "no TLS records from client port \(entry.clientPort)")
        }
        var bytes = try ticketPlaintextAfterRequest(entry.connectionRequests - 1, stream: stream, serverPort: serverPort)
            + responseKeyUpdatePlaintext(entry)
        let isLast = !log.contains { $0.clientPort == entry.clientPort && $0.connectionRequests > entry.connectionRequests }
        if isLast, let alert = trailingEncryptedAlert(stream: stream, serverPort: serverPort) {
            bytes += alert.length - Self.tls13Overhead
        }
        return bytes
    }

    /// A truth file that does not say what the test needs, or says something inconsistent.
    struct Missing: Error { var what: String }
}
