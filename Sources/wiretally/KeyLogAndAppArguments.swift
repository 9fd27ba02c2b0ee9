import ArgumentParser
import WireTally

/// `--keylog FILE` (repeatable): TLS session secrets for decrypting HTTPS; `--app NAME`: keep one
/// process's or app's traffic, for captures that name them. One option group for the two, which every
/// command takes: each group type costs ArgumentParser's start-up five more first-time run-time
/// conformance lookups (each a scan of all the binary's conformance records) and a reflection of its
/// properties each time a command's arguments are built.
struct KeyLogAndAppArguments: ParsableArguments {
    @Option(name: .customLong("keylog"), help: ArgumentHelp("""
        A TLS key log (NSS format, as written by SSLKEYLOGFILE in curl, browsers, Python, OpenSSL): \
        the connections it has secrets for are decrypted and their HTTP/1.x exchanges parsed \
        (repeatable). live follows the file as it grows (it may not exist yet) and writes the lines \
        it read into the -w file. Secrets are never printed.
        """, valueName: "file"))
    var keyLogFiles: [String] = []

    @Option(name: .customLong("app"), help: ArgumentHelp("""
        Keep only the packets the capture says belong to this process or app (PKTAP and Apple pcapng: \
        process or effective process name; PCAPdroid: app name); the rest are counted as filtered, as \
        with -f.
        """, valueName: "name"))
    var appName: String?

    /// The pipeline's options of `options` with the secrets of the `--keylog` files, read by the
    /// library (`AnalysisOptions.analyzerOptions`). A line that cannot be used is reported (file and
    /// line number, never its content) and skipped; an unreadable file ends the run (status 1).
    func analyzerOptions(_ options: AnalysisOptions) throws -> CaptureAnalyzer.Options {
        do {
            return try options.analyzerOptions(keyLogs: keyLogFiles) { path, problems in
                for problem in problems.prefix(20) { printError("wiretally: key log \(path): \(problem) (line skipped)") }
                if problems.count > 20 { printError("wiretally: key log \(path): \(problems.count - 20) more lines skipped") }
            }
        } catch {
            printError("wiretally: \(error)")
            throw ExitCode(1)
        }
    }
}
