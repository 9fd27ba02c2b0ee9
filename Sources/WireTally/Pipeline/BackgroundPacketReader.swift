#if canImport(Glibc)
import Glibc
#endif

/// Reads capture files on a thread of its own (file reading, gzip inflation, pcap/pcapng framing,
/// merging), copying the packets into batches that the calling thread takes in order with `nextBatch()`.
/// With `decodes`, it also decodes each packet (link, IP and transport headers, checksums), all but IP
/// fragments, whose reassembly stays with the calling thread's decoder.
///
/// The packets come out exactly as `source.nextPacket()` gives them; a thrown error ends the reading
/// like the end of the input (the source records it in `failures`). Read the source's `failures` only
/// after `finish()`.
final class BackgroundPacketReader: @unchecked Sendable {
    private let source: MergedPacketSource
    private let pipe: PacketBatchPipe
    private let decoder: PacketDecoder?
    private var thread = pthread_t()
    private var isRunning = false

    init(source: MergedPacketSource, decodes: Bool, batches: Int = 8) {
        self.source = source
        decoder = decodes ? PacketDecoder() : nil
        pipe = PacketBatchPipe(batches: batches)
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
        var batch = pipe.takeEmpty()
        while true {
            let next: CapturedPacket?
            do { next = try source.nextPacket() } catch { next = nil }
            guard let packet = next else { break }
            if !batch.append(packet, decoder: decoder) {
                batch.fileBytesRead = source.fileBytesRead
                pipe.send(batch)
                batch = pipe.takeEmpty()
                _ = batch.append(packet, decoder: decoder)
            }
        }
        batch.fileBytesRead = source.fileBytesRead
        if batch.slots.isEmpty { pipe.giveBack(batch) } else { pipe.send(batch) }
        pipe.close()
    }
}
