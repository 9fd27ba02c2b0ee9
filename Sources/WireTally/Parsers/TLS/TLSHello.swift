/// The fields wiretally reads from a ClientHello (RFC 8446 §4.1.2, RFC 5246 §7.4.1.2).
package struct TLSClientHello: Hashable, Sendable {
    /// `legacy_version` of the message (0x0303 for TLS 1.2 and 1.3 clients).
    package var legacyVersion: UInt16 = 0
    /// The 32-byte random: key logs name a connection's secrets by it (empty for SSL 2.0 format).
    package var random: [UInt8] = []
    package var sessionID: [UInt8] = []
    package var cipherSuites: [UInt16] = []
    /// server_name (host_name) extension.
    package var serverName: String?
    /// ALPN protocols offered, in order.
    package var alpn: [String] = []
    /// supported_versions extension (empty when absent).
    package var supportedVersions: [UInt16] = []
    /// pre_shared_key extension present (TLS 1.3 resumption or external PSK offered).
    package var offersPreSharedKey = false
    /// psk_key_exchange_modes extension present.
    package var offersPSKModes = false
    /// early_data extension present (0-RTT offered).
    package var offersEarlyData = false
    /// A non-empty session_ticket extension (TLS 1.2 ticket resumption offered).
    package var offersSessionTicket = false
    /// Extension types in order.
    package var extensions: [UInt16] = []
    /// The quic_transport_parameters extension's data (0x39, RFC 9001 §8.2), as sent; nil when absent.
    package var quicTransportParameters: [UInt8]?

    /// The highest version offered (supported_versions when present, else legacy_version).
    package var maxVersion: UInt16 {
        supportedVersions.filter { $0 & 0x0f0f == $0 && $0 >> 8 == 3 }.max() ?? legacyVersion
    }
}

/// The fields wiretally reads from a ServerHello.
package struct TLSServerHello: Hashable, Sendable {
    package var legacyVersion: UInt16 = 0
    /// The 32-byte random (an input of the TLS 1.2 key block).
    package var random: [UInt8] = []
    package var sessionID: [UInt8] = []
    package var cipherSuite: UInt16 = 0
    /// supported_versions extension (TLS 1.3: the negotiated version).
    package var selectedVersion: UInt16?
    /// ALPN protocol selected (TLS ≤ 1.2; in TLS 1.3 it is in the encrypted EncryptedExtensions).
    package var alpn: String?
    /// pre_shared_key extension present: the server accepted a PSK (TLS 1.3 resumption).
    package var acceptsPreSharedKey = false
    /// encrypt_then_mac extension (RFC 7366): TLS 1.2 CBC records are MACed after encryption.
    package var encryptThenMAC = false
    /// This is a HelloRetryRequest (the special random of RFC 8446 §4.1.3).
    package var isHelloRetryRequest = false
    package var extensions: [UInt16] = []

    /// The version in use: supported_versions when present, else legacy_version.
    package var version: UInt16 { selectedVersion ?? legacyVersion }
}

/// Bounds-checked big-endian reading over a byte array; every read returns nil past the end.
struct TLSByteCursor {
    let bytes: [UInt8]
    var index: Int
    let end: Int

    init(_ bytes: [UInt8], from start: Int = 0, end: Int? = nil) {
        self.bytes = bytes
        index = start
        self.end = min(end ?? bytes.count, bytes.count)
    }

    var remaining: Int { max(0, end - index) }

    mutating func u8() -> Int? {
        guard index < end else { return nil }
        defer { index += 1 }
        return Int(bytes[index])
    }

    mutating func u16() -> Int? {
        guard index + 2 <= end else { return nil }
        defer { index += 2 }
        return Int(bytes[index]) << 8 | Int(bytes[index + 1])
    }

    mutating func take(_ count: Int) -> ArraySlice<UInt8>? {
        guard count >= 0, index + count <= end else { return nil }
        defer { index += count }
        return bytes[index ..< index + count]
    }

    /// A sub-cursor over the next `count` bytes (consumed here).
    mutating func sub(_ count: Int) -> TLSByteCursor? {
        guard count >= 0, index + count <= end else { return nil }
        defer { index += count }
        return TLSByteCursor(bytes, from: index, end: index + count)
    }
}

enum TLSHelloParser {
    static let helloRetryRandom: [UInt8] = [
        0xCF, 0x21, 0xAD, 0x74, 0xE5, 0x9A, 0x61, 0x11, 0xBE, 0x1D, 0x8C, 0x02, 0x1E, 0x65, 0xB8, 0x91,
        0xC2, 0xA2, 0x11, 0x16, 0x7A, 0xBB, 0x8C, 0x5E, 0x07, 0x9E, 0x09, 0xE2, 0xC8, 0xA8, 0x33, 0x9C,
    ]

    /// Parses a ClientHello body; nil when it is too short to have the fixed fields. Extensions that
    /// do not parse are skipped.
    static func clientHello(_ body: [UInt8]) -> TLSClientHello? {
        var cursor = TLSByteCursor(body)
        var hello = TLSClientHello()
        guard let version = cursor.u16(), let random = cursor.take(32),
              let sessionLength = cursor.u8(), let session = cursor.take(sessionLength),
              let suitesLength = cursor.u16(), var suites = cursor.sub(suitesLength),
              let compressionLength = cursor.u8(), cursor.take(compressionLength) != nil
        else { return nil }
        hello.legacyVersion = UInt16(version)
        hello.random = Array(random)
        hello.sessionID = Array(session)
        while let suite = suites.u16() { hello.cipherSuites.append(UInt16(suite)) }
        guard let extensionsLength = cursor.u16(), var extensions = cursor.sub(extensionsLength) else { return hello }
        while let type = extensions.u16(), let length = extensions.u16(), var data = extensions.sub(length) {
            hello.extensions.append(UInt16(type))
            switch type {
            case 0:  // server_name
                guard let listLength = data.u16(), var list = data.sub(listLength) else { break }
                while let nameType = list.u8(), let nameLength = list.u16(), let name = list.take(nameLength) {
                    if nameType == 0, hello.serverName == nil { hello.serverName = String(decoding: name, as: UTF8.self) }
                }
            case 16:  // ALPN
                hello.alpn = protocolNames(&data)
            case 43:  // supported_versions
                guard let listLength = data.u8(), var list = data.sub(listLength) else { break }
                while let v = list.u16() { hello.supportedVersions.append(UInt16(v)) }
            case 41: hello.offersPreSharedKey = true
            case 42: hello.offersEarlyData = true
            case 45: hello.offersPSKModes = true
            case 35: hello.offersSessionTicket = length > 0
            case 0x39: hello.quicTransportParameters = data.take(length).map(Array.init)
            default: break
            }
        }
        return hello
    }

    /// Parses a ServerHello body (or HelloRetryRequest).
    static func serverHello(_ body: [UInt8]) -> TLSServerHello? {
        var cursor = TLSByteCursor(body)
        var hello = TLSServerHello()
        guard let version = cursor.u16(), let random = cursor.take(32),
              let sessionLength = cursor.u8(), let session = cursor.take(sessionLength),
              let suite = cursor.u16(), cursor.u8() != nil
        else { return nil }
        hello.legacyVersion = UInt16(version)
        hello.random = Array(random)
        hello.isHelloRetryRequest = hello.random == helloRetryRandom
        hello.sessionID = Array(session)
        hello.cipherSuite = UInt16(suite)
        guard let extensionsLength = cursor.u16(), var extensions = cursor.sub(extensionsLength) else { return hello }
        while let type = extensions.u16(), let length = extensions.u16(), var data = extensions.sub(length) {
            hello.extensions.append(UInt16(type))
            switch type {
            case 16: hello.alpn = protocolNames(&data).first
            case 22: hello.encryptThenMAC = true
            case 43: hello.selectedVersion = data.u16().map { UInt16($0) }
            case 41: hello.acceptsPreSharedKey = true
            default: break
            }
        }
        return hello
    }

    /// An SSL 2.0-format ClientHello body (after the 2-byte record header): msg type 1, version,
    /// cipher-spec, session-id and challenge lengths, then the cipher specs (3 bytes each).
    static func sslv2ClientHello(_ body: [UInt8]) -> TLSClientHello? {
        var cursor = TLSByteCursor(body)
        guard cursor.u8() == 1, let version = cursor.u16(), let specsLength = cursor.u16(),
              let sessionLength = cursor.u16(), cursor.u16() != nil, var specs = cursor.sub(specsLength),
              let session = cursor.take(sessionLength)
        else { return nil }
        var hello = TLSClientHello()
        hello.legacyVersion = UInt16(version)
        hello.sessionID = Array(session)
        while let high = specs.u8(), let low = specs.u16() {
            if high == 0 { hello.cipherSuites.append(UInt16(low)) }
        }
        return hello
    }

    /// The ALPN protocol of a TLS 1.3 EncryptedExtensions body (its extension list), if selected.
    static func encryptedExtensionsALPN(_ body: [UInt8]) -> String? {
        encryptedExtension(16, in: body).flatMap { var data = $0; return protocolNames(&data).first }
    }

    /// The server's quic_transport_parameters (0x39) in an EncryptedExtensions message body.
    static func encryptedExtensionsQUICTransportParameters(_ body: [UInt8]) -> [UInt8]? {
        encryptedExtension(0x39, in: body).flatMap { var data = $0; return data.take(data.remaining).map(Array.init) }
    }

    /// The data of extension `type` in an EncryptedExtensions message body.
    private static func encryptedExtension(_ type: Int, in body: [UInt8]) -> TLSByteCursor? {
        var cursor = TLSByteCursor(body)
        guard let extensionsLength = cursor.u16(), var extensions = cursor.sub(extensionsLength) else { return nil }
        while let found = extensions.u16(), let length = extensions.u16(), let data = extensions.sub(length) {
            if found == type { return data }
        }
        return nil
    }

    private static func protocolNames(_ data: inout TLSByteCursor) -> [String] {
        guard let listLength = data.u16(), var list = data.sub(listLength) else { return [] }
        var names: [String] = []
        while let length = list.u8(), let name = list.take(length) { names.append(String(decoding: name, as: UTF8.self)) }
        return names
    }
}
