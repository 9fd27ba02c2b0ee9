#if canImport(Glibc)
import Glibc
#endif

/// Re-encoded sizes of the bodies seen before, by coding list and exact decoded bytes: a hash of the
/// length and of up to 64 words spread over the body picks the slot, and the bytes themselves are
/// compared, so a hit is always the same body. Bounded: bodies over `largestBody` are not kept, and
/// once the kept bodies would pass `capacityBytes` the cache starts empty again.
struct ReencodedSizeCache {
    static let largestBody = 1 << 20
    static let capacityBytes = 16 << 20

    private struct Entry {
        var codings: [ContentCoding]
        var body: [UInt8]
        var size: Int
    }

    private var slots: [Int: [Entry]] = [:]
    private var heldBytes = 0

    /// The size remembered for `body` with `codings`, nil when not seen (or forgotten).
    func size(of body: [UInt8], _ codings: [ContentCoding]) -> Int? {
        guard body.count <= Self.largestBody, let entries = slots[Self.slot(body)] else { return nil }
        for entry in entries where entry.codings == codings && Self.equal(entry.body, body) { return entry.size }
        return nil
    }

    /// Remembers `size` for `body` with `codings` (a copy of the bytes is kept).
    mutating func insert(_ body: [UInt8], _ codings: [ContentCoding], size: Int) {
        guard body.count <= Self.largestBody else { return }
        if heldBytes + body.count > Self.capacityBytes {
            slots.removeAll(keepingCapacity: true)
            heldBytes = 0
        }
        slots[Self.slot(body), default: []].append(Entry(codings: codings, body: Array(body), size: size))
        heldBytes += body.count
    }

    private static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        guard !a.isEmpty else { return true }
        return a.withUnsafeBytes { x in b.withUnsafeBytes { y in memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0 } }
    }

    private static func slot(_ body: [UInt8]) -> Int {
        var hasher = Hasher()
        hasher.combine(body.count)
        body.withUnsafeBytes { raw in
            let words = raw.count / 8
            let step = max(1, words / 64)
            var index = 0
            while index < words {
                hasher.combine(raw.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self))
                index += step
            }
            for offset in (words * 8)..<raw.count { hasher.combine(raw[offset]) }
        }
        return hasher.finalize()
    }
}
