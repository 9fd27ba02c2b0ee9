import ArgumentParser
import WireTally

#if canImport(Glibc)
import Glibc
#endif

@main
struct WireTallyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wiretally",
        abstract: "Exact wire bytes for every connection (and HTTP exchange) in a packet capture.",
        subcommands: [Analyze.self, Compare.self, Report.self, Live.self])
}

struct Analyze: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "analyze",
        abstract: "Reassemble every TCP connection of the capture(s) and account for every byte.",
        discussion: """
        Reads pcap and pcapng files (optionally gzip-compressed); several files are read as one \
        capture in timestamp order. Exit status: 0 all input read; 1 nothing could be analysed; \
        2 a file was truncated or corrupt (all records before the damage are written).
        """)

    @Argument(help: "Capture files (pcap, pcapng, either gzip-compressed).")
    var files: [String]

    // Every option spells out its names: without them, ArgumentParser derives each long name from the
    // property's (camel case to kebab case, a Unicode case lookup per character) each of the four times it
    // builds analyze's arguments, on every run: 1.3 M instructions of the start-up for these 18.
    @Option(name: [.customLong("filter"), .customShort("f")], help: "BPF filter (tcpdump syntax); rejected packets are counted as filtered.")
    var filter: String?

    @Option(name: .customLong("format"), help: "Output format: table, jsonl, csv or har (HAR 1.2); with --summary: table or json.")
    var format: OutputFormatArgument = .table

    @OptionGroup var keyLogAndApp: KeyLogAndAppArguments

    // --- endpoint summary (Insights)
    @Flag(name: .customLong("summary"), help: """
        Instead of the records, a summary per endpoint (method + host + path template, ids folded: \
        /users/123 → /users/{id}): requests, up/down IP bytes, share, requests per time window, and \
        flags runaway (rate keeps growing), duplicate, burst with their evidence. --format table \
        (default) prints an endpoint table with a sparkline per endpoint and an evidence line per flag; \
        --format json prints one JSON document {"endpoints":[…]}.
        """)
    var summary = false
    // --- end endpoint summary

    @Option(name: [.customLong("output"), .customShort("o")], help: "Write to this file instead of standard output.")
    var output: String?

    @Flag(name: .customLong("decode"), help: """
        Decode gzip/deflate bodies to report their decoded size (decoded_body, flags undecodable and \
        decompression_bomb). Off by default: decoding costs more than everything else together. \
        --format har and --summary decode on their own (HAR's content size and text, duplicate bodies).
        """)
    var decode = false

    @Option(name: .customLong("threads"), help: """
        1: read and analyse on one thread; 2: read (inflate .gz) and decode the packets on a second \
        thread; auto: 2 when two CPUs are online and the files hold 16 MB or more. The output \
        is the same.
        """)
    var threads: ThreadsArgument = .automatic

    @Flag(name: .customLong("connections"), help: "Table and CSV show one line per TCP or QUIC connection instead of one per HTTP exchange.")
    var connections = false

    @Option(name: .customLong("max-connections"), help: "Live TCP connections (and, separately, other flows) kept at once; the stalest is evicted beyond.")
    var maxConnections: Int = AnalysisOptions().maxConnections

    @Option(name: .customLong("max-buffered-bytes"), help: "Out-of-order bytes buffered per connection direction before a hole is declared missing.")
    var maxBufferedBytes: Int = AnalysisOptions().maxBufferedBytesPerDirection

    @Option(name: .customLong("max-buffered-bytes-total"), help: "Out-of-order bytes buffered across all connections before the connections holding the most have a hole declared missing.")
    var maxBufferedBytesTotal: Int = AnalysisOptions().maxBufferedBytesTotal

    // an Int, like the other counts: every further option value type costs ArgumentParser's start-up three
    // more run-time conformance lookups, each a scan of all the binary's conformance records
    @Option(name: .customLong("idle-timeout"), help: "Seconds without packets after which an open connection is reported.")
    var idleTimeout = Int(AnalysisOptions().idleTimeoutSeconds)

    @Flag(name: .customLong("quiet"), help: "No progress bar (it is shown on a terminal for files over a few MB).")
    var quiet = false

    @Option(name: .customLong("settle"), help: "Seconds a keep-alive connection stays idle before its last exchange is written (as live does; off by default).")
    var settle: Double?

    @Option(name: .customLong("max-header-bytes"), help: "Largest HTTP start line plus header (or trailer) block; beyond it the message is flagged headers_too_large and the rest of its direction is not parsed.")
    var maxHeaderBytes: Int = AnalysisOptions().maxHeaderBytes

    @Option(name: .customLong("max-open-requests"), help: "HTTP requests of one connection waiting for their response at once; a request beyond them and the rest of the client's direction are not parsed (connection flag too_many_open_requests).")
    var maxOpenRequests: Int = AnalysisOptions().maxOpenRequests

    @Option(name: .customLong("max-open-requests-total"), help: "HTTP requests waiting for their response at once on all connections together; past it, a connection whose request would exceed it stops like one past --max-open-requests.")
    var maxOpenRequestsTotal: Int = AnalysisOptions().maxOpenRequestsTotal

    @Option(name: .customLong("max-decoded-body-bytes"), help: "Largest decoded HTTP body counted; beyond it decoding stops and the message is flagged decompression_bomb.")
    var maxDecodedBodyBytes: Int = AnalysisOptions().maxDecodedBodyBytes

    @Option(name: .customLong("max-decoding-ratio"), help: "Decoded/encoded size ratio (checked once 1 MiB is decoded) beyond which decoding stops as a decompression_bomb.")
    var maxDecodingRatio: Int = AnalysisOptions().maxDecodingRatio

    // --- endpoint summary (Insights): checked before any output file is created
    func validate() throws {
        if summary && format.summaryFormat == nil {
            throw ValidationError("--summary prints a table or one JSON document: use --format table or --format json")
        }
        if !summary && format.summaryFormat == .json {
            throw ValidationError("--format json is the endpoint summary (--summary); records are --format jsonl")
        }
    }
    // --- end endpoint summary

    /// The analysis these flags ask for (the library's options; their defaults are the flags').
    var analysisOptions: AnalysisOptions {
        var options = AnalysisOptions(filter: filter, decodeBodies: decode, keepsExchangesForComparison: false)
        options.appName = keyLogAndApp.appName
        options.settleSeconds = settle
        options.threads = threads.count
        options.maxConnections = maxConnections
        options.maxBufferedBytesPerDirection = maxBufferedBytes
        options.maxBufferedBytesTotal = maxBufferedBytesTotal
        options.idleTimeoutSeconds = Int64(idleTimeout)
        options.maxHeaderBytes = maxHeaderBytes
        options.maxOpenRequests = maxOpenRequests
        options.maxOpenRequestsTotal = maxOpenRequestsTotal
        options.maxDecodedBodyBytes = maxDecodedBodyBytes
        options.maxDecodingRatio = maxDecodingRatio
        return options
    }

    func run() throws {
        let options = analysisOptions
        let analyzerOptions = try keyLogAndApp.analyzerOptions(options)
        let progress = ProgressDisplay(quiet: quiet)
        let result: AnalysisRun.Result
        do {
            let destination = try output.map { try TextOutput(path: $0) } ?? TextOutput()
            // --- endpoint summary (Insights)
            if summary, let summaryFormat = format.summaryFormat {
                var summaryOptions = analyzerOptions
                if summaryOptions.http.retainedBodyBytes == 0 { summaryOptions.http.retainedBodyBytes = 4096 }  // duplicate identity
                summaryOptions.http.decodeBodies = true  // duplicates are told by their decoded request bodies
                summaryOptions.http.readsResponseBodies = false  // nothing in the summary reads a response body
                result = Capture.run(
                    files: files, options: summaryOptions, threads: options.threads, progress: progress.callback,
                    writer: EndpointSummaryWriter(output: destination, format: summaryFormat))
            } else {
            // --- end endpoint summary
            result = Capture.run(
                files: files, options: format.value.analyzerOptions(analyzerOptions), threads: options.threads,
                progress: progress.callback,
                writer: format.value.makeWriter(output: destination, view: connections ? .connections : .exchanges))
            }
        } catch {
            printError("wiretally: \(error)")
            throw ExitCode(1)
        }
        progress.clear()
        try endRun(problems: result.summary.errors, summary: result.summary)
    }
}

struct Compare: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "Compare app-layer traffic estimates (built-in estimators, app logs) with the wire.",
        discussion: """
        The built-in estimators (naive, rebuilt, metrics, http) and each --app-log (HAR 1.2, curl \
        --write-out '%{json}' lines, or wiretally's JSON Lines app log) are set against the exact wire \
        bytes of every exchange; the gap is explained by cause; the endpoints are summarised with \
        runaway, duplicate and burst flags. Exit status as for analyze.
        """)

    @Argument(help: "Capture files (pcap, pcapng, either gzip-compressed).")
    var files: [String]

    @Option(name: .customLong("app-log"), help: "An app's own log to compare (repeatable).")
    var appLogs: [String] = []

    @Option(help: "Wire level to compare with: ip_bytes, frame_bytes or payload_bytes.")
    var level: WireLevelArgument = WireLevelArgument(value: .ip)

    @Option(help: "Output format: table or json.")
    var format: CompareFormat = .table

    @Option(name: .shortAndLong, help: "BPF filter (tcpdump syntax).")
    var filter: String?

    @OptionGroup var keyLogAndApp: KeyLogAndAppArguments

    @Option(name: .shortAndLong, help: "Write to this file instead of standard output.")
    var output: String?

    @Flag(help: "No progress bar (it is shown on a terminal for files over a few MB).")
    var quiet = false

    enum CompareFormat: String, ExpressibleByArgument {
        case table, json
    }

    func run() throws {
        let progress = ProgressDisplay(quiet: quiet)
        // the estimators and the endpoints' duplicates read decoded bodies
        var options = AnalysisOptions(filter: filter, decodeBodies: true, keepsExchangesForComparison: false)
        options.appName = keyLogAndApp.appName
        var comparison = CompareRun(
            files: files, appLogs: appLogs, level: level.value, options: try keyLogAndApp.analyzerOptions(options))
        comparison.progress = progress.callback
        let result = comparison.run()
        progress.clear()
        do {
            let destination = try output.map { try TextOutput(path: $0) } ?? TextOutput()
            switch format {
            case .table: destination.write(result.table(level: level.value, files: files))
            case .json: destination.write(result.json(level: level.value, files: files).serialized + "\n")
            }
            destination.flush()
        } catch {
            printError("wiretally: \(error)")
            throw ExitCode(1)
        }
        try endRun(problems: result.errors, summary: result.summary)
    }
}

/// `--threads 1|2|auto`.
enum ThreadsArgument: ExpressibleByArgument {
    case fixed(Int)
    case automatic

    init?(argument: String) {
        switch argument {
        case "auto": self = .automatic
        case "1": self = .fixed(1)
        case "2": self = .fixed(2)
        default: return nil
        }
    }

    static var allValueStrings: [String] { ["1", "2", "auto"] }
    var defaultValueDescription: String { "auto" }

    /// ``AnalysisOptions/threads``: nil chooses by the files, as `auto` does.
    var count: Int? {
        switch self {
        case let .fixed(count): count
        case .automatic: nil
        }
    }
}

struct WireLevelArgument: ExpressibleByArgument {
    let value: WireLevel
    init(value: WireLevel) { self.value = value }
    init?(argument: String) {
        guard let level = WireLevel(rawValue: argument) ?? WireLevel(rawValue: argument + "_bytes") else { return nil }
        value = level
    }
    static var allValueStrings: [String] { WireLevel.allCases.map(\.rawValue) }
    var defaultValueDescription: String { value.rawValue }
}

struct OutputFormatArgument: ExpressibleByArgument {
    let value: OutputFormat
    /// The `--summary` format this stands for (`table`, or `json`, which only `--summary` accepts).
    var summaryFormat: EndpointSummaryWriter.Format? = nil
    static let table = OutputFormatArgument(value: .table, summaryFormat: .table)

    init(value: OutputFormat, summaryFormat: EndpointSummaryWriter.Format? = nil) {
        self.value = value
        self.summaryFormat = summaryFormat
    }

    init?(argument: String) {
        if argument == "json" { value = .jsonl; summaryFormat = .json; return }  // endpoint summary only
        guard let format = OutputFormat(rawValue: argument) else { return nil }
        value = format
        summaryFormat = format == .table ? .table : nil
    }

    static var allValueStrings: [String] { OutputFormat.allCases.map(\.rawValue) + ["json"] }

    var defaultValueDescription: String { summaryFormat == .json ? "json" : value.rawValue }
}

/// Prints a run's problems (its input errors, app logs that could not be read) and ends it with the
/// documented status: 0 when there were none, 1 when the library finds that nothing could be analysed
/// (`WireTallyError.nothingAnalysed`), 2 when some input was truncated or corrupt (its records written).
func endRun(problems: [String], summary: CaptureSummary) throws {
    for problem in problems { printError("wiretally: \(problem)") }
    if problems.isEmpty { return }
    do throws(WireTallyError) {
        _ = try Summary(checking: summary, problems: problems)
    } catch {
        throw ExitCode(1)
    }
    throw ExitCode(2)
}

func printError(_ message: String) {
    writeToStandardError(message + "\n")
}

func writeToStandardError(_ text: String) {
    var text = text
    text.withUTF8 { bytes in _ = write(STDERR_FILENO, bytes.baseAddress, bytes.count) }
}
