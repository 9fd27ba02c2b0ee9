/// Gives a `CaptureInput` the buffers it reads into (`CaptureInput.lend(to:)`), so that the packets a
/// reader returns can outlive the input's next read without being copied: each buffer is read
/// through once, then handed back whole, its packets still in it. A mapped file needs no buffers:
/// the lender keeps its windows alive instead, for as long as the packets that view them are used.
protocol CaptureBufferLender: AnyObject {
    /// Takes back the buffer the input has read into until now (the lender decides how long it and
    /// the packets in it live) and gives the next one: at least `minimumCapacity` bytes, starting with
    /// a copy of `unread`, the bytes read but not consumed yet (`unread` may lie in the given buffer).
    func exchangeBuffer(unread: UnsafeRawBufferPointer, minimumCapacity: Int) -> UnsafeMutableRawBufferPointer

    /// The input reads on from `window` (the packets it returns from now on view it, the one being
    /// read may lie in it); keep it mapped for as long as they are used.
    func keepAlive(_ window: MappedFileWindow)
}
