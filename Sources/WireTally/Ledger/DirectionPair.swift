/// One value per direction of a connection, indexed by `FlowDirection.rawValue` (0 up, 1 down) and
/// stored inline: unlike a two-element array, updating one on every packet allocates nothing and needs
/// no uniqueness check.
public struct DirectionPair<Value> {
    public var up: Value
    public var down: Value

    public init(_ up: Value, _ down: Value) {
        self.up = up
        self.down = down
    }

    /// The value of direction `index` (`FlowDirection.rawValue`), changed in place.
    @inline(__always)
    public subscript(index: Int) -> Value {
        get { index == 0 ? up : down }
        _modify {
            if index == 0 { yield &up } else { yield &down }
        }
    }
}

extension DirectionPair: Equatable where Value: Equatable {}
extension DirectionPair: Hashable where Value: Hashable {}
extension DirectionPair: Sendable where Value: Sendable {}
