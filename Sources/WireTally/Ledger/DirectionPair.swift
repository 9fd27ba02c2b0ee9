/// One value per direction of a connection, indexed by `FlowDirection.rawValue` (0 up, 1 down) and
/// stored inline: unlike a two-element array, updating one on every packet allocates nothing and needs
/// no uniqueness check.
public struct DirectionPair<Value> {
    /// Client to server.
    public var up: Value
    /// Server to client.
    public var down: Value

    /// The values of each direction.
    public init(_ up: Value, _ down: Value) {
        self.up = up
        self.down = down
    }

    /// The value of direction `index` (`FlowDirection.rawValue`), changed in place. A plain assignment
    /// goes through `set` (inlined); `_modify`, for changes in place, is a coroutine call.
    @inline(__always)
    public subscript(index: Int) -> Value {
        get { index == 0 ? up : down }
        set { if index == 0 { up = newValue } else { down = newValue } }
        _modify {
            if index == 0 { yield &up } else { yield &down }
        }
    }

    /// What `body` reads of the value of direction `index`, the value borrowed in place. The subscript's
    /// `get` copies the whole value (retaining every reference it holds) for each field read, and a
    /// `_read` accessor is compiled as a coroutine whose frame is allocated per call: for values holding
    /// references (arrays, classes) the per-packet paths read them through this, which is inlined.
    /// On a pair stored in a class use `readInPlace`: this call copies that pair first.
    @inline(__always)
    public func read<Result>(_ index: Int, _ body: (Value) -> Result) -> Result {
        index == 0 ? body(up) : body(down)
    }

    /// What `body` reads of the value of direction `index`, for a pair stored in a class. A
    /// non-mutating call on a class's stored pair (`read`, the subscript's `get`) first copies the
    /// whole pair — both values, every reference in them retained and released — because the class's
    /// storage could change during the call; this one reaches the pair through an inout access, which
    /// works in place. `body` only reads.
    @inline(__always)
    public mutating func readInPlace<Result>(_ index: Int, _ body: (Value) -> Result) -> Result {
        index == 0 ? body(up) : body(down)
    }

    /// Changes the value of direction `index` in place with `body`. The per-packet paths use this
    /// rather than the subscript: the compiler calls the subscript's `_modify` as a coroutine (two
    /// calls per update), but inlines this.
    @inline(__always)
    public mutating func update<Result>(_ index: Int, _ body: (inout Value) -> Result) -> Result {
        index == 0 ? body(&up) : body(&down)
    }
}

extension DirectionPair: Equatable where Value: Equatable {}
extension DirectionPair: Hashable where Value: Hashable {}
extension DirectionPair: Sendable where Value: Sendable {}
