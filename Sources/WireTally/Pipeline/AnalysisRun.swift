/// One `analyze` run: opens the capture files, reads them as one capture in timestamp order, feeds
/// the analyzer and writes every record as it completes, then the summary.
///
/// Input errors never lose records: the packets read before a truncated or corrupt part are analysed,
/// every record is written, and the errors are listed in the summary and in `errors`.
package struct AnalysisRun {
    package var files: [String]
    package var options: CaptureAnalyzer.Options
    /// Told how far reading has got every few thousand packets and once at the end.
    package var progress: ((ReadProgress) -> Void)?
    /// 1: everything on the calling thread. 2: the files are read (and gzip inflated, framed, merged)
    /// and the packets decoded on a second thread while the calling thread analyses, and the records
    /// are encoded and written on a third when the writer allows it (`OffThreadRecordWriter`: JSON
    /// Lines, CSV, table, the endpoint summary); the output is the same.
    package var threads: Int

    package init(files: [String], options: CaptureAnalyzer.Options = .init(), threads: Int = 1) {
        self.files = files
        self.options = options
        self.threads = threads
    }

    /// `options`, with the TLS key logs the files carry in pcapng Decryption Secrets Blocks (wherever
    /// they are in the file: found by a scan of the block headers before the packets are read) added
    /// after the given ones. A file the scan cannot read is left to the packet reader to report.
    func optionsWithCaptureSecrets() -> CaptureAnalyzer.Options {
        let logs = files.compactMap { try? DecryptionSecretsScan(path: $0) }.filter { !$0.tlsKeyLogs.isEmpty }.map(\.tlsKeyLog)
        guard !logs.isEmpty else { return options }
        var options = options
        options.tlsKeys = TLSKeyStore((options.tlsKeys?.snapshot ?? []) + logs)  // the caller's store unchanged
        return options
    }

    /// The outcome of a run.
    package struct Result {
        package var summary: CaptureSummary
        /// Errors met while reading (files that could not be opened, truncated or corrupt input).
        package var errors: [CaptureError]
    }

    /// Runs the analysis, handing every record and then the summary to `writer`. Problems (input
    /// errors, a filter that does not compile for a link type) end up in the summary's `errors`.
    package func run(writer: any RecordWriter) -> Result {
        var digits = 6
        // with more than one thread, records are encoded and written on a thread of their own when the
        // writer allows it
        let stage = threads > 1 ? (writer as? any OffThreadRecordWriter).flatMap { BackgroundRecordWriter(writer: $0) } : nil
        let analyzer = CaptureAnalyzer(options: optionsWithCaptureSecrets()) { record in
            if let stage { stage.write(consume record, timestampDigits: digits) } else { writer.write(record, timestampDigits: digits) }
        }
        let merged = MergedPacketSource(paths: files)
        digits = merged.timestampDigits
        var packets = 0
        let total = merged.fileBytesTotal
        let report = { (read: Int) in progress?(ReadProgress(fileBytesRead: read, fileBytesTotal: total, packets: packets)) }
        // the reader thread decodes too, unless a filter (-f, --app) must see each packet before it is
        // decoded
        let filters = options.filter != nil || options.appName != nil
        let reader = threads > 1 ? BackgroundPacketReader(source: merged, decodes: !filters) : nil
        if let reader, reader.start() {
            var held = HeldPacketBatches(memory: analyzer.lentPacketMemory, reader: reader)
            while let batch = reader.nextBatch() {
                held.analysing(batch)
                // through a pointer to each slot: `for slot in batch.slots` copies every slot, decoded
                // packet included, and so did `slots[index]` read for its three fields
                batch.forEachSlot { analyzer.process($0) }
                packets += batch.slots.count
                report(batch.fileBytesRead)
                held.analysed(batch)
            }
            held.giveBackAll()
            reader.finish()
            analyzer.addDecoderStatistics(reader.decoderStatistics)
        } else {
            let analyse = { (packet: consuming CapturedPacket) in
                analyzer.process(packet)
                packets += 1
                if packets % ReadProgress.packetInterval == 0 { report(merged.fileBytesRead) }
            }
            // one file is read straight from its reader, not through the merge (`readSingleFile`), into
            // buffers lent to the histories of delivered bytes
            let buffers = HeldReadBuffers(memory: analyzer.lentPacketMemory)
            if !merged.readSingleFile(lending: buffers, analyse) {
                // the merge reports every input's failure in `failures`
                while let packet = try? merged.nextPacket() { analyse(packet) }
            }
            buffers.reclaimAll()
        }
        report(merged.fileBytesRead)
        let errors = merged.failures.compactMap { $0 as? CaptureError }
        for error in errors { analyzer.noteError(error) }
        let summary = analyzer.finish(timestampDigits: digits)
        if let stage { stage.finish(summary: summary, files: files) } else { writer.finish(summary: summary, files: files) }
        return Result(summary: summary, errors: errors)
    }
}
