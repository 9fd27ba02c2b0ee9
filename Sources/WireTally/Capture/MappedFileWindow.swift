import Glibc

/// A read-only memory mapping of part of a capture file, unmapped when the last holder lets it go:
/// the input reading from it, and the packet batches whose packets view its bytes.
final class MappedFileWindow {
    /// The first mapped byte.
    let base: UnsafeRawPointer
    /// Bytes mapped.
    let length: Int
    /// Where `base` lies in the file.
    let fileOffset: Int
    /// The window's place in `MappingFaultGuard`.
    private let faultSlot: UnsafeMutablePointer<MappingFaultGuard.Slot>

    /// Maps `length` bytes of the regular file `descriptor` from `fileOffset` (a multiple of the page
    /// size); nil when mmap refuses or `MappingFaultGuard` has no slot left. `populates` has the
    /// kernel map every page at once (MAP_POPULATE), not page by page as they are touched.
    init?(descriptor: Int32, fileOffset: Int, length: Int, populates: Bool) {
        let flags = MAP_PRIVATE | (populates ? MAP_POPULATE : 0)
        guard let mapped = mmap(nil, length, PROT_READ, flags, descriptor, off_t(fileOffset)), mapped != MAP_FAILED else {
            return nil
        }
        guard let slot = MappingFaultGuard.register(start: mapped, length: length) else {
            munmap(mapped, length)
            return nil
        }
        base = UnsafeRawPointer(mapped)
        self.length = length
        self.fileOffset = fileOffset
        faultSlot = slot
    }

    deinit {
        MappingFaultGuard.unregister(faultSlot)
        munmap(UnsafeMutableRawPointer(mutating: base), length)
    }

    /// True once the file was found shorter than the window while its pages were read (they then
    /// read as zeros from the first missing page on).
    var isDamaged: Bool { damageFlag.pointee }

    /// Where `isDamaged` is kept, for readers that check it at every record.
    var damageFlag: UnsafePointer<Bool> {
        UnsafeRawPointer(faultSlot).advanced(by: MemoryLayout<MappingFaultGuard.Slot>.offset(of: \.isDamaged)!)
            .assumingMemoryBound(to: Bool.self)
    }
}
