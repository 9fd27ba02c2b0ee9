import Dispatch
import Synchronization

/// Entry points of the library: analyse capture files, whole or as a stream, or a live capture.
///
/// ```swift
/// let analysis = try Capture.analyze(files: ["app.pcapng"], keyLogs: ["keys.log"])
/// for exchange in analysis.exchanges {
///     print(exchange.method ?? "-", exchange.url, exchange.wire.bytes(.down, level: .ip))
/// }
/// ```
public enum Capture {
    /// Analyses capture files (pcap, pcapng, either gzip-compressed; several are read as one capture
    /// in timestamp order) on the calling thread and returns everything found.
    ///
    /// - Parameters:
    ///   - files: paths of the capture files.
    ///   - keyLogs: TLS key logs (NSS format, as SSLKEYLOGFILE writes): the connections they have
    ///     secrets for are decrypted and their HTTP exchanges parsed. Key logs a pcapng file carries
    ///     in Decryption Secrets Blocks are used too.
    ///   - options: the filter, the limits, and what to decode and keep.
    /// - Throws: ``WireTallyError/unreadableKeyLog(path:reason:)``;
    ///   ``WireTallyError/nothingAnalysed(problems:)`` when no packet could be analysed. A file
    ///   damaged after some packets is no error: ``Summary/inputErrors`` says what was lost.
    public static func analyze(
        files: [String], keyLogs: [String] = [], options: AnalysisOptions = AnalysisOptions()
    ) throws(WireTallyError) -> Analysis {
        let analyzerOptions = try options.analyzerOptions(keyLogs: keyLogs)
        var analysis = Analysis()
        let result = run(
            files: files, options: analyzerOptions, threads: options.threads,
            writer: RecordMapper(keepsSources: options.keepsExchangesForComparison) { analysis.add($0) })
        analysis.summary = try Summary(checking: result.summary)
        return analysis
    }

    /// The records of capture files as they complete, analysed on another thread: for files too big
    /// to hold every exchange at once. The same records as ``analyze(files:keyLogs:options:)``.
    ///
    /// Set ``AnalysisOptions/keepsExchangesForComparison`` off to keep memory bounded when the
    /// exchanges are not compared.
    /// - Throws: ``WireTallyError/unreadableKeyLog(path:reason:)`` here; the stream itself ends
    ///   by throwing ``WireTallyError/nothingAnalysed(problems:)`` when no packet could be analysed.
    public static func records(
        files: [String], keyLogs: [String] = [], options: AnalysisOptions = AnalysisOptions()
    ) throws(WireTallyError) -> RecordStream {
        let analyzerOptions = try options.analyzerOptions(keyLogs: keyLogs)
        let channel = RecordChannel()
        let threads = options.threads
        let keepsSources = options.keepsExchangesForComparison
        DispatchQueue(label: "wiretally.records").async {
            let result = Capture.run(
                files: files, options: analyzerOptions, threads: threads,
                writer: RecordMapper(keepsSources: keepsSources) { channel.send($0) })
            do throws(WireTallyError) {
                channel.send(.summary(try Summary(checking: result.summary)))
                channel.finish()
            } catch {
                channel.finish(throwing: error)
            }
        }
        return RecordStream(channel: channel)
    }

    /// Captures live from a network interface (libpcap: root or `CAP_NET_RAW` needed) and analyses
    /// the packets as they come, until ``RecordStream/stop()`` is called, `durationSeconds` is over or
    /// the iteration ends. The capture is running when this returns: traffic sent afterwards is seen.
    ///
    /// Consume the stream while capturing (for example `Task { try await Analysis(collecting:
    /// stream) }`): the capture waits while records are not taken.
    /// - Parameters:
    ///   - interface: the interface name (`lo`, `eth0`…).
    ///   - keyLogs: followed as they grow (they may not exist yet): a client writes a line per
    ///     connection while the capture runs.
    ///   - options: ``AnalysisOptions/filter`` runs in the kernel; set
    ///     ``AnalysisOptions/settleSeconds`` to have a keep-alive connection's last exchange reported
    ///     while the connection stays open.
    ///   - durationSeconds: stop by itself after this long; nil: only when told.
    /// - Throws: ``WireTallyError/liveCapture(_:)`` when the capture cannot start (no right to
    ///   capture, no such interface, a bad filter).
    public static func live(
        interface: String, keyLogs: [String] = [], options: AnalysisOptions = AnalysisOptions(),
        durationSeconds: Double? = nil
    ) throws(WireTallyError) -> RecordStream {
        let analyzerOptions = options.livePipelineOptions
        let settings = LiveCapture.Settings(interface: interface, filter: options.filter)
        let channel = RecordChannel()
        let stop = StopFlag()
        let keepsSources = options.keepsExchangesForComparison
        let opened = Mutex<LiveCaptureError??>(nil)  // nil: not yet; .some(nil): capturing
        let openedSignal = DispatchSemaphore(value: 0)
        DispatchQueue(label: "wiretally.live").async {
            let capture: LiveCapture
            do throws(LiveCaptureError) {
                capture = try LiveCapture(settings)
                opened.withLock { $0 = .some(nil) }
                openedSignal.signal()
            } catch {
                opened.withLock { $0 = .some(error) }
                openedSignal.signal()
                return
            }
            let run = Capture.liveRun(capture: capture, options: analyzerOptions, keyLogs: keyLogs, durationSeconds: durationSeconds)
            let result = run.run(
                writer: RecordMapper(keepsSources: keepsSources) { channel.send($0) },
                shouldStop: { stop.isSet || channel.isCancelled })
            channel.send(.summary(Summary(result.summary)))
            channel.finish(throwing: result.error.map { WireTallyError.liveCapture($0.description) })
        }
        openedSignal.wait()
        if case let .some(.some(error)) = opened.withLock({ $0 }) { throw .liveCapture(error.description) }
        return RecordStream(channel: channel, stopRequested: stop)
    }

    /// The run of capture files behind ``analyze(files:keyLogs:options:)``,
    /// ``records(files:keyLogs:options:)`` and `wiretally analyze`: every record to `writer` as it
    /// completes, then the summary.
    /// - Parameters:
    ///   - options: `AnalysisOptions.analyzerOptions(keyLogs:skippedLines:)`, with what an output
    ///     format needs on top (the command line's HAR and endpoint summary keep bodies).
    ///   - threads: ``AnalysisOptions/threads`` (nil: as `--threads auto`).
    ///   - progress: told how far reading has got.
    package static func run(
        files: [String], options: CaptureAnalyzer.Options, threads: Int?,
        progress: ((ReadProgress) -> Void)? = nil, writer: any RecordWriter
    ) -> AnalysisRun.Result {
        var run = AnalysisRun(files: files, options: options, threads: threads ?? AnalysisRun.automaticThreads(files: files))
        run.progress = progress
        return run.run(writer: writer)
    }

    /// The live run behind ``live(interface:keyLogs:options:durationSeconds:)`` and `wiretally live`
    /// on an open capture: `options` from `AnalysisOptions.livePipelineOptions`, every key log
    /// followed as it grows (a client appends a line per connection while the capture runs).
    package static func liveRun(
        capture: LiveCapture, options: CaptureAnalyzer.Options, keyLogs: [String], durationSeconds: Double?
    ) -> LiveAnalysisRun {
        let run = LiveAnalysisRun(capture: capture, options: options, durationSeconds: durationSeconds)
        run.keyLogFollowers = keyLogs.map { KeyLogFollower(path: $0) }
        return run
    }
}
