import Foundation
import Testing
@testable import WireTally

/// `wiretally live` on a veth pair in network namespaces with real traffic (nginx and curl): the
/// records it streams equal those of an offline `analyze` of the raw capture it wrote, agree with
/// curl's own sizes and conserve bytes; SIGINT, SIGTERM and --duration stop it cleanly with a valid
/// raw file; a missing interface or missing rights give a plain message and a non-zero exit.
@Suite(.serialized, .requires(.liveNetwork))
struct LiveCaptureEndToEndTests {
    /// The built binary (the same build as the tests).
    static func binary() throws -> String {
        try #require(CommandLineTests.binary, "the wiretally binary is not built").path
    }

    /// Starts `wiretally live` in the client namespace and waits until it captures.
    static func startLive(
        _ network: LiveNetwork, _ arguments: [String], stderr: String
    ) throws -> Process {
        let command = ["ip", "netns", "exec", network.clientNamespace, try binary(), "live", "-i", network.clientInterface]
        let process = try network.start(command + arguments, stderr: stderr)
        try #require(LiveNetwork.waitFor("listening on", in: stderr, seconds: 20), "live did not start")
        return process
    }

    /// Starts the server and `live --format jsonl -w RAW -o LIVE --settle 0.5 --keylog KEYS` (the key
    /// log does not exist yet: curl writes it later).
    static func startKeyedLive(_ network: LiveNetwork) throws -> (capture: Process, raw: String, live: String, keys: String) {
        try network.startServer()
        let folder = network.folder.path
        let (raw, live, errors, keys) = ("\(folder)/raw.pcapng", "\(folder)/live.jsonl", "\(folder)/live.err", "\(folder)/keys.log")
        let capture = try startLive(
            network, ["--format", "jsonl", "-w", raw, "-o", live, "--settle", "0.5", "--keylog", keys], stderr: errors)
        return (capture, raw, live, keys)
    }

    /// Runs curl in the client namespace once per argument list, with `SSLKEYLOGFILE=keys`; the lines
    /// curl's `--write-out '%{json}'` printed.
    static func curls(_ network: LiveNetwork, keyLog keys: String, _ runs: [[String]]) throws -> [String] {
        var lines: [String] = []
        for arguments in runs {
            let result = try LiveNetwork.run("ip", ["netns", "exec", network.clientNamespace, "env", "SSLKEYLOGFILE=\(keys)", "curl"] + arguments)
            try #require(result.status == 0, "curl: \(result.stderr)")
            lines += result.stdout.split(separator: "\n").map(String.init)
        }
        return lines
    }

    /// Waits until `live`'s output has `count` http records, stops it with SIGINT (status 0), and
    /// returns its records and, of them, the `count` http ones.
    static func stop(_ capture: Process, after count: Int, exchangesIn live: String) throws -> (records: [Object], exchanges: [Object]) {
        #expect(LiveNetwork.waitFor("\"type\":\"http\"", count: count, in: live, seconds: 20))
        capture.interrupt()
        try #require(LiveNetwork.wait(capture, seconds: 20), "live did not stop on SIGINT")
        #expect(capture.terminationStatus == 0)
        let records = try lines(live).map(json)
        let exchanges = records.filter { string($0, "type") == "http" }
        #expect(exchanges.count == count)
        return (records, exchanges)
    }

    /// curl's `%{json}` line, its URL, and the http record of that transfer (by client port and target).
    static func record(of line: String, in exchanges: [Object]) throws -> (curl: [String: Any], url: String, record: Object) {
        let curl = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let port = try #require(curl["local_port"] as? Int)
        let url = curl["url_effective"] as? String ?? ""
        let record = try #require(exchanges.first {
            (string($0, "conn.client") ?? "").hasSuffix(":\(port)") && url.hasSuffix(string($0, "request.target") ?? "?")
        }, "no record for \(url) among \(exchanges.map { (string($0, "conn.client"), string($0, "request.target"), $0["flags"]) })")
        return (curl, url, record)
    }

    static func lines(_ path: String) throws -> [String] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
    }

    typealias Object = [String: Any]

    static func json(_ line: String) throws -> Object {
        try #require(try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? Object, "not JSON: \(line.prefix(80))")
    }

    /// The value at a dotted path (`response.bytes.body`).
    static func value(_ object: Object, _ path: String) -> Any? {
        var current: Any? = object
        for key in path.split(separator: ".") { current = (current as? Object)?[String(key)] }
        return current
    }

    static func int(_ object: Object, _ path: String) -> Int? { value(object, path) as? Int }
    static func string(_ object: Object, _ path: String) -> String? { value(object, path) as? String }

    @Test(.requires(.tshark))
    func liveRecordsEqualAnOfflineAnalysisOfTheRawCapture() throws {
        let network = try LiveNetwork()
        defer { network.tearDown() }
        try network.startServer()
        let folder = network.folder.path
        let (raw, live, errors) = ("\(folder)/raw.pcapng", "\(folder)/live.jsonl", "\(folder)/live.err")
        let capture = try Self.startLive(
            network, ["--format", "jsonl", "-w", raw, "-o", live, "--settle", "0.5"], stderr: errors)

        // Three requests on one keep-alive connection (the last one gzip), a POST and a GET with
        // `Connection: close` on connections of their own.
        let writeOut = ["-s", "--write-out", "%{json}\\n"]
        var curlLines: [String] = []
        let upload = "\(folder)/www/text.txt"
        for arguments in [
            writeOut + ["-o", "/dev/null", network.url("/small.txt"), "-o", "/dev/null", network.url("/big.bin"),
                        "--compressed", "-o", "/dev/null", network.url("/text.txt")],
            writeOut + ["-o", "/dev/null", "--data-binary", "@\(upload)", network.url("/upload")],
            writeOut + ["-o", "/dev/null", "-H", "Connection: close", network.url("/small.txt")],
        ] {
            let result = try network.curl(arguments)
            try #require(result.status == 0, "curl: \(result.stderr)")
            curlLines += result.stdout.split(separator: "\n").map(String.init)
        }
        // Records stream: every exchange is written while the capture still runs (each connection
        // closed, its last exchange is written once it has been idle the settle time).
        #expect(LiveNetwork.waitFor("\"type\":\"http\"", count: 5, in: live, seconds: 20))
        #expect(try Self.lines(live).allSatisfy { $0.contains("\"type\":\"http\"") })  // before their connections

        capture.interrupt()  // SIGINT
        try #require(LiveNetwork.wait(capture, seconds: 20), "live did not stop on SIGINT")
        #expect(capture.terminationStatus == 0)
        let stderr = try String(contentsOfFile: errors, encoding: .utf8)
        #expect(stderr.contains("packets captured"))
        #expect(stderr.contains("dropped by kernel"))

        // The same records from the raw capture, offline.
        let offline = try LiveNetwork.run(try Self.binary(), ["analyze", raw, "--format", "jsonl", "--settle", "0.5"])
        try #require(offline.status == 0, "\(offline.stderr)")
        let liveLines = try Self.lines(live)
        let offlineLines = offline.stdout.split(separator: "\n").map(String.init)
        // Every record, in the same order.
        #expect(liveLines.count == offlineLines.count)
        if let index = zip(liveLines, offlineLines).dropLast().enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset {
            Issue.record("record \(index + 1) differs: live \(liveLines[index].prefix(300)) offline \(offlineLines[index].prefix(300))")
        }
        // The summaries differ only in what was read: the interface, or the file.
        func withoutFiles(_ line: String?) -> String? {
            line?.replacingOccurrences(of: #""files":\[[^\]]*\],"#, with: "", options: .regularExpression)
        }
        #expect(withoutFiles(liveLines.last) == withoutFiles(offlineLines.last))
        let liveSummary = try Self.json(try #require(liveLines.last))
        #expect(Self.string(liveSummary, "type") == "summary")

        // curl's own sizes, per transfer (by client port and position on the connection).
        let records = try liveLines.map(Self.json)
        let exchanges = records.filter { Self.string($0, "type") == "http" }
        #expect(exchanges.count == 5)
        var positions: [Int: Int] = [:]
        for line in curlLines {
            let curl = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let port = try #require(curl["local_port"] as? Int)
            let index = positions[port, default: 0]
            positions[port] = index + 1
            let record = try #require(exchanges.first {
                Self.string($0, "conn.client")?.hasSuffix(":\(port)") == true && Self.int($0, "conn.index") == index
            }, "no record for \(curl["url_effective"] ?? "")")
            let url = curl["url_effective"] as? String ?? ""
            #expect(Self.int(record, "response.status") == curl["http_code"] as? Int, "\(url)")
            #expect(Self.int(record, "response.bytes.body") == curl["size_download"] as? Int, "\(url) size_download")
            let head = (Self.int(record, "response.bytes.start_line") ?? 0) + (Self.int(record, "response.bytes.headers") ?? 0)
            #expect(head == curl["size_header"] as? Int, "\(url) size_header")
            let upload = (Self.int(record, "request.bytes.body") ?? 0) + (Self.int(record, "request.bytes.framing") ?? 0)
            #expect(upload == curl["size_upload"] as? Int, "\(url) size_upload")
        }
        #expect(exchanges.contains { Self.string($0, "response.content_encoding") == "gzip" })

        // Conservation, through the library on the raw file.
        let (writer, result) = CollectingWriter.analyze([raw], options: .init(limits: {
            var limits = ReassemblyLimits()
            limits.settleNanoseconds = 500_000_000
            return limits
        }()))
        Conservation.check(writer, result)
        #expect(result.summary.read.packets == Self.int(liveSummary, "packets"))
        // tshark reads the raw file too, packet for packet.
        #expect(try Tshark.fields(raw, ["frame.number"]).count == result.summary.read.packets)
    }

    /// `live --keylog FILE` follows a key log that does not exist yet when the capture starts and that
    /// curl (SSLKEYLOGFILE) appends to: every HTTPS request (TLS 1.3 keep-alive, TLS 1.2) is decrypted
    /// live with curl's sizes; the raw file carries the keys it used as Decryption Secrets Blocks, so an
    /// offline `analyze` of it alone (no --keylog) decrypts the same exchanges.
    @Test func liveFollowsTheKeyLogAndTheRawFileCarriesTheKeys() throws {
        let network = try LiveNetwork()
        defer { network.tearDown() }
        let (capture, raw, live, keys) = try Self.startKeyedLive(network)
        let writeOut = ["-s", "-k", "--http1.1", "--write-out", "%{json}\\n"]
        let curlLines = try Self.curls(network, keyLog: keys, [
            writeOut + ["--tlsv1.3", "-o", "/dev/null", network.tlsURL("/small.txt"), "-o", "/dev/null", network.tlsURL("/big.bin")],
            writeOut + ["--tlsv1.2", "--tls-max", "1.2", "-o", "/dev/null", network.tlsURL("/text.txt")],
        ])
        let (records, exchanges) = try Self.stop(capture, after: 3, exchangesIn: live)
        for line in curlLines {
            let (curl, url, record) = try Self.record(of: line, in: exchanges)
            #expect((record["flags"] as? [String])?.contains("decrypted") == true, "\(url)")
            #expect(Self.int(record, "response.status") == 200)
            #expect(Self.int(record, "response.bytes.body") == curl["size_download"] as? Int, "\(url) size_download")
        }
        #expect(records.filter { Self.string($0, "type") == "connection" }.allSatisfy { Self.string($0, "tls.decryption") == "decrypted" })
        // The raw file decrypts on its own.
        let offline = try LiveNetwork.run(try Self.binary(), ["analyze", raw, "--format", "jsonl", "--settle", "0.5"])
        try #require(offline.status == 0, "\(offline.stderr)")
        let offlineExchanges = offline.stdout.split(separator: "\n").map(String.init).filter { $0.contains("\"type\":\"http\"") }
        #expect(offlineExchanges.count == 3 && offlineExchanges.allSatisfy { $0.contains("\"decrypted\"") })
    }

    /// HTTP/2 live: curl multiplexes three transfers on one TLS connection (ALPN h2, key log followed
    /// while capturing) and sends two h2c ones (prior knowledge): each stream is an HTTP/2 record as it
    /// ends, with its stream id and curl's sizes; the raw file analysed offline gives the same records.
    @Test func liveParsesHTTP2StreamsAsTheyEnd() throws {
        let network = try LiveNetwork()
        defer { network.tearDown() }
        let (capture, raw, live, keys) = try Self.startKeyedLive(network)
        let writeOut = ["-s", "-k", "--write-out", "%{json}\\n"]
        let curlLines = try Self.curls(network, keyLog: keys, [
            writeOut + ["--http2", "--parallel", "--parallel-max", "3", "-o", "/dev/null", network.tlsURL("/small.txt"),
                        "-o", "/dev/null", network.tlsURL("/big.bin"), "-o", "/dev/null", "--compressed", network.tlsURL("/text.txt")],
            writeOut + ["--http2-prior-knowledge", "-o", "/dev/null", network.h2cURL("/small.txt")],
            writeOut + ["--http2-prior-knowledge", "-o", "/dev/null", network.h2cURL("/big.bin")],
        ])
        let (_, exchanges) = try Self.stop(capture, after: 5, exchangesIn: live)
        for line in curlLines {
            let (curl, url, record) = try Self.record(of: line, in: exchanges)
            #expect(curl["http_version"] as? String == "2", "\(url): curl spoke HTTP/2")
            #expect(Self.string(record, "request.version") == "HTTP/2", "\(url)")
            #expect(Self.int(record, "http2.stream_id").map { $0 % 2 == 1 } == true, "\(url): a client stream")
            #expect(Self.int(record, "response.status") == 200)
            #expect(Self.int(record, "response.bytes.body") == curl["size_download"] as? Int, "\(url) size_download")
            if url.hasPrefix("https") { #expect((record["flags"] as? [String])?.contains("decrypted") == true, "\(url)") }
        }
        // The raw file carries the keys: offline, the same five streams, all bytes conserved.
        let offline = try LiveNetwork.run(try Self.binary(), ["analyze", raw, "--format", "jsonl", "--settle", "0.5"])
        try #require(offline.status == 0, "\(offline.stderr)")
        let offlineLines = offline.stdout.split(separator: "\n").map(String.init)
        #expect(offlineLines.filter { $0.contains("\"type\":\"http\"") && $0.contains("\"HTTP/2\"") }.count == 5)
        #expect(offlineLines.last?.contains("\"conserved\":true") == true)
    }

    /// HTTP/3 live: aioquic's client makes its eight sequential requests (HEAD, 204, 404, a POST, a key
    /// update, a new connection ID) over QUIC while `live` follows the key log it writes a line per
    /// secret: the datagrams wait for their secrets, each request is a decrypted HTTP/3 record with the
    /// client's stream, status and body sizes; the raw file (keys inside) gives the same records offline.
    @Test(.requires(.quicPeer)) func liveParsesHTTP3WithTheGrowingKeyLog() throws {
        let network = try LiveNetwork()
        defer { network.tearDown() }
        let (capture, raw, live, keys) = try Self.startKeyedLive(network)
        try network.startH3Server()
        let requests = try network.h3Client("sequential", keyLog: keys)
        try #require(requests.count == 8, "the client's log")
        let (records, exchanges) = try Self.stop(capture, after: 8, exchangesIn: live)
        for request in requests {
            let stream = request["stream_id"] as? Int
            let record = try #require(exchanges.first { Self.int($0, "request.stream_id") == stream }, "stream \(stream ?? -1)")
            #expect((record["flags"] as? [String])?.contains("decrypted") == true, "stream \(stream ?? -1)")
            #expect(Self.string(record, "request.version") == "HTTP/3" && Self.string(record, "request.method") == request["method"] as? String)
            #expect(Self.string(record, "request.target") == request["path"] as? String)
            #expect(Self.int(record, "response.status") == request["status"] as? Int)
            #expect(Self.int(record, "request.bytes.body") == request["request_body_bytes"] as? Int)
            #expect(Self.int(record, "response.bytes.body") == request["response_body_bytes"] as? Int)
        }
        let quic = records.filter { Self.string($0, "type") == "connection" && Self.string($0, "transport") == "quic" }
        #expect(quic.count == 1 && quic.allSatisfy { Self.string($0, "tls.decryption") == "decrypted" })
        let offline = try LiveNetwork.run(try Self.binary(), ["analyze", raw, "--format", "jsonl"])
        try #require(offline.status == 0, "\(offline.stderr)")
        let offlineLines = offline.stdout.split(separator: "\n").map(String.init)
        #expect(offlineLines.filter { $0.contains("\"type\":\"http\"") && $0.contains("\"HTTP/3\"") && $0.contains("\"decrypted\"") }.count == 8)
        #expect(offlineLines.last?.contains("\"conserved\":true") == true)
    }

    @Test func sigtermAndDurationStopCleanlyWithAValidRawFile() throws {
        let network = try LiveNetwork()
        defer { network.tearDown() }
        try network.startServer()
        let folder = network.folder.path

        // SIGTERM after one request.
        let raw = "\(folder)/term.pcapng", output = "\(folder)/term.jsonl"
        let capture = try Self.startLive(network, ["--format", "jsonl", "-w", raw, "-o", output], stderr: "\(folder)/term.err")
        #expect(try network.curl(["-s", "-o", "/dev/null", network.url("/small.txt")]).status == 0)
        usleep(300_000)
        capture.terminate()  // SIGTERM
        try #require(LiveNetwork.wait(capture, seconds: 20), "live did not stop on SIGTERM")
        #expect(capture.terminationStatus == 0)
        let records = try Self.lines(output).map(Self.json)
        #expect(records.filter { Self.string($0, "type") == "http" }.count == 1)
        #expect(records.last.flatMap { Self.string($0, "type") } == "summary")
        let (writer, result) = CollectingWriter.analyze([raw])
        #expect(result.errors.isEmpty)
        #expect(writer.exchanges.count == 1)
        Conservation.check(writer, result)

        // --duration: stops by itself, writes the summary and a valid (here maybe empty) raw file.
        let timed = "\(folder)/timed.pcapng"
        let command = ["ip", "netns", "exec", network.clientNamespace, try Self.binary(), "live", "-i",
                       network.clientInterface, "--duration", "1", "--format", "jsonl", "-w", timed]
        let run = try LiveNetwork.run(command[0], Array(command.dropFirst()))
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("\"type\":\"summary\""))
        let (_, timedResult) = CollectingWriter.analyze([timed])
        #expect(timedResult.errors.isEmpty)
    }

    @Test func aMissingInterfaceOrABadFilterIsAPlainError() throws {
        let run = try LiveNetwork.run(try Self.binary(), ["live", "-i", "wtl-missing0"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("no interface named wtl-missing0"))
        #expect(run.stderr.contains("lo"))
        let badFilter = try LiveNetwork.run(try Self.binary(), ["live", "-i", "lo", "-f", "tcp port"])
        #expect(badFilter.status == 1)
        #expect(badFilter.stderr.contains("bad filter"))
        let list = try LiveNetwork.run(try Self.binary(), ["live", "-D"])
        #expect(list.status == 0)
        #expect(list.stdout.contains(".lo ") || list.stdout.contains(".lo\n"))
    }

    @Test(.requires(.script))
    func aStatusLineOnlyOnATerminal() throws {
        let binary = try Self.binary()
        // `script` gives the command a terminal; its output is what the terminal showed.
        let run = try LiveNetwork.run("script", ["-qec", "\(binary) live -i lo --duration 2.5 -o /dev/null", "/dev/null"])
        #expect(run.status == 0)
        #expect(run.stdout.contains("\r2s  "))
        #expect(run.stdout.contains(" open / ") && run.stdout.contains(" exchanges "))
        #expect(run.stdout.contains("dropped"))
        let piped = try LiveNetwork.run(binary, ["live", "-i", "lo", "--duration", "2.5", "-o", "/dev/null"])
        #expect(piped.status == 0)
        #expect(!piped.stderr.contains("\r"))
        #expect(piped.stderr.contains("packets captured"))
    }

    @Test(.requires(.setpriv))
    func withoutTheRightToCaptureItSaysSo() throws {
        // A copy the unprivileged user can run (the build folder may not be reachable for it).
        let folder = TestScratch.folder.appendingPathComponent("wiretally-live-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let copy = folder.appendingPathComponent("wiretally")
        try FileManager.default.copyItem(atPath: try Self.binary(), toPath: copy.path)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: copy.path)
        let run = try LiveNetwork.run("setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", copy.path, "live", "-i", "lo"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("run with sudo"))
        #expect(run.stderr.contains("setcap cap_net_raw,cap_net_admin=eip"))
    }
}
