/// The one translation of ``AnalysisOptions`` into the pipeline's options, for ``Capture`` and for the
/// command line (which adds what its output formats need on top).
extension AnalysisOptions {
    /// The pipeline's options without TLS secrets; each limit raised to the least the pipeline
    /// accepts.
    package var pipelineOptions: CaptureAnalyzer.Options {
        var limits = ReassemblyLimits()
        limits.maxConnections = max(1, maxConnections)
        limits.maxBufferedBytesPerDirection = max(0, maxBufferedBytesPerDirection)
        limits.maxBufferedBytesTotal = max(0, maxBufferedBytesTotal)
        limits.idleTimeoutSeconds = max(1, idleTimeoutSeconds)
        limits.settleNanoseconds = settleSeconds.map { Int64(max(0, $0) * 1e9) }
        var http = HTTPLimits()
        http.decodeBodies = decodeBodies
        http.maxHeaderBytes = max(1, maxHeaderBytes)
        http.maxOpenRequests = max(1, maxOpenRequests)
        http.maxOpenRequestsTotal = max(1, maxOpenRequestsTotal)
        http.maxDecodedBodyBytes = max(0, maxDecodedBodyBytes)
        http.maxDecodingRatio = max(1, maxDecodingRatio)
        var options = CaptureAnalyzer.Options(filter: filter, limits: limits, http: http)
        options.keepsReportedExchanges = keepsExchangesForComparison
        options.appName = appName
        return options
    }

    /// The pipeline's options for a live capture: the filter runs in the kernel, and the key logs are
    /// followed as they grow (`Capture.liveRun`), not read up front.
    package var livePipelineOptions: CaptureAnalyzer.Options {
        var options = pipelineOptions
        options.filter = nil
        return options
    }

    /// The pipeline's options with the secrets of `keyLogs` (none given: no store). A line a key log
    /// cannot use is skipped, and handed to `skippedLines` with its file (never its content).
    /// - Throws: ``WireTallyError/unreadableKeyLog(path:reason:)``.
    package func analyzerOptions(
        keyLogs: [String], skippedLines: (_ path: String, _ problems: [TLSKeyLog.Problem]) -> Void = { _, _ in }
    ) throws(WireTallyError) -> CaptureAnalyzer.Options {
        var options = pipelineOptions
        guard !keyLogs.isEmpty else { return options }
        let store: TLSKeyStore
        do {
            store = try TLSKeyStore.reading(files: keyLogs)
        } catch {
            switch error {
            case let .cannotOpen(path, reason): throw .unreadableKeyLog(path: path, reason: reason)
            }
        }
        for (path, problems) in zip(keyLogs, store.problems) where !problems.isEmpty { skippedLines(path, problems) }
        options.tlsKeys = store
        return options
    }
}
