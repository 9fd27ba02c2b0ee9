import Glibc

/// Several capture files read as one capture, in timestamp order.
///
/// Packets from all inputs come out ordered by timestamp (ties go to the earlier input), numbered
/// 1, 2, 3… in that order, with `fileIndex` set to the input's position in the list given to `init`.
/// With a single input, packets pass straight through.
///
/// Errors: an input that fails (cannot be opened, truncated, malformed…) stops being read, and the
/// others go on being merged, so every good packet of every input is returned. Each failure is
/// appended to `failures` when it happens (so open failures are visible right after `init`). Once
/// all inputs are drained, `nextPacket()` throws the first failure, once; after that it returns nil.
package final class MergedPacketSource: PacketSource {
    /// What went wrong in each failed input, in the order the failures happened.
    package private(set) var failures: [any Error] = []
    /// The summed sizes of the files given to `init(paths:)` (0 for sources given directly): what
    /// `fileBytesRead` reaches at the end.
    package private(set) var fileBytesTotal = 0

    private struct Input {
        var source: any PacketSource
        var fileIndex: Int
        var head: CapturedPacket?
        var isFinished = false
    }

    /// The inputs, in a buffer the source owns rather than an array: the packet path reads and
    /// advances an input without the array's uniqueness and bounds checks (a one-file capture went
    /// through them for every packet).
    private let inputs: UnsafeMutableBufferPointer<Input>
    private var isPrimed = false
    private var lastReturnedInput: Int?
    private var frameCount = 0
    private var hasThrownFailure = false

    /// Merges `sources`; packets from `sources[i]` get `fileIndex` i.
    package init(sources: [any PacketSource]) {
        inputs = .allocate(capacity: sources.count)
        _ = inputs.initialize(from: sources.enumerated().map { Input(source: $1, fileIndex: $0) })
    }

    deinit {
        inputs.deinitialize()
        inputs.deallocate()
    }

    /// Opens and merges the capture files at `paths` (see `CaptureFile.open`); packets from
    /// `paths[i]` get `fileIndex` i. A file that cannot be opened is recorded in `failures`.
    package convenience init(paths: [String]) {
        var sources: [(Int, any PacketSource)] = []
        var openFailures: [any Error] = []
        for (index, path) in paths.enumerated() {
            do {
                sources.append((index, try CaptureFile.open(path: path, fileIndex: index)))
            } catch {
                openFailures.append(error)
            }
        }
        self.init(sources: sources.map(\.1))
        for position in inputs.indices { inputs[position].fileIndex = sources[position].0 }
        failures = openFailures
        fileBytesTotal = Self.fileBytes(of: paths)
    }

    /// The sizes of the files at `paths` added up (0 for a file that cannot be examined).
    static func fileBytes(of paths: [String]) -> Int {
        paths.reduce(0) { total, path in
            var status = stat()
            return total + (stat(path, &status) == 0 ? Int(status.st_size) : 0)
        }
    }

    /// Bytes read so far from all the files.
    package var fileBytesRead: Int {
        inputs.reduce(0) { $0 + $1.source.fileBytesRead }
    }

    /// The finest timestamp precision among the inputs.
    package var timestampDigits: Int {
        var digits = 0
        for input in inputs { digits = max(digits, input.source.timestampDigits) }
        return digits
    }

    package func nextPacket() throws -> CapturedPacket? {
        if inputs.count == 1 {
            // Numbered in place: the packet is not copied on its way through (bound out of the
            // optional, not changed inside it: that copied it, retaining its owner, at the return).
            guard var packet = pull(0) else { return try endOfInput() }
            frameCount += 1
            packet.frameNumber = frameCount
            return packet
        }
        if !isPrimed {
            for position in inputs.indices { inputs[position].head = pull(position) }
            isPrimed = true
        } else if let previous = lastReturnedInput {
            inputs[previous].head = pull(previous)
        }
        var earliest: (position: Int, timestamp: Timestamp)?
        for position in inputs.indices {
            guard let head = inputs[position].head else { continue }
            if earliest.map({ head.timestamp < $0.timestamp }) ?? true {
                earliest = (position, head.timestamp)
            }
        }
        lastReturnedInput = earliest?.position
        return try numbered(earliest.flatMap { inputs[$0.position].head }) ?? endOfInput()
    }

    /// When the source reads exactly one pcap or pcapng file: reads it into the buffers `lender`
    /// gives (`CaptureInput.lend(to:)`) to its end or its failure (kept in `failures`), handing `body`
    /// each packet as `nextPacket()` would give it, and returns true. Otherwise returns false, having
    /// read nothing. The file's reader is called directly, not through the merge and the
    /// `PacketSource` existential: each packet of a one-file capture went through three calls and as
    /// many copies of itself on its way out. Call it instead of `nextPacket()`, not after it.
    func readSingleFile(lending lender: any CaptureBufferLender, _ body: (consuming CapturedPacket) -> Void) -> Bool {
        guard inputs.count == 1 else { return false }
        switch inputs[0].source {
        case let reader as PcapReader: readOnly(reader, lending: lender, body)
        case let reader as PcapNGReader: readOnly(reader, lending: lender, body)
        default: return false
        }
        return true
    }

    /// `readSingleFile` with the concrete reader of the only input.
    private func readOnly(
        _ reader: some CaptureFileReader, lending lender: any CaptureBufferLender,
        _ body: (consuming CapturedPacket) -> Void
    ) {
        reader.input.lend(to: lender)
        var reader = reader
        while let packet = numbered(next(position: 0, reading: { try reader.nextPacket() })) { body(packet) }
    }

    /// The next packet of input `position`, or nil when it is finished or has just failed.
    private func pull(_ position: Int) -> CapturedPacket? {
        guard !inputs[position].isFinished else { return nil }
        return next(position: position, reading: { try inputs[position].source.nextPacket() })
    }

    /// The packet `read` reads from input `position`; nil at the input's end or failure (then the
    /// input is finished, the failure kept).
    @inline(__always)
    private func next(position: Int, reading read: () throws -> CapturedPacket?) -> CapturedPacket? {
        do {
            if var packet = try read() {
                packet.fileIndex = inputs[position].fileIndex
                return packet
            }
        } catch {
            failures.append(error)
        }
        inputs[position].isFinished = true
        return nil
    }

    private func numbered(_ packet: CapturedPacket?) -> CapturedPacket? {
        guard var packet else { return nil }
        frameCount += 1
        packet.frameNumber = frameCount
        return packet
    }

    /// Called when every input is drained: throws the first failure once, else returns nil.
    private func endOfInput() throws -> CapturedPacket? {
        if let failure = failures.first, !hasThrownFailure {
            hasThrownFailure = true
            throw failure
        }
        return nil
    }
}
