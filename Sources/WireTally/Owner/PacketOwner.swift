/// Which process (Apple PKTAP, Apple pcapng process blocks) or app (PCAPdroid) a captured packet
/// belongs to, as the capturing device recorded it. A plain value with inline names: reading it for
/// every packet allocates nothing (the names become `String`s once per connection, in
/// `TrafficOwner`).
public struct PacketOwner: Equatable, Sendable {
    /// What names the packet's owner.
    public enum Kind: UInt8, Sendable {
        /// The capture names no owner.
        case none
        /// A process: `id` is its pid, `name` its command name; `effectiveID`/`effectiveName` the
        /// process it acts for (Apple's delegated sockets).
        case process
        /// An Android app: `id` is its uid, `name` its name.
        case app
    }

    /// The direction the device saw the packet take.
    public enum Direction: UInt8, Sendable {
        case unknown, inbound, outbound
    }

    public var kind: Kind
    /// Pid (process) or uid (app).
    public var id: Int32
    /// The effective pid, nil when the capture gives none (Apple writes -1).
    public var effectiveID: Int32?
    public var name: InlineName
    public var effectiveName: InlineName
    /// Apple's service class (`pth_svc`, the EPB option 0x8002), nil when absent.
    public var serviceClass: UInt32?
    public var direction: Direction

    /// A packet without owner.
    public static let none = PacketOwner(kind: .none, id: 0)

    public init(
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
public struct InlineName: Equatable, Hashable, Sendable, CustomStringConvertible {
    public static let capacity = 32
    private var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    public private(set) var count: UInt8 = 0

    public init() {}

    /// The bytes of `raw` up to its first NUL, at most `capacity` of them.
    public init(_ raw: UnsafeRawBufferPointer) {
        let length = min(raw.firstIndex(of: 0) ?? raw.count, Self.capacity)
        guard length > 0, let base = raw.baseAddress else { return }
        withUnsafeMutableBytes(of: &words) { $0.baseAddress!.copyMemory(from: base, byteCount: length) }
        count = UInt8(length)
    }

    /// The UTF-8 bytes of `text` (cut at `capacity`).
    public init(_ text: String) {
        var text = text
        self = text.withUTF8 { InlineName(UnsafeRawBufferPointer($0)) }
    }

    public static func == (a: InlineName, b: InlineName) -> Bool {
        a.count == b.count && a.words.0 == b.words.0 && a.words.1 == b.words.1 && a.words.2 == b.words.2
            && a.words.3 == b.words.3
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(words.0)
        hasher.combine(words.1)
        hasher.combine(words.2)
        hasher.combine(words.3)
    }

    public var isEmpty: Bool { count == 0 }

    /// The name (invalid UTF-8 repaired).
    public var description: String {
        withUnsafeBytes(of: words) { String(decoding: $0.prefix(Int(count)), as: UTF8.self) }
    }
}
