import Testing
@testable import WireTally

@Suite struct PcapNGInterfaceTests {
    static func interface(_ tsresol: UInt8, offsetSeconds: Int64 = 0) -> PcapNGInterface {
        PcapNGInterface(linkType: .ethernet, snaplen: 0, resolution: .init(optionByte: tsresol), offsetSeconds: offsetSeconds)
    }

    @Test func decimalResolutions() {
        #expect(Self.interface(6).timestamp(units: 1_500_000).nanoseconds == 1_500_000_000)
        #expect(Self.interface(9).timestamp(units: 7).nanoseconds == 7)
        #expect(Self.interface(0).timestamp(units: 2).nanoseconds == 2_000_000_000)
        #expect(Self.interface(12).timestamp(units: 5_000_999).nanoseconds == 5_000) // picoseconds, rounded down
        #expect(Self.interface(12).resolution.digits == 9)
        #expect(Self.interface(3).resolution.digits == 3)
    }

    @Test func binaryResolutions() {
        #expect(Self.interface(0x80 | 10).timestamp(units: 1024 + 512).nanoseconds == 1_500_000_000)
        #expect(Self.interface(0x80).timestamp(units: 3).nanoseconds == 3_000_000_000)
        #expect(Self.interface(0x80 | 64).timestamp(units: UInt64(1) << 63).nanoseconds == 500_000_000)
        #expect(Self.interface(0x80 | 10).resolution.digits == 4) // 1/1024 s needs 4 decimals
        #expect(Self.interface(0x80 | 30).resolution.digits == 9)
    }

    @Test func offsetIsAddedAndNonsenseDoesNotTrap() {
        #expect(Self.interface(6, offsetSeconds: -10).timestamp(units: 11_000_000).nanoseconds == 1_000_000_000)
        _ = Self.interface(0).timestamp(units: .max)
        _ = Self.interface(0x80 | 127).timestamp(units: .max)
        _ = Self.interface(127).timestamp(units: .max)
    }
}
