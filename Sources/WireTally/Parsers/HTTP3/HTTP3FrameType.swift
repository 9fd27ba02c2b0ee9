/// HTTP/3 frame types (RFC 9114 §7.2, §11.2.1).
enum HTTP3FrameType {
    static let data: UInt64 = 0x0
    static let headers: UInt64 = 0x1
    static let cancelPush: UInt64 = 0x3
    static let settings: UInt64 = 0x4
    static let pushPromise: UInt64 = 0x5
    static let goaway: UInt64 = 0x7
    static let maxPushID: UInt64 = 0xd

    /// Reserved types 0x1f·N + 0x21 ("grease", §7.2.8): meaningless, to be ignored.
    static func isReserved(_ type: UInt64) -> Bool { type >= 0x21 && (type - 0x21) % 0x1f == 0 }

    /// Types HTTP/2 uses that HTTP/3 reserves (PRIORITY, PING, WINDOW_UPDATE, CONTINUATION): receiving
    /// one is a connection error (H3_FRAME_UNEXPECTED, §7.2.8).
    static func isHTTP2Only(_ type: UInt64) -> Bool { type == 0x2 || type == 0x6 || type == 0x8 || type == 0x9 }

    /// Types this parser reads (the others are skipped as unknown).
    static func isKnown(_ type: UInt64) -> Bool {
        type == data || type == headers || type == cancelPush || type == settings || type == pushPromise
            || type == goaway || type == maxPushID
    }
}

/// Unidirectional stream types (RFC 9114 §6.2, RFC 9204 §4.2).
enum HTTP3StreamType {
    static let control: UInt64 = 0x00
    static let push: UInt64 = 0x01
    static let qpackEncoder: UInt64 = 0x02
    static let qpackDecoder: UInt64 = 0x03
}

/// HTTP/3 SETTINGS identifiers (RFC 9114 §7.2.4.1, RFC 9204 §5).
enum HTTP3SettingID {
    static let qpackMaxTableCapacity: UInt64 = 0x01
    static let maxFieldSectionSize: UInt64 = 0x06
    static let qpackBlockedStreams: UInt64 = 0x07
}
