import Testing
@testable import WireTally

@Suite struct TimestampTests {
    @Test func formatsMicrosecondsAndNanoseconds() {
        let ts = Timestamp(seconds: 1_700_000_000, nanoseconds: 123_456_789)
        #expect(ts.formatted(digits: 6) == "1700000000.123456")
        #expect(ts.formatted(digits: 9) == "1700000000.123456789")
        #expect(ts.formatted(digits: 0) == "1700000000")
        #expect(Timestamp(seconds: 5, nanoseconds: 1_000).formatted(digits: 6) == "5.000001")
    }

    @Test func formatsBeforeTheEpochAndClampsDigits() {
        #expect(Timestamp(nanoseconds: -1).formatted(digits: 6) == "-1.999999")
        #expect(Timestamp(nanoseconds: -1_500_000_000).formatted(digits: 3) == "-2.500")
        #expect(Timestamp(nanoseconds: 1_000_000_007).formatted(digits: 12) == "1.000000007")
        #expect(Timestamp(nanoseconds: 1_999_999_999).formatted(digits: -1) == "1")
    }

    /// Timestamps are written byte-wise; the extremes and every digit count against `String(_:)`.
    @Test func formatsTheExtremesLikeTheStandardLibrary() {
        for nanoseconds: Int64 in [0, 1, -1, 999_999_999, -999_999_999, 1_000_000_000, Int64.max, Int64.min, 1 << 62, -(1 << 62)] {
            var whole = nanoseconds / 1_000_000_000
            var fraction = nanoseconds % 1_000_000_000
            if fraction < 0 { fraction += 1_000_000_000; whole -= 1 }
            let nine = String(repeating: "0", count: 9 - String(fraction).count) + String(fraction)
            for digits in 0...9 {
                let expected = digits == 0 ? String(whole) : "\(whole).\(nine.prefix(digits))"
                #expect(Timestamp(nanoseconds: nanoseconds).formatted(digits: digits) == expected, "\(nanoseconds) \(digits)")
            }
        }
    }

    @Test func ipv4EndpointsAtTheExtremes() {
        #expect(IPAddress(ipv4: 0).endpoint(port: 0) == "0.0.0.0:0")
        #expect(IPAddress(ipv4: .max).endpoint(port: .max) == "255.255.255.255:65535")
        #expect(IPAddress(ipv4: .max).description == "255.255.255.255")
        #expect(IPAddress("10.0.99.100")?.endpoint(port: 8080) == "10.0.99.100:8080")
        #expect(IPAddress("192.168.1.9")?.description == "192.168.1.9")
    }

    @Test func ipAddressText() {
        #expect(IPAddress("10.1.2.3")?.description == "10.1.2.3")
        #expect(IPAddress("2001:db8::1")?.description == "2001:db8::1")
        #expect(IPAddress("2001:db8::1")?.endpoint(port: 80) == "[2001:db8::1]:80")
        #expect(IPAddress("fe80:0:0:1::")?.description == "fe80:0:0:1::")
    }
}
