import Foundation

/// Debian's `chromium` run headless on a local page (installed by `scripts/setup` with
/// WIRETALLY_TEST_TOOLS=1): the DOM after the page's scripts ran, its console messages, every URL the
/// browser requested (from Chromium's own net log), and screenshots.
enum HeadlessChromium {
    /// The browser, or nil when none is installed (the browser tests require `.chromium`).
    static let binary: String? = ["chromium", "chromium-browser", "google-chrome"].lazy.compactMap(ExternalProgram.path(of:)).first

    /// What loading a page gave.
    struct Page {
        /// `--dump-dom`: the document serialised after the scripts ran.
        var dom: String
        /// Console messages (`INFO:CONSOLE` lines of Chromium's log: logs, errors, uncaught exceptions, CSP violations).
        var console: [String]
        /// http(s) URLs in the net log, the browser's own background requests included.
        var requestedURLs: [String]
    }

    /// Loads `file` (with a URL `fragment`) and dumps its DOM. `--no-sandbox` because the tests run as root on CI; the proxy
    /// points nowhere so that nothing could leave the machine even if the page asked.
    static func load(_ file: String, fragment: String? = nil) throws -> Page {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let netLog = folder.appendingPathComponent("net.json").path
        let (stdout, stderr) = try run(folder: folder, [
            "--enable-logging=stderr", "--v=0", "--log-net-log=\(netLog)", "--dump-dom", URL(fileURLWithPath: file).absoluteString + (fragment.map { "#" + $0 } ?? ""),
        ])
        let console = stderr.split(separator: "\n").filter { $0.contains(":CONSOLE") }.map(String.init)
        let log = (try? String(contentsOfFile: netLog, encoding: .utf8)) ?? ""
        let urls = log.matches(of: /"url":"(https?:[^"]*)"/).map { String($0.output.1) }
        return Page(dom: stdout, console: console, requestedURLs: urls)
    }

    /// Renders `file` to a PNG at `png`, 1400 × 2000.
    static func screenshot(_ file: String, to png: String) throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try run(folder: folder, ["--hide-scrollbars", "--window-size=1400,2000", "--screenshot=\(png)",
                                     URL(fileURLWithPath: file).absoluteString])
    }

    /// Browser requests that are not the page's: Chromium's updater, clock, account and dictionary calls.
    static func isBrowserHousekeeping(_ url: String) -> Bool {
        guard let host = URL(string: url)?.host else { return false }
        return ["google.com", "googleapis.com", "gvt1.com", "gstatic.com"].contains { host == $0 || host.hasSuffix("." + $0) }
    }

    enum Failure: Error { case notInstalled, failed(status: Int32, stderr: String) }

    private static func scratchFolder() throws -> URL {
        let folder = TestScratch.folder.appendingPathComponent("wiretally-chromium-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Runs the browser (at most two minutes) with its profile in `folder`; stdout and stderr go
    /// through files so that neither pipe can fill up.
    private static func run(folder: URL, _ arguments: [String]) throws -> (String, String) {
        guard let binary else { throw Failure.notInstalled }
        let outPath = folder.appendingPathComponent("stdout").path, errPath = folder.appendingPathComponent("stderr").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
        process.arguments = ["120", binary, "--headless", "--disable-gpu", "--no-sandbox", "--no-first-run",
                             "--disable-extensions", "--disable-background-networking", "--disable-sync",
                             "--proxy-server=127.0.0.1:9", "--user-data-dir=\(folder.appendingPathComponent("profile").path)",
                             "--virtual-time-budget=10000"] + arguments
        let out = try FileHandle.truncatingForWriting(outPath)
        let err = try FileHandle.truncatingForWriting(errPath)
        process.standardOutput = out
        process.standardError = err
        try process.run()
        process.waitUntilExit()
        try out.close()
        try err.close()
        let stdout = try String(contentsOfFile: outPath, encoding: .utf8)
        let stderr = try String(contentsOfFile: errPath, encoding: .utf8)
        guard process.terminationStatus == 0 else { throw Failure.failed(status: process.terminationStatus, stderr: stderr) }
        return (stdout, stderr)
    }
}

/// Reading the numbers back from a dumped DOM: the report puts them in `data-` attributes.
struct DumpedDOM {
    let html: String
    /// Every opening tag, in document order.
    let openingTags: [String]

    init(html: String) {
        self.html = html
        openingTags = html.matches(of: /<[a-zA-Z][^>]*>/).map { String($0.output) }
    }

    /// `data-value` of the element with `id`.
    func value(id: String) -> String? {
        guard let tag = tag(id: id), let match = tag.firstMatch(of: /data-value="([^"]*)"/) else { return nil }
        return String(match.output.1)
    }

    /// The opening tag of the element with `id`.
    func tag(id: String) -> String? {
        tags(where: { $0.contains(" id=\"\(id)\"") }).first
    }

    /// Opening tags that satisfy `predicate`, in document order.
    func tags(where predicate: (String) -> Bool) -> [String] {
        openingTags.filter(predicate)
    }

    /// The value of `attribute` in an opening tag.
    static func attribute(_ attribute: String, of tag: String) -> String? {
        guard let range = tag.range(of: " \(attribute)=\"") else { return nil }
        return String(tag[range.upperBound...].prefix { $0 != "\"" })
    }

    /// The inner HTML of the element with `id` up to its first closing tag (for leaf elements).
    func text(id: String) -> String? {
        guard let tag = tag(id: id), let start = html.range(of: tag) else { return nil }
        return String(html[start.upperBound...].prefix { $0 != "<" })
    }
}
