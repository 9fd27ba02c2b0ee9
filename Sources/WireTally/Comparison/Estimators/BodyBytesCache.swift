#if canImport(Glibc)
import Glibc
#endif

/// Values remembered for bodies seen before, by coding list and exact body bytes: a hash of the
/// length and of up to 64 words spread over the body picks the slot, and the bytes themselves are
/// compared, so a hit is always the same body. Bounded: bodies over `largestBody` are not kept, and
/// once the kept bytes (bodies and what each value holds) would pass `capacityBytes` the cache starts
/// empty again.
///
/// `BodyReencoder` keeps two: re-encoded sizes by decoded body, and what decoding gave by encoded body.
struct BodyBytesCache<Value> {
    static var largestBody: Int { 1 << 20 }
    static var capacityBytes: Int { 16 << 20 }

    private struct Entry {
        var codings: [ContentCoding]
        var body: [UInt8]
        var value: Value
    }

    private var slots: [Int: [Entry]] = [:]
    private var heldBytes = 0

    /// The value remembered for `body` with `codings`, nil when not seen (or forgotten).
    func value(for body: [UInt8], _ codings: [ContentCoding]) -> Value? {
        guard body.count <= Self.largestBody, let entries = slots[Self.slot(body)] else { return nil }
        for entry in entries where entry.codings == codings && Self.equal(entry.body, body) { return entry.value }
        return nil
    }

    /// Remembers `value` for `body` with `codings` (a copy of the bytes is kept); `valueBytes`: what
    /// the value itself holds, counted against `capacityBytes`.
    mutating func insert(_ body: [UInt8], _ codings: [ContentCoding], _ value: Value, valueBytes: Int = 0) {
        guard body.count <= Self.largestBody else { return }
        let bytes = body.count + valueBytes
        if heldBytes + bytes > Self.capacityBytes {
            slots.removeAll(keepingCapacity: true)
            heldBytes = 0
        }
        slots[Self.slot(body), default: []].append(Entry(codings: codings, body: Array(body), value: value))
        heldBytes += bytes
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
