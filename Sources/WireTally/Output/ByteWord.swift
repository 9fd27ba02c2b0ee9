extension UInt64 {
    /// Non-zero exactly when one of the word's eight bytes is below `bound` (at most 128): Bit Twiddling
    /// Hacks' "determine if a word has a byte less than n" (a bound of 1 is its "has a zero byte"). A
    /// word, not a `Bool`, so that several tests are or-ed without a branch each.
    @inline(__always)
    func bytesBelow(_ bound: UInt8) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        return (self &- ones &* UInt64(bound)) & ~self & (ones &* 0x80)
    }
}
