/// PCAPdroid's per-packet trailer (its "PCAP file with PCAPdroid trailer" dump mode), as
/// `pcapdroid_trailer_t` and `dump_packet_pcap` in PCAPdroid's `app/src/main/jni/core/pcap_dump.c`
/// (emanuele-f/PCAPdroid) write it: an Ethernet link type whose frames are
///
///     [Ethernet: both MACs zero, EtherType of the IP version | IP packet | 0-3 zero bytes | trailer]
///
/// with the 32-byte trailer `magic 0x01072021 (big-endian) | uid (int32, big-endian) |
/// appname[20] (NUL-padded) | fcs`, `fcs` a CRC-32 of the frame bytes before it computed by
/// PCAPdroid's own `crc32` routine (not checked here: a trailer is recognised by its zero MACs and
/// its magic). Decoders that do not know it read the Ethernet frame as usual: the IP length ends the
/// packet before the trailer.
enum PCAPdroidTrailer {
    static let length = 32
    static let magic: UInt32 = 0x0107_2021
    private static let ethernetLength = 14
    /// PCAPdroid's `UID_UNKNOWN` (-1): the trailer names no app.
    static let unknownUID = UInt32.max

    /// The app a trailer names, when `frame` (captured whole: `originalLength == frame.count`) ends
    /// with the trailer's magic and starts with the zero MACs PCAPdroid writes, and its uid is known.
    /// The MACs are read first: they lie in the header the decoder has just read, while the frame's
    /// tail is usually in a cache line nothing has touched yet, so other Ethernet frames never read it.
    /// The tests of the frame's size and MACs are inlined into the caller: every Ethernet frame of
    /// every capture goes through them, and other captures' frames stop at them.
    @inline(__always)
    static func owner(in frame: UnsafeRawBufferPointer, originalLength: Int) -> PacketOwner? {
        let count = frame.count
        guard count >= ethernetLength + length, count == originalLength,
              frame.loadUnaligned(fromByteOffset: 0, as: UInt64.self) == 0,
              frame.loadUnaligned(fromByteOffset: 8, as: UInt32.self) == 0
        else { return nil }
        return trailerOwner(in: frame)
    }

    /// The app the trailer at the end of `frame` names (its MACs and size already checked).
    private static func trailerOwner(in frame: UnsafeRawBufferPointer) -> PacketOwner? {
        let count = frame.count
        guard frame.uint32BigEndian(at: count - length) == magic,
              let uid = frame.uint32BigEndian(at: count - length + 4), uid != unknownUID
        else { return nil }
        let name = InlineName(frame.clamped(from: count - length + 8, to: count - length + 28))
        return PacketOwner(kind: .app, id: Int32(bitPattern: uid), name: name)
    }
}
