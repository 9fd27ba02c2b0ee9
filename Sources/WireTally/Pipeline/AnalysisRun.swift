/// One `analyze` run: opens the capture files, reads them as one capture in timestamp order, feeds
/// the analyzer and writes every record as it completes, then the summary.
///
/// Input errors never lose records: the packets read before a truncated or corrupt part are analysed,
/// every record is written, and the errors are listed in the summary and in `errors`.
public struct AnalysisRun {
    public var files: [String]
    public var options: CaptureAnalyzer.Options
    /// Told how far reading has got every few thousand packets and once at the end.
    public var progress: ((ReadProgress) -> Void)?

    public init(files: [String], options: CaptureAnalyzer.Options = .init()) {
        self.files = files
        self.options = options
    }

    /// The outcome of a run.
    public struct Result {
        public var summary: CaptureSummary
        /// Errors met while reading (files that could not be opened, truncated or corrupt input).
        public var errors: [CaptureError]
    }

    /// Runs the analysis, handing every record and then the summary to `writer`. Problems (input
    /// errors, a filter that does not compile for a link type) end up in the summary's `errors`.
    public func run(writer: any RecordWriter) -> Result {
        var digits = 6
        let analyzer = CaptureAnalyzer(options: options) { record in
            writer.write(record, timestampDigits: digits)
        }
        let merged = MergedPacketSource(paths: files)
        digits = merged.timestampDigits
        var packets = 0
        let report = { progress?(ReadProgress(fileBytesRead: merged.fileBytesRead, fileBytesTotal: merged.fileBytesTotal, packets: packets)) }
        while true {
            do {
                guard let packet = try merged.nextPacket() else { break }
                analyzer.process(packet)
                packets += 1
                if packets % ReadProgress.packetInterval == 0 { report() }
            } catch {
                break  // the merge reports every input's failure in `failures`
            }
        }
        report()
        let errors = merged.failures.compactMap { $0 as? CaptureError }
        for error in errors { analyzer.noteError(error) }
        let summary = analyzer.finish(timestampDigits: digits)
        writer.finish(summary: summary, files: files)
        return Result(summary: summary, errors: errors)
    }
}
