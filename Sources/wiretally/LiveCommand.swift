import ArgumentParser
import Synchronization
import WireTally

#if canImport(Glibc)
import Glibc
#endif

struct Live: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "live",
        abstract: "Capture on a network interface and write each HTTP exchange as soon as it completes.",
        discussion: """
        Needs the right to capture: run with sudo, or give the binary the capabilities once with \
        `sudo setcap cap_net_raw,cap_net_admin=eip $(which wiretally)`. Ctrl-C (SIGINT), SIGTERM or \
        --duration stop it cleanly: open exchanges are written as incomplete records, then the \
        summary; -w's raw file is closed valid. A second Ctrl-C exits at once. An exchange's record \
        is written once its response is complete, acknowledged, and the next request began — or the \
        connection stayed idle --settle seconds. `wiretally analyze RAW.pcapng --settle S` on the \
        -w file gives the same records. Exit status: 0 stopped cleanly; 1 the capture could not \
        start (no permission, no such interface, bad filter, output not writable); 2 the capture \
        or the raw file failed on the way (records up to there are written).
        """)

    @Option(name: .shortAndLong, help: "The interface to capture on (-D lists them).")
    var interface: String?

    @Flag(name: [.customShort("D"), .customLong("list-interfaces")], help: "List the interfaces that can be captured on.")
    var listInterfaces = false

    @Option(name: .shortAndLong, help: "BPF filter (tcpdump syntax), applied in the kernel.")
    var filter: String?

    @Option(help: "Output format: table, jsonl or har (HAR is one document, written when the capture stops).")
    var format: Format = .table

    @OptionGroup var keyLogAndApp: KeyLogAndAppArguments

    enum Format: String, ExpressibleByArgument {
        case table, jsonl, har
        var value: OutputFormat { OutputFormat(rawValue: rawValue) ?? .table }
    }

    @Option(name: .shortAndLong, help: "Write the records to this file instead of standard output.")
    var output: String?

    @Option(help: "Stop after this many seconds.")
    var duration: Double?

    @Option(name: .customShort("w"), help: "Also write every captured packet to this pcapng file.")
    var raw: String?

    @Option(help: "Seconds a keep-alive connection stays idle before its last exchange is written.")
    var settle: Double = 2

    @Option(help: "Bytes kept of each packet.")
    var snaplen: Int32 = 262_144

    @Flag(help: "Decode gzip/deflate bodies to report their decoded size (as analyze --decode; HAR decodes on its own).")
    var decode = false

    @Flag(help: "Put the interface in promiscuous mode.")
    var promiscuous = false

    func validate() throws {
        if !listInterfaces && interface == nil { throw ValidationError("give the interface with -i (-D lists them)") }
        if settle < 0 || (duration ?? 0) < 0 { throw ValidationError("--settle and --duration take seconds ≥ 0") }
        if snaplen <= 0 { throw ValidationError("--snaplen must be positive") }
    }

    /// The analysis these flags ask for (the library's options).
    var analysisOptions: AnalysisOptions {
        var options = AnalysisOptions(filter: filter, decodeBodies: decode, keepsExchangesForComparison: false)
        options.appName = keyLogAndApp.appName
        options.settleSeconds = settle
        return options
    }

    func run() throws {
        if listInterfaces { return try list() }
        var settings = LiveCapture.Settings(interface: interface ?? "", filter: filter)
        settings.snaplen = snaplen
        settings.promiscuous = promiscuous
        let capture: LiveCapture
        let destination: TextOutput
        var rawWriter: PcapNGWriter?
        do {
            capture = try LiveCapture(settings)
            destination = try output.map { try TextOutput(path: $0) } ?? TextOutput()
            if let raw { rawWriter = try PcapNGWriter(destination: .file(path: raw)) }
        } catch {
            printError("wiretally: \(error)")
            throw ExitCode(1)
        }
        if let warning = capture.activationWarning { printError("wiretally: warning: \(warning)") }
        printError("wiretally: listening on \(settings.interface), link-type \(capture.linkType), snapshot length \(snaplen) bytes")

        // Live, every --keylog file is followed: a browser or curl appends a line per connection.
        let run = Capture.liveRun(
            capture: capture, options: format.value.analyzerOptions(analysisOptions.livePipelineOptions),
            keyLogs: keyLogAndApp.keyLogFiles, durationSeconds: duration)
        run.raw = rawWriter
        let statusLine = isatty(STDERR_FILENO) == 1 ? StatusLine() : nil
        installStopHandlers()
        let writer = format.value.makeWriter(output: destination)
        let result = run.run(
            writer: writer, written: { writer.flush() },
            shouldStop: { stopSignals.load(ordering: .relaxed) > 0 },
            status: statusLine.map { line in { line.show($0) } })
        statusLine?.clear()

        let kernel = result.kernel
        var counts = "\(result.summary.read.packets) packets captured, \(kernel.received) received by filter, "
        counts += "\(kernel.dropped) dropped by kernel"
        if kernel.interfaceDropped > 0 { counts += ", \(kernel.interfaceDropped) dropped by interface" }
        printError("wiretally: " + counts)
        if let error = result.error { printError("wiretally: \(error)") }
        if let error = result.rawError { printError("wiretally: raw capture: \(error)") }
        if result.error != nil || result.rawError != nil { throw ExitCode(2) }
    }

    private func list() throws {
        do {
            let interfaces = try NetworkInterface.all()
            let output = TextOutput()
            for (index, interface) in interfaces.enumerated() { output.write(interface.listing(number: index + 1) + "\n") }
            output.flush()
        } catch {
            printError("wiretally: \(error)")
            throw ExitCode(1)
        }
    }
}

/// SIGINT/SIGTERM received so far: the first stops the capture loop, a second exits at once.
private let stopSignals = Atomic<Int>(0)

private func installStopHandlers() {
    var action = sigaction()
    action.__sigaction_handler.sa_handler = { _ in
        if stopSignals.wrappingAdd(1, ordering: .relaxed).newValue > 1 { _exit(130) }
    }
    sigemptyset(&action.sa_mask)
    sigaction(SIGINT, &action, nil)
    sigaction(SIGTERM, &action, nil)
    // A parent may have blocked them (the mask is inherited): unblock, or they would stay pending.
    var signals = sigset_t()
    sigemptyset(&signals)
    sigaddset(&signals, SIGINT)
    sigaddset(&signals, SIGTERM)
    sigprocmask(SIG_UNBLOCK, &signals, nil)
}

/// The status line on a terminal's standard error, rewritten in place.
private final class StatusLine {
    private var width = 0

    func show(_ status: LiveAnalysisRun.Status) {
        var text = "\(Int(status.elapsedSeconds))s"
        text += "  \(status.packets) packets  \(Self.bytes(status.frameBytes))"
        text += "  connections \(status.openConnections) open / \(status.finishedConnections) done"
        text += "  \(status.exchanges) exchanges  \(status.kernel.dropped + status.kernel.interfaceDropped) dropped"
        let padding = String(repeating: " ", count: max(0, width - text.count))
        width = text.count
        writeToStandardError("\r" + text + padding)
    }

    func clear() {
        guard width > 0 else { return }
        writeToStandardError("\r" + String(repeating: " ", count: width) + "\r")
    }

    private static func bytes(_ count: Int) -> String {
        if count < 10_000 { return "\(count) B" }
        if count < 10_000_000 { return "\(count / 1000) kB" }
        return "\(count / 1_000_000) MB"
    }
}
