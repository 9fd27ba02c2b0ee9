/// How far a run has read its capture files, reported now and then for a progress display.
package struct ReadProgress: Sendable, Equatable {
    /// Bytes read from the files so far (compressed bytes for gzip files).
    package var fileBytesRead: Int
    /// The files' summed sizes.
    package var fileBytesTotal: Int
    /// Packets read so far.
    package var packets: Int

    package init(fileBytesRead: Int, fileBytesTotal: Int, packets: Int) {
        self.fileBytesRead = fileBytesRead
        self.fileBytesTotal = fileBytesTotal
        self.packets = packets
    }

    /// Packets between two reports: often enough for a display refreshed a few times a second, rare
    /// enough to cost nothing.
    static let packetInterval = 4096
}
