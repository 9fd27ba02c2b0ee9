#if canImport(Glibc)
import Glibc
#endif

/// One `live` run: reads packets from a live capture until told to stop (or the duration is over),
/// optionally writes them raw to a pcapng file, feeds the analyzer and hands every record to the
/// writer as it completes; then flushes open connections as incomplete records and writes the summary.
///
/// The records equal those of an offline `analyze` of the raw file with the same options: the only
/// live-specific input, the wall clock that lets idle connections settle while no packet comes, seals
/// exactly what the connection's next packet would have sealed first.
package final class LiveAnalysisRun {
    /// What is shown on the status line.
    package struct Status: Sendable {
        package var elapsedSeconds: Double
        package var packets: Int
        package var frameBytes: Int
        package var openConnections: Int
        package var finishedConnections: Int
        package var exchanges: Int
        package var kernel: LiveCapture.Statistics
    }

    /// The outcome of a run.
    package struct Result {
        package var summary: CaptureSummary
        /// The kernel's counters at the end.
        package var kernel: LiveCapture.Statistics
        /// An error that ended the capture early (records up to it are written).
        package var error: LiveCaptureError?
        /// The raw file could not be written completely.
        package var rawError: CaptureError?
    }

    package let capture: LiveCapture
    package var options: CaptureAnalyzer.Options
    /// Raw packets are written here (nanosecond timestamps) when set.
    package var raw: PcapNGWriter?
    /// Stop after this many seconds.
    package var durationSeconds: Double?
    /// Seconds between status reports.
    package var statusInterval: Double = 2
    /// Key log files followed while capturing (`live --keylog`): their lines are read as they are
    /// appended (every few milliseconds while packets come, and at every read timeout), decrypt the
    /// connections they have secrets for, and are written to the raw file as Decryption Secrets Blocks.
    package var keyLogFollowers: [KeyLogFollower] = []
    /// Nanoseconds between two looks at the followed key logs while packets come.
    static let keyLogPollNanoseconds: Int64 = 5_000_000

    package init(capture: LiveCapture, options: CaptureAnalyzer.Options, raw: PcapNGWriter? = nil, durationSeconds: Double? = nil) {
        self.capture = capture
        self.options = options
        self.raw = raw
        self.durationSeconds = durationSeconds
    }

    /// Captures until `shouldStop` returns true (checked after every packet and at least every read
    /// timeout) or the duration is over.
    /// - Parameters:
    ///   - writer: receives every record as it completes, then the summary.
    ///   - written: called after each record was handed to `writer` (to flush the output).
    ///   - shouldStop: asked after every packet and read timeout; true ends the capture.
    ///   - status: called every `statusInterval` seconds, when given.
    package func run(
        writer: any RecordWriter, written: @escaping () -> Void = {}, shouldStop: () -> Bool,
        status: ((Status) -> Void)? = nil
    ) -> Result {
        let digits = 9
        var options = self.options
        var rawError: CaptureError?
        // The followed logs join the store after the given ones; the store grows as they do.
        let givenLogs = options.tlsKeys?.snapshot ?? []
        let store = keyLogFollowers.isEmpty ? options.tlsKeys
            : TLSKeyStore(givenLogs + keyLogFollowers.map { _ in TLSKeyLog() }, growing: true)
        options.tlsKeys = store
        var lastKeyLogPoll: Int64 = 0
        func pollKeyLogs(_ now: Timestamp) {
            guard let store, !keyLogFollowers.isEmpty else { return }
            lastKeyLogPoll = now.nanoseconds
            for (index, follower) in keyLogFollowers.enumerated() {
                guard let lines = try? follower.poll(), !lines.isEmpty else { continue }
                let log = follower.keyLog
                store.update(givenLogs.count + index) { $0 = log }
                if let raw, rawError == nil {
                    do { try raw.writeDecryptionSecrets(tlsKeyLog: lines) } catch { rawError = error }
                }
            }
        }
        let analyzer = CaptureAnalyzer(options: options) { record in
            writer.write(record, timestampDigits: digits)
            written()
        }
        let started = Self.wallClock()
        var nextStatus = started.nanoseconds + Int64(statusInterval * 1e9)
        let deadline = durationSeconds.map { started.nanoseconds + Int64($0 * 1e9) }
        var captureError: LiveCaptureError?
        pollKeyLogs(started)
        while !shouldStop() {
            let now = Self.wallClock()
            if let deadline, now.nanoseconds >= deadline { break }
            if !keyLogFollowers.isEmpty, now.nanoseconds - lastKeyLogPoll >= Self.keyLogPollNanoseconds { pollKeyLogs(now) }
            let event: LiveCapture.Event
            do {
                event = try capture.next()
            } catch {
                captureError = error
                break
            }
            switch event {
            case let .packet(packet):
                if let raw, rawError == nil {
                    do { try raw.write(packet, precision: .nanoseconds) } catch { rawError = error }
                }
                analyzer.process(packet)
            case .timeout:
                pollKeyLogs(Self.wallClock())
                analyzer.advanceClock(to: Self.wallClock())
                if let raw, rawError == nil {
                    do { try raw.flush() } catch { rawError = error }
                }
            }
            if let status, now.nanoseconds >= nextStatus {
                nextStatus = now.nanoseconds + Int64(statusInterval * 1e9)
                status(currentStatus(analyzer, since: started, now: now))
            }
        }
        let kernel = capture.statistics()
        pollKeyLogs(Self.wallClock())  // the last lines, for the raw file
        let summary = analyzer.finish(timestampDigits: digits)
        writer.finish(summary: summary, files: [capture.settings.interface])
        written()
        if let raw, rawError == nil {
            do { try raw.close() } catch { rawError = error }
        }
        return Result(summary: summary, kernel: kernel, error: captureError, rawError: rawError)
    }

    private func currentStatus(_ analyzer: CaptureAnalyzer, since started: Timestamp, now: Timestamp) -> Status {
        let summary = analyzer.summary
        return Status(
            elapsedSeconds: Double(now.nanoseconds - started.nanoseconds) / 1e9, packets: summary.read.packets,
            frameBytes: summary.read.frameBytes, openConnections: analyzer.openConnections,
            finishedConnections: summary.connections, exchanges: summary.exchanges, kernel: capture.statistics())
    }

    /// The wall clock, on the same scale as the kernel's packet timestamps.
    static func wallClock() -> Timestamp {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Timestamp(seconds: Int64(time.tv_sec), nanoseconds: Int64(time.tv_nsec))
    }
}
