/// Gives a `CaptureInput` the buffers it reads into (`CaptureInput.lend(to:)`), so that the packets a
/// reader returns can outlive the input's next read without being copied: each buffer is read
/// through once, then handed back whole, its packets still in it.
protocol CaptureBufferLender: AnyObject {
    /// Takes back the buffer the input has read into until now (the lender decides how long it and
    /// the packets in it live) and gives the next one: at least `minimumCapacity` bytes, starting with
    /// a copy of `unread`, the bytes read but not consumed yet (`unread` may lie in the given buffer).
    func exchangeBuffer(unread: UnsafeRawBufferPointer, minimumCapacity: Int) -> UnsafeMutableRawBufferPointer
}
