/// The timestamp unit a capture writer records.
package enum TimestampPrecision: Sendable {
    case microseconds
    case nanoseconds

    /// Nanoseconds per unit.
    var nanosecondsPerUnit: Int64 { self == .microseconds ? 1000 : 1 }

    /// Decimal digits of the unit (6 or 9).
    var digits: Int { self == .microseconds ? 6 : 9 }

    /// `timestamp` as whole seconds and units of this precision (rounded down).
    func split(_ timestamp: Timestamp) -> (seconds: Int64, fraction: Int64) {
        let units = floorDivide(timestamp.nanoseconds, nanosecondsPerUnit)
        let unitsPerSecond = 1_000_000_000 / nanosecondsPerUnit
        let seconds = floorDivide(units, unitsPerSecond)
        return (seconds, units - seconds * unitsPerSecond)
    }

    /// `timestamp` counted in units of this precision since the epoch (rounded down).
    func units(_ timestamp: Timestamp) -> Int64 { floorDivide(timestamp.nanoseconds, nanosecondsPerUnit) }

    private func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        let quotient = value / divisor
        return value % divisor < 0 ? quotient - 1 : quotient
    }
}
