/// One QUIC packet of a datagram as the observer read it.
struct QUICPacketRecord: Equatable, Sendable {
    var space: QUICPacketSpace?  // nil: Retry, Version Negotiation, unknown version
    var range: Range<Int>  // the packet's bytes in the datagram (coalesced packets: by their Length)
    var headerLength: Int  // header through the packet number (decrypted); else through packetNumberOffset + 1
    var tagLength: Int  // 16 when decrypted (AEAD tag); 0 otherwise
    var packetNumber: UInt64?
    var keyPhase: Bool?  // 1-RTT only
    var decrypted: Bool
    var plaintext: [UInt8]  // the frames' bytes (empty when not decrypted)
    var frames: [QUICFrame]  // ranges relative to plaintext
    /// Why the frame walk stopped before the end of the plaintext (nil: every byte is in `frames`).
    var frameError: QUICFrameError?

    /// The packet `header` before (or without) decryption, in `space`.
    init(_ header: QUICPacketHeaderView, space: QUICPacketSpace?) {
        self.space = space
        range = header.start ..< header.end
        headerLength = min(header.length, header.packetNumberOffset + 1 - header.start)
        tagLength = 0
        decrypted = false
        plaintext = []
        frames = []
    }

    /// Takes the opened packet and its frames.
    mutating func take(_ opened: QUICOpenedPacket) {
        headerLength = opened.headerLength
        tagLength = QUICPacketProtection.tagLength
        packetNumber = opened.packetNumber
        keyPhase = space == .oneRTT ? opened.keyPhase : nil
        decrypted = true
        plaintext = opened.plaintext
        let walk = QUICFrameParser.parse(opened.plaintext)
        frames = walk.frames
        frameError = walk.error
    }
}
