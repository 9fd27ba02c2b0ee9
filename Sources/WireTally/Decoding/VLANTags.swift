/// The VLAN ids of a frame's 802.1Q / 802.1ad / 0x9100 tags (12-bit ids), outermost first.
/// Frames with more than two tags keep the first two.
package struct VLANTags: Hashable, Sendable, BitwiseCopyable {
    /// The first tag's VLAN id (the service tag in QinQ), nil when the frame is untagged.
    package var outer: UInt16?
    /// The second tag's VLAN id (the customer tag in QinQ), nil with fewer than two tags.
    package var inner: UInt16?

    package init(outer: UInt16? = nil, inner: UInt16? = nil) {
        self.outer = outer
        self.inner = inner
    }

    /// Records the next tag, outermost first.
    mutating func append(id: UInt16) {
        if outer == nil { outer = id } else if inner == nil { inner = id }
    }
}
