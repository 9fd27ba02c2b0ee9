/// An append-only array whose oldest elements can be discarded once nothing reads them any more: the
/// indices stay those of the whole sequence (0, 1, 2, … in append order), `startIndex` is the first
/// element kept and `endIndex` the number of elements ever appended (or the discard point, if later).
///
/// Discarded elements are freed in batches, once they make up half the storage: discarding is
/// amortised O(1) per element and the storage holds at most twice the kept elements. A connection's
/// exchanges live here, so that a long keep-alive connection keeps only those not yet reported.
package struct PrefixDiscardingArray<Element>: RandomAccessCollection {
    /// The elements from index `storageStart` on; those before `startIndex` are discarded already.
    private var storage: [Element]
    private var storageStart = 0
    /// The first element kept.
    package private(set) var startIndex = 0
    /// One past the last element.
    @inline(__always)
    package var endIndex: Int { storageStart + storage.count }

    /// All of `elements`, the first at index 0.
    package init(_ elements: [Element] = []) {
        storage = elements
    }

    /// The element at `index` (at least `startIndex`).
    @inline(__always)
    package subscript(index: Int) -> Element {
        get { storage[index - storageStart] }
        _modify { yield &storage[index - storageStart] }
    }

    /// Appends `element` at index `endIndex`.
    package mutating func append(_ element: Element) {
        storage.append(element)
    }

    /// Discards the elements before `index`; `startIndex` becomes `index` (and `endIndex` too when it
    /// lies beyond the last element: the next element appended gets index `index`).
    package mutating func discard(before index: Int) {
        guard index > startIndex else { return }
        startIndex = index
        if index >= endIndex {
            storage.removeAll(keepingCapacity: true)
            storageStart = index
        } else if (index - storageStart) * 2 >= storage.count {
            storage.removeFirst(index - storageStart)
            storageStart = index
        }
    }
}

extension PrefixDiscardingArray: Sendable where Element: Sendable {}
