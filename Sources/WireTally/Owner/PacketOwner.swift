/// Which process (Apple PKTAP, Apple pcapng process blocks) or app (PCAPdroid) a captured packet
/// belongs to, as the capturing device recorded it. A plain value with inline names: reading it for
/// every packet allocates nothing (the names become `String`s once per connection, in
/// `TrafficOwner`).
package struct PacketOwner: Equatable, Sendable {
    /// What names the packet's owner.
    package enum Kind: UInt8, Sendable {
        /// The capture names no owner.
        case none
        /// A process: `id` is its pid, `name` its command name; `effectiveID`/`effectiveName` the
        /// process it acts for (Apple's delegated sockets).
        case process
        /// An Android app: `id` is its uid, `name` its name.
        case app
    }

    /// The direction the device saw the packet take.
    package enum Direction: UInt8, Sendable {
        case unknown, inbound, outbound
    }

    package var kind: Kind
    /// Pid (process) or uid (app).
    package var id: Int32
    /// The effective pid, nil when the capture gives none (Apple writes -1).
    package var effectiveID: Int32?
    package var name: InlineName
    package var effectiveName: InlineName
    /// Apple's service class (`pth_svc`, the EPB option 0x8002), nil when absent.
    package var serviceClass: UInt32?
    package var direction: Direction

    /// A packet without owner.
    package static let none = PacketOwner(kind: .none, id: 0)

    package init(
        kind: Kind, id: Int32, name: InlineName = InlineName(), effectiveID: Int32? = nil,
        effectiveName: InlineName = InlineName(), serviceClass: UInt32? = nil, direction: Direction = .unknown
    ) {
        self.kind = kind
        self.id = id
        self.name = name
        self.effectiveID = effectiveID
        self.effectiveName = effectiveName
        self.serviceClass = serviceClass
        self.direction = direction
    }

    /// True when another packet's origin names the same owner (direction and service class may differ
    /// between the packets of one connection).
    @inline(__always)
    func namesSameOwner(as other: PacketOwner) -> Bool {
        kind == other.kind && id == other.id && name == other.name && effectiveID == other.effectiveID
            && effectiveName == other.effectiveName
    }

    /// True when `name` equals the process name, the effective process name or the app name.
    func matches(name wanted: InlineName) -> Bool {
        kind != .none && (name == wanted || (kind == .process && effectiveName == wanted))
    }
}

/// A name of at most `capacity` bytes kept inline (no allocation), as the capture formats store
/// them: Apple's command names have 16 bytes at most (`MAXCOMLEN`), PCAPdroid's app names 20.
/// Longer names are cut at `capacity` bytes.
package struct InlineName: Equatable, Hashable, Sendable, CustomStringConvertible {
    package static let capacity = 32
    private var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    package private(set) var count: UInt8 = 0

    package init() {}

    /// The bytes of `raw` up to its first NUL, at most `capacity` of them.
    package init(_ raw: UnsafeRawBufferPointer) {
        let length = min(raw.firstIndex(of: 0) ?? raw.count, Self.capacity)
        guard length > 0, let base = raw.baseAddress else { return }
        withUnsafeMutableBytes(of: &words) { $0.baseAddress!.copyMemory(from: base, byteCount: length) }
        count = UInt8(length)
    }

    /// The UTF-8 bytes of `text` (cut at `capacity`).
    package init(_ text: String) {
        var text = text
        self = text.withUTF8 { InlineName(UnsafeRawBufferPointer($0)) }
    }

    package static func == (a: InlineName, b: InlineName) -> Bool {
        a.count == b.count && a.words.0 == b.words.0 && a.words.1 == b.words.1 && a.words.2 == b.words.2
            && a.words.3 == b.words.3
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(words.0)
        hasher.combine(words.1)
        hasher.combine(words.2)
        hasher.combine(words.3)
    }

    package var isEmpty: Bool { count == 0 }

    /// The name (invalid UTF-8 repaired).
    package var description: String {
        withUnsafeBytes(of: words) { String(decoding: $0.prefix(Int(count)), as: UTF8.self) }
    }
}
