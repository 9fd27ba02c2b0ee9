import FuzzDriver
@testable import WireTally

/// The key log of `captures/quic-sequential.pcap` (the fuzzer runs from the repository's root):
/// datagrams mutated from that recording's keep its client random and connection IDs, so their
/// Handshake and 1-RTT packets go through header protection removal, AEAD opening and the frame walk.
let keys: TLSKeyStore = {
    do { return try TLSKeyStore.reading(files: ["captures/quic-sequential.keys"]) } catch {
        fatalError("cannot read captures/quic-sequential.keys (run from the repository's root): \(error)")
    }
}()

/// Checks the byte identities the QUIC ledger relies on: a datagram's packets and trailing bytes are
/// its bytes, in order; a decrypted packet is its header, plaintext and tag, and its frames (when the
/// walk ended cleanly) are its plaintext.
func check(_ contents: QUICDatagramContents, count: Int) {
    var end = 0
    for packet in contents.packets {
        precondition(packet.range.lowerBound == end && packet.range.upperBound <= count, "packet ranges")
        end = packet.range.upperBound
        guard packet.decrypted else { continue }
        precondition(packet.headerLength + packet.plaintext.count + packet.tagLength == packet.range.count, "decrypted packet size")
        if packet.frameError == nil { check(packet.frames, plaintext: packet.plaintext.count) }
    }
    precondition(end + contents.trailingBytes == count, "datagram bytes")
}

/// Frames walked without error cover the plaintext, in order.
func check(_ frames: [QUICFrame], plaintext count: Int) {
    var end = 0
    for frame in frames {
        precondition(frame.range.lowerBound == end, "frame ranges")
        end = frame.range.upperBound
    }
    precondition(end == count, "frames cover the plaintext")
}

/// Layout: byte 0 = mode: bit 0 set: the rest is the plaintext of one packet, walked by
/// `QUICFrameParser.parse`; else the rest is datagrams of one connection fed to a
/// `QUICConnectionObserver` (bit 1: with the key log of quic-sequential, else without keys: Initial
/// packets only), each as flags (bit 0: from the client), a 2-byte big-endian length (cut to what
/// remains), then its bytes, every one an exact-size heap copy (ASan sees overreads).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 1 else { return 0 }
    if data[0] & 1 != 0 {
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: size - 1, alignment: 1)
        defer { copy.deallocate() }
        copy.copyMemory(from: UnsafeRawBufferPointer(start: data + 1, count: size - 1))
        let walk = QUICFrameParser.parse(UnsafeRawBufferPointer(copy))
        if walk.error == nil { check(walk.frames, plaintext: size - 1) }
        return 0
    }
    let observer = QUICConnectionObserver(keys: data[0] & 2 != 0 ? keys : nil)
    var position = 1
    while position + 3 <= size {
        let fromClient = data[position] & 1 != 0
        let count = min(Int(data[position + 1]) << 8 | Int(data[position + 2]), size - position - 3)
        position += 3
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 1)
        defer { copy.deallocate() }
        copy.copyMemory(from: UnsafeRawBufferPointer(start: data + position, count: count))
        check(observer.observe(UnsafeRawBufferPointer(copy), fromClient: fromClient), count: count)
        position += count
    }
    return 0
}

@_cdecl("FuzzQUICPackets_main")
func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzz)
}
