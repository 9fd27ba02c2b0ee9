/// One packet record as read from a capture, before any decoding.
///
/// `bytes` points into the reader's buffer and is valid only until that reader is asked for its next
/// packet: stages that keep data past that point copy it. So is `recordedOwner`, which the packet does
/// not keep alive: stages that keep a packet past that point keep its owner too (`PacketBatch`).
/// Plain data: copying or dropping a packet copies its bytes and counts no reference (a strong owner
/// reference made each copy and destruction of a packet a call through its type's value witnesses,
/// three or four a packet).
package struct CapturedPacket: BitwiseCopyable {
    /// 1-based position of the packet in the (merged) capture, like Wireshark's frame number.
    package var frameNumber: Int
    package var timestamp: Timestamp
    package var linkType: LinkType
    /// True once `recordFrameOwner(reusing:)` has read the owner the frame itself names into
    /// `recordedOwner`: `owner` then reads the frame no more. (Beside `linkType`, in its padding.)
    package private(set) var isFrameOwnerRecorded = false
    /// The frame's length on the wire (`orig_len`); at least `bytes.count`.
    package var originalLength: Int
    /// The captured bytes (`incl_len` of them; fewer than `originalLength` when cut by the snaplen).
    package var bytes: UnsafeRawBufferPointer
    /// Which input file the packet came from (index into the list given to the reader).
    package var fileIndex: Int
    /// The pcapng interface the packet was captured on (0 for pcap files).
    package var interfaceIndex: Int
    /// The process or app the file's blocks name for the packet (Apple's pcapng process information
    /// blocks, PCAPdroid's pcapng UID mapping), or the frame itself once `recordFrameOwner(reusing:)`
    /// has read it; nil otherwise. Until then, owners written into the frame (PKTAP header, PCAPdroid
    /// trailer) are read by `owner`. Kept out of line: inline, the owner's two names made the packet
    /// ~170 bytes, copied with a call to memmove at every hand-on. Not retained: whoever makes the
    /// packet keeps its owner alive while `bytes` is valid (the pcapng reader keeps the last owner it
    /// named, `recordFrameOwner(reusing:)`'s caller the one it records).
    package var recordedOwner: RecordedOwner? {
        get { recordedOwnerReference?.takeUnretainedValue() }
        set { recordedOwnerReference = newValue.map(Unmanaged.passUnretained) }
    }
    /// `recordedOwner`'s reference, read without retaining it (the per-packet tests for an owner
    /// retained and released each packet's nil owner).
    private var recordedOwnerReference: Unmanaged<RecordedOwner>?

    package init(
        frameNumber: Int, timestamp: Timestamp, linkType: LinkType, originalLength: Int,
        bytes: UnsafeRawBufferPointer, fileIndex: Int = 0, interfaceIndex: Int = 0,
        recordedOwner: RecordedOwner? = nil
    ) {
        recordedOwnerReference = recordedOwner.map(Unmanaged.passUnretained)
        self.frameNumber = frameNumber
        self.timestamp = timestamp
        self.linkType = linkType
        self.originalLength = originalLength
        self.bytes = bytes
        self.fileIndex = fileIndex
        self.interfaceIndex = interfaceIndex
    }

    /// True when the snaplen cut the packet short.
    package var isTruncatedBySnaplen: Bool { bytes.count < originalLength }

    /// The process or app that sent or received the packet, as the capture records it: the file's
    /// blocks (`recordedOwner`), the PKTAP header, or a PCAPdroid trailer; nil when it names none.
    package var owner: PacketOwner? {
        if let recordedOwnerReference { return recordedOwnerReference._withUnsafeGuaranteedRef(\.owner) }
        return isFrameOwnerRecorded ? nil : frameOwner
    }

    /// The owner the frame itself names (PKTAP header, PCAPdroid trailer), nil when it names none.
    /// Inlined: most frames name none, which the inlined tests of the link type and of a PCAPdroid
    /// frame's size and MACs tell without a call.
    @inline(__always)
    private var frameOwner: PacketOwner? {
        switch linkType {
        case .pktap: PKTAPHeader(bytes)?.owner
        case .ethernet: PCAPdroidTrailer.owner(in: bytes, originalLength: originalLength)
        default: nil
        }
    }

    /// Settles `owner` into `recordedOwner` (unless the file's blocks named one already), reading
    /// the frame's own owner now: for the thread that decodes the packet while its bytes are in that
    /// core's cache, so that the analysing thread never loads the frame's first cache line just to
    /// learn that it names no owner. `last`, the owner recorded last, is reused when the frame names
    /// the same (consecutive packets mostly do), and becomes the one recorded here (`last` keeps it
    /// alive).
    package mutating func recordFrameOwner(reusing last: inout RecordedOwner?) {
        guard !isFrameOwnerRecorded else { return }
        isFrameOwnerRecorded = true
        guard recordedOwnerReference == nil, let owner = frameOwner else { return }
        last = RecordedOwner.reusing(last, for: owner)
        recordedOwner = last
    }
}

/// The owner a capture file's blocks name for a packet, shared by the packets that name the same one
/// (see `CapturedPacket.recordedOwner`). Immutable.
package final class RecordedOwner: Sendable {
    /// The owner (never of kind `.none`).
    package let owner: PacketOwner

    package init(_ owner: PacketOwner) { self.owner = owner }

    /// `previous` when it names exactly `owner`, else a new one; nil for `.none`. Readers keep the
    /// last one: consecutive packets mostly have the same owner, so this allocates once per change.
    package static func reusing(_ previous: RecordedOwner?, for owner: PacketOwner) -> RecordedOwner? {
        guard owner.kind != .none else { return nil }
        if let previous, previous.owner == owner { return previous }
        return RecordedOwner(owner)
    }
}

/// Anything that yields captured packets in order: a file reader, a merge of several, a live interface.
package protocol PacketSource {
    /// The next packet, or nil at the clean end of the input. The packet's bytes stay valid until the
    /// next call. Throws `CaptureError` on input that cannot be read further (packets already returned
    /// stay valid results).
    mutating func nextPacket() throws -> CapturedPacket?
    /// Decimal digits of timestamp precision the input really has (6 for microsecond pcap, 9 for nano).
    var timestampDigits: Int { get }
    /// Bytes of the underlying file read so far (compressed bytes for gzip files), for progress.
    var fileBytesRead: Int { get }
}

extension PacketSource {
    /// Sources that are not files read no file bytes.
    package var fileBytesRead: Int { 0 }
}
