import Foundation
import Testing
@testable import WireTally

/// The datagrams of a `captures/quic-*` recording fed to one observer per connection (the aioquic
/// servers listen on UDP 443 and 7443; a connection is its client port), with or without its key log.
struct QUICKeyedObservation {
    static let serverPorts: Set<UInt16> = [443, 7443]

    /// One datagram as observed: its pcap frame number (1-based; the recordings hold only UDP).
    struct Datagram {
        let frame: Int
        let clientPort: UInt16
        let fromClient: Bool
        let payloadLength: Int
        let contents: QUICDatagramContents
    }

    var datagrams: [Datagram] = []
    var observers: [UInt16: QUICConnectionObserver] = [:]

    /// Observes recording `name` with `keys` (nil: none).
    init(_ name: String, keys: TLSKeyStore?) throws {
        for (index, datagram) in try QUICCaptureTests.datagrams(TestPaths.capture(name + ".pcap")).enumerated() {
            let fromClient = Self.serverPorts.contains(datagram.destinationPort)
            let port = fromClient ? datagram.sourcePort : datagram.destinationPort
            let observer = observers[port] ?? QUICConnectionObserver(keys: keys)
            observers[port] = observer
            let contents = observer.observe(datagram.payload, fromClient: fromClient)
            datagrams.append(Datagram(frame: index + 1, clientPort: port, fromClient: fromClient,
                                      payloadLength: datagram.payload.count, contents: contents))
        }
    }

    /// Observes recording `name` with its own key log, `NAME.keys`.
    init(keyed name: String) throws {
        try self.init(name, keys: TLSKeyStore.reading(files: [TestPaths.capture(name + ".keys")]))
    }

    /// The client port of connection `conn` (0-based, the client's order) from `NAME.h3client.jsonl`.
    static func clientPort(_ name: String, conn: Int) throws -> UInt16? {
        let lines = try JSONLines.load(TestPaths.capture(name + ".h3client.jsonl"))
        let line = lines.first { $0["record"] as? String == "connection" && $0["conn"] as? Int == conn }
        return (line?["local_port"] as? Int).map { UInt16($0) }
    }

    /// The byte identities of a datagram: its packets and trailing bytes are its UDP payload, and each
    /// decrypted packet whose frames parsed is its header, its frames and its tag.
    static func checkIdentities(_ contents: QUICDatagramContents, payloadLength: Int, _ context: String) {
        #expect(contents.packets.reduce(0) { $0 + $1.range.count } + contents.trailingBytes == payloadLength, "\(context)")
        var end = 0
        for packet in contents.packets {
            #expect(packet.range.lowerBound == end, "\(context)")
            end = packet.range.upperBound
            guard packet.decrypted else { continue }
            #expect(packet.tagLength == 16 && packet.headerLength + packet.plaintext.count + 16 == packet.range.count, "\(context)")
            guard packet.frameError == nil else { continue }
            let framed = packet.frames.reduce(0) { $0 + $1.range.count }
            #expect(packet.headerLength + framed + packet.tagLength == packet.range.count, "\(context)")
        }
    }

    /// tshark's and qlog's name of a packet's type.
    static func typeName(_ space: QUICPacketSpace?) -> String {
        switch space {
        case .initial: "initial"
        case .handshake: "handshake"
        case .zeroRTT: "0RTT"
        case .oneRTT: "1RTT"
        case nil: "version_negotiation"
        }
    }

    /// qlog's name of a frame type (aioquic).
    static func qlogName(_ type: UInt64) -> String {
        switch type {
        case 0x00: "padding"
        case 0x01: "ping"
        case 0x02, 0x03: "ack"
        case 0x04: "reset_stream"
        case 0x05: "stop_sending"
        case 0x06: "crypto"
        case 0x07: "new_token"
        case 0x08 ... 0x0f: "stream"
        case 0x10: "max_data"
        case 0x11: "max_stream_data"
        case 0x12, 0x13: "max_streams"
        case 0x14: "data_blocked"
        case 0x15: "stream_data_blocked"
        case 0x16, 0x17: "streams_blocked"
        case 0x18: "new_connection_id"
        case 0x19: "retire_connection_id"
        case 0x1a: "path_challenge"
        case 0x1b: "path_response"
        case 0x1c, 0x1d: "connection_close"
        case 0x1e: "handshake_done"
        default: "datagram"
        }
    }
}
