#if canImport(Glibc)
import Glibc
#endif

/// Reads capture files on a thread of its own (file reading, gzip inflation, pcap/pcapng framing,
/// merging) into batches that the calling thread takes in order with `nextBatch()`. A single file is
/// read straight into the batches' buffers (the reader lends them to its input); packets merged from
/// several files are copied into them.
/// With `decodes`, it also decodes each packet (link, IP and transport headers, checksums), all but IP
/// fragments, whose reassembly stays with the calling thread's decoder. Either way the batches read
/// the owner each frame names while the frame is in the reader's cache (`PacketBatch`).
///
/// The packets come out exactly as `source.nextPacket()` gives them; a thrown error ends the reading
/// like the end of the input (the source records it in `failures`). Read the source's `failures` only
/// after `finish()`.
final class BackgroundPacketReader: CaptureBufferLender, @unchecked Sendable {
    private let source: MergedPacketSource
    private let pipe: BatchPipe<PacketBatch>
    private let decoder: PacketDecoder?
    private var thread = pthread_t()
    private var isRunning = false
    /// The batch the reading thread is filling (touched by that thread only, once started).
    private var filling: PacketBatch
    /// A batch whose buffer the input has read through while reading a packet, sent once that packet
    /// is returned (the source is not to be asked anything while it reads).
    private var readThrough: PacketBatch?

    /// - Parameter batches: batches in flight at most, besides those the analysing thread holds
    ///   after analysing them (`HeldPacketBatches`).
    init(source: MergedPacketSource, decodes: Bool, batches: Int = 8) {
        self.source = source
        decoder = decodes ? PacketDecoder() : nil
        pipe = BatchPipe(batches: batches + HeldPacketBatches.count, heldByConsumer: HeldPacketBatches.count)
        filling = pipe.takeEmpty()
    }

    /// What the reader's decoder counted (zero without `decodes`); read after `finish()`.
    var decoderStatistics: DecoderStatistics { decoder?.statistics ?? DecoderStatistics() }

    /// Starts the reading thread; false when no thread could be started (then nothing was read).
    func start() -> Bool {
        let context = Unmanaged.passRetained(self).toOpaque()
        let status = pthread_create(&thread, nil, { context in
            let reader = Unmanaged<BackgroundPacketReader>.fromOpaque(context!).takeRetainedValue()
            reader.readAll()
            return nil
        }, context)
        if status != 0 { Unmanaged<BackgroundPacketReader>.fromOpaque(context).release() }
        isRunning = status == 0
        return isRunning
    }

    /// The next batch of packets, nil at the end. Give it back with `done(_:)` once analysed.
    func nextBatch() -> PacketBatch? { pipe.receive() }

    /// Returns an analysed batch for reuse.
    func done(_ batch: PacketBatch) { pipe.giveBack(batch) }

    /// Waits for the reading thread to end (call after `nextBatch()` returned nil).
    func finish() {
        guard isRunning else { return }
        pthread_join(thread, nil)
        isRunning = false
    }

    private func readAll() {
        if !readSingleFileInPlace() {
            while let packet = nextPacket() {
                if !filling.append(packet, decoder: decoder) {
                    handOver()
                    _ = filling.append(packet, decoder: decoder)
                }
            }
        }
        sendReadThrough()
        if filling.slots.isEmpty { pipe.giveBack(filling) } else { send(filling) }
        pipe.close()
    }

    /// Reads the source's only file straight into the batches' buffers (the input borrows them) and
    /// its packets straight from its reader; false, having read nothing, when the source is not one
    /// pcap or pcapng file.
    private func readSingleFileInPlace() -> Bool {
        let decoder = decoder
        return source.readSingleFile(lending: self) { packet in
            // `filling` is replaced while the reader reads the packet when the input moves on to the
            // next buffer: the one read through goes to the analysing thread now
            sendReadThrough()
            filling.appendInPlace(packet, decoder: decoder)
        }
    }

    private func sendReadThrough() {
        guard let batch = readThrough else { return }
        send(batch)
        readThrough = nil
    }

    /// The source's next packet; nil at its end or on its error (which the source keeps in `failures`).
    private func nextPacket() -> CapturedPacket? {
        do { return try source.nextPacket() } catch { return nil }
    }

    /// The input has read through the filling batch's buffer: the batch is to go to the analysing
    /// thread (unless it holds no packet yet) and the next one's buffer is given.
    func exchangeBuffer(unread: UnsafeRawBufferPointer, minimumCapacity: Int) -> UnsafeMutableRawBufferPointer {
        if !filling.slots.isEmpty {
            readThrough = filling
            filling = pipe.takeEmpty()
        }
        return filling.readingBuffer(startingWith: unread, minimumCapacity: minimumCapacity)
    }

    /// Sends the filling batch to the analysing thread and takes an empty one to fill (waiting for one
    /// while all are in flight).
    private func handOver() {
        send(filling)
        filling = pipe.takeEmpty()
    }

    private func send(_ batch: PacketBatch) {
        batch.fileBytesRead = source.fileBytesRead
        pipe.send(batch)
    }
}
