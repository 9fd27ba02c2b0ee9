/// What a pcapng Interface Description Block says about the packets captured on that interface.
struct PcapNGInterface {
    /// How the interface's timestamp units convert to nanoseconds, from `if_tsresol`.
    enum Resolution: Equatable {
        /// Units of 10^-exponent seconds.
        case decimal(exponent: Int)
        /// Units of 2^-exponent seconds.
        case binary(exponent: Int)

        /// Decodes the `if_tsresol` option byte: high bit set means a power of two, else of ten.
        init(optionByte: UInt8) {
            let exponent = Int(optionByte & 0x7f)
            self = optionByte & 0x80 == 0 ? .decimal(exponent: exponent) : .binary(exponent: exponent)
        }

        /// Decimal digits of precision the timestamps have, at most 9.
        var digits: Int {
            switch self {
            case let .decimal(exponent): return min(exponent, 9)
            case let .binary(exponent):
                guard exponent < 30 else { return 9 }
                var digits = 0
                var power = 1
                while power < 1 << exponent {
                    digits += 1
                    power *= 10
                }
                return digits
            }
        }
    }

    /// The conversion from timestamp units to nanoseconds, worked out once per interface.
    private enum Scale {
        case multiply(UInt64)
        case divide(UInt64)
        case binary(shift: Int)
    }

    let linkType: LinkType
    let snaplen: Int
    let resolution: Resolution
    private let scale: Scale
    private let offsetNanoseconds: Int64

    /// An interface with `if_tsresol` `resolution` and `if_tsoffset` `offsetSeconds`.
    init(linkType: LinkType, snaplen: Int, resolution: Resolution, offsetSeconds: Int64) {
        self.linkType = linkType
        self.snaplen = snaplen
        self.resolution = resolution
        offsetNanoseconds = offsetSeconds &* 1_000_000_000
        switch resolution {
        case let .decimal(exponent) where exponent <= 9: scale = .multiply(Self.powerOfTen(9 - exponent))
        case let .decimal(exponent): scale = .divide(exponent - 9 < 20 ? Self.powerOfTen(exponent - 9) : 0)
        case let .binary(exponent): scale = .binary(shift: exponent)
        }
    }

    /// The timestamp of a packet stamped `units` in this interface's resolution.
    /// Nonsense values wrap around instead of trapping, then are clamped into
    /// `Timestamp.readableNanoseconds` so that later durations cannot overflow.
    func timestamp(units: UInt64) -> Timestamp {
        let nanoseconds: UInt64
        switch scale {
        case let .multiply(factor): nanoseconds = units &* factor
        case let .divide(divisor): nanoseconds = divisor == 0 ? 0 : units / divisor
        case let .binary(shift):
            let product = units.multipliedFullWidth(by: 1_000_000_000)
            if shift == 0 {
                nanoseconds = product.low
            } else if shift < 64 {
                nanoseconds = product.high << UInt64(64 - shift) | product.low >> UInt64(shift)
            } else {
                nanoseconds = product.high >> UInt64(shift - 64)
            }
        }
        return Timestamp(nanoseconds: Int64(bitPattern: nanoseconds) &+ offsetNanoseconds).clampedToReadable
    }

    private static func powerOfTen(_ exponent: Int) -> UInt64 {
        var result: UInt64 = 1
        for _ in 0..<exponent { result &*= 10 }
        return result
    }
}
