import NIOCore
import NIOHPACK

/// The HPACK decoder of one direction (the state of the sender's encoder, RFC 7541) and the header
/// block being gathered from HEADERS/PUSH_PROMISE + CONTINUATION fragments.
///
/// Header blocks are gathered up to `maxHeaderBytes` (encoded) and decoded into lists of at most
/// `maxHeaderBytes` (RFC 7541 sizes: name + value + 32 per field). Either cap hit stops header decoding
/// for the direction (`tooLarge`); a block that fails to decode while the dynamic table is intact stops
/// it too (`failed`): the dynamic table can no longer be trusted. Framing and byte counts go on.
///
/// HPACK after lost bytes: when a header block or part of one may have been lost (a gap or unparsed
/// bytes in the direction, a block cut by another frame) the dynamic table is unknown. The decoder is
/// then replaced by an empty one (`recovering`). A block that decodes against it is right: entries the
/// encoder added since are at the front of both tables in the same order, and a reference to an entry
/// the empty table lacks fails instead of decoding to a wrong field. A block that fails replaces the
/// decoder again (entries it would have added are missing) and its message is flagged `.gap`; a block
/// decoded after a replacement flags its message `.resynchronized`.
struct HTTP2HeaderBlockDecoder {
    enum State: Equatable {
        /// The table is known: a failure is an HPACK error.
        case intact
        /// The table was lost: failures are expected until the blocks reference only new entries.
        case recovering
        /// Header decoding stopped: an HPACK error with intact state.
        case failed
        /// Header decoding stopped: a block or a decoded list over the cap.
        case tooLarge
    }

    /// What decoding a block gave.
    enum Outcome {
        case decoded(HPACKHeaders, afterReset: Bool)
        /// Not decoded: decoding had stopped, the block was cut or over the cap, or it referenced lost state.
        case lost
        /// An HPACK error with intact state (decoding stops from here).
        case hpackError
        /// The block or its decoded list exceeded the cap (decoding stops from here).
        case tooLarge
    }

    private(set) var state: State
    private var decoder: HPACKDecoder
    private var block: NIOCore.ByteBuffer
    /// The block being gathered lost bytes (gap) or went over the cap: it is not decoded.
    private var blockLost = false
    private var blockOverCap = false
    /// Decoded since the last replacement of the decoder.
    private var decodedSinceReset = true
    /// A block was decoded (the table may hold entries).
    private(set) var hasDecoded = false
    private let maxHeaderBytes: Int
    /// The table size the receiver allows (its SETTINGS_HEADER_TABLE_SIZE, the largest it advertised).
    private var maxTableSize = HPACKDecoder.maxDynamicTableSize
    private static let allocator = ByteBufferAllocator()

    init(maxHeaderBytes: Int, intact: Bool) {
        self.maxHeaderBytes = max(maxHeaderBytes, 1)
        state = intact ? .intact : .recovering
        decoder = Self.makeDecoder(maxTableSize: HPACKDecoder.maxDynamicTableSize, maxHeaderBytes: self.maxHeaderBytes)
        block = Self.allocator.buffer(capacity: 0)
        decodedSinceReset = intact
    }

    private static func makeDecoder(maxTableSize: Int, maxHeaderBytes: Int) -> HPACKDecoder {
        HPACKDecoder(allocator: allocator, maxDynamicTableSize: maxTableSize, maxHeaderListSize: maxHeaderBytes)
    }

    var isStopped: Bool { state == .failed || state == .tooLarge }

    /// The receiver advertised SETTINGS_HEADER_TABLE_SIZE `size`: the encoder may use up to it. The
    /// largest advertised is kept (the observer cannot tell when the encoder learned of a smaller one).
    mutating func receiverAllowsTableSize(_ size: UInt32) {
        let size = Int(min(size, UInt32(Int32.max)))
        guard size > maxTableSize else { return }
        maxTableSize = size
        decoder.maxDynamicTableLength = size
    }

    /// Adds a fragment of the block being gathered.
    mutating func append(_ fragment: UnsafeRawBufferPointer) {
        guard !blockLost, !blockOverCap, !isStopped else { return }
        if block.readableBytes + fragment.count > maxHeaderBytes {
            blockOverCap = true
            block.clear()
            return
        }
        block.writeBytes(fragment)
    }

    /// Bytes of the block being gathered were lost (a gap): it cannot be decoded, and the table may have
    /// changed.
    mutating func loseBlockBytes() {
        blockLost = true
        block.clear()
    }

    /// Whether the block being gathered already went over the cap (its message is flagged at once).
    var isBlockOverCap: Bool { blockOverCap }

    /// Header blocks may have been lost (unparsed bytes, a gap between frames, a block cut short): the
    /// table is unknown from here.
    mutating func loseState() {
        abandonBlock()
        guard !isStopped else { return }
        reset()
    }

    /// Drops the block being gathered (decoded, or not to be decoded).
    private mutating func abandonBlock() {
        block.clear()
        blockLost = false
        blockOverCap = false
    }

    /// The block is complete (END_HEADERS): decodes it and starts the next.
    mutating func finishBlock() -> Outcome {
        defer { abandonBlock() }
        if isStopped { return .lost }
        if blockOverCap {
            state = .tooLarge
            return .tooLarge
        }
        if blockLost {
            reset()
            return .lost
        }
        do {
            let headers = try decoder.decodeHeaders(from: &block)
            let afterReset = !decodedSinceReset
            decodedSinceReset = true
            hasDecoded = true
            return .decoded(headers, afterReset: afterReset)
        } catch is NIOHPACKErrors.MaxHeaderListSizeViolation {
            state = .tooLarge
            return .tooLarge
        } catch {
            if state == .recovering {
                reset()
                return .lost
            }
            state = .failed
            return .hpackError
        }
    }

    private mutating func reset() {
        state = .recovering
        decoder = Self.makeDecoder(maxTableSize: maxTableSize, maxHeaderBytes: maxHeaderBytes)
        decodedSinceReset = false
    }
}
