import Foundation

/// A client and a server network namespace joined by a veth pair, made for one live-capture test and
/// removed afterwards, with an nginx serving test files in the server namespace. Offloads are off so
/// frames are wire-sized (as scripts/lib/netns.sh does); IPv6 is off to keep the capture to the test's
/// traffic. Every process it starts is stopped by its PID.
final class LiveNetwork {
    /// Root, `ip`, `nginx`, `curl`, and the right to create a network namespace (a container may
    /// not give it): what the end-to-end tests need.
    static let isAvailable: Bool = {
        guard getuid() == 0, ["ip", "nginx", "curl", "openssl"].allSatisfy({ path(of: $0) != nil }) else { return false }
        let probe = "wtl-probe-\(getpid())"
        guard (try? run("ip", ["netns", "add", probe]))?.status == 0 else { return false }
        _ = try? run("ip", ["netns", "del", probe])
        return true
    }()

    nonisolated(unsafe) private static var created = 0

    let clientNamespace: String
    let serverNamespace: String
    let clientInterface: String
    let serverAddress: String
    /// A temporary folder for the server's files and the test's outputs.
    let folder: URL
    private var server: Process?
    private var started: [Process] = []

    init() throws {
        Self.created += 1
        let tag = "\(getpid() % 100_000)-\(Self.created)"
        clientNamespace = "wtl-c-\(tag)"
        serverNamespace = "wtl-s-\(tag)"
        clientInterface = "wtlc\(tag)"
        let serverInterface = "wtls\(tag)"
        let subnet = "10.78.\(Self.created % 250)"
        serverAddress = "\(subnet).2"
        folder = TestScratch.folder.appendingPathComponent("wiretally-live-\(tag)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("www"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("tmp"), withIntermediateDirectories: true)
        let steps: [[String]] = [
            ["netns", "add", clientNamespace], ["netns", "add", serverNamespace],
            ["link", "add", clientInterface, "netns", clientNamespace, "type", "veth", "peer", "name", serverInterface,
             "netns", serverNamespace],
            ["-n", clientNamespace, "link", "set", "lo", "up"], ["-n", serverNamespace, "link", "set", "lo", "up"],
            ["-n", clientNamespace, "addr", "add", "\(subnet).1/24", "dev", clientInterface],
            ["-n", serverNamespace, "addr", "add", "\(serverAddress)/24", "dev", serverInterface],
        ]
        do {
            for step in steps { try Self.check("ip", step) }
            for (namespace, interface) in [(clientNamespace, clientInterface), (serverNamespace, serverInterface)] {
                _ = try Self.run("ip", ["netns", "exec", namespace, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1",
                                        "net.ipv6.conf.default.disable_ipv6=1", "net.ipv6.conf.\(interface).disable_ipv6=1"])
                if Self.path(of: "ethtool") != nil {
                    for feature in ["tso", "gso", "gro", "lro", "tx", "rx", "sg"] {
                        _ = try Self.run("ip", ["netns", "exec", namespace, "ethtool", "-K", interface, feature, "off"])
                    }
                }
                try Self.check("ip", ["-n", namespace, "link", "set", interface, "up"])
            }
        } catch {
            tearDown()
            throw error
        }
    }

    deinit { tearDown() }

    /// Starts nginx in the server namespace on port 8080 with `/small.txt`, `/big.bin` (200 kB),
    /// `/text.txt` (gzip-compressible) and `POST /upload`, the same files over HTTPS on 8443 (ALPN h2
    /// and http/1.1) and over h2c with prior knowledge on 8082, and waits until it answers.
    func startServer() throws {
        let www = folder.appendingPathComponent("www")
        try Data("hello\n".utf8).write(to: www.appendingPathComponent("small.txt"))
        var generator = SeededGenerator(state: 7)
        try Data((0..<200_000).map { _ in UInt8.random(in: 0...255, using: &generator) })
            .write(to: www.appendingPathComponent("big.bin"))
        try Data((1...2000).map { "line \($0) of some compressible text\n" }.joined().utf8)
            .write(to: www.appendingPathComponent("text.txt"))
        let path = folder.path, temp = folder.appendingPathComponent("tmp").path
        let configuration = """
            daemon off; master_process off; worker_processes 1; pid \(path)/nginx.pid; error_log \(path)/error.log;
            events { worker_connections 64; }
            http {
              access_log off; default_type text/plain;
              client_body_temp_path \(temp); proxy_temp_path \(temp); fastcgi_temp_path \(temp);
              uwsgi_temp_path \(temp); scgi_temp_path \(temp);
              gzip on; gzip_types text/plain; gzip_min_length 0;
              server { listen \(serverAddress):8080; root \(www.path); location = /upload { return 201 "created\\n"; } }
              server { listen \(serverAddress):8443 ssl http2; ssl_certificate \(path)/cert.pem; ssl_certificate_key \(path)/key.pem;
                       ssl_protocols TLSv1.2 TLSv1.3; root \(www.path); }
              server { listen \(serverAddress):8082 http2; root \(www.path); }
            }
            """
        // A throwaway certificate for the HTTPS server (`tlsURL`).
        try Self.check("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                                   "-days", "2", "-keyout", "\(path)/key.pem", "-out", "\(path)/cert.pem", "-subj", "/CN=www.wt.test",
                                   "-addext", "subjectAltName=DNS:www.wt.test"])
        let file = folder.appendingPathComponent("nginx.conf")
        try Data(configuration.utf8).write(to: file)
        server = try start(["ip", "netns", "exec", serverNamespace, "nginx", "-c", file.path, "-p", path])
        for _ in 0..<50 {
            if try curl(["-s", "-o", "/dev/null", url("/small.txt")]).status == 0 { return }
            usleep(100_000)
        }
        throw LiveNetworkError.serverDidNotStart
    }

    /// `http://server:8080<path>`.
    func url(_ path: String) -> String { "http://\(serverAddress):8080\(path)" }

    /// `https://server:8443<path>` (self-signed: curl needs `-k`).
    func tlsURL(_ path: String) -> String { "https://\(serverAddress):8443\(path)" }

    /// `http://server:8082<path>`: h2c with prior knowledge.
    func h2cURL(_ path: String) -> String { "http://\(serverAddress):8082\(path)" }

    /// The python of aioquic's venv (`scripts/setup` with WIRETALLY_TEST_TOOLS=1 installs it, as
    /// `scripts/lib/record-tools.sh` says: `WIRETALLY_QUIC_VENV`, else `~/.cache/wiretally/quic-venv`),
    /// nil when it is missing or cannot import aioquic.
    static let quicPython: String? = {
        let environment = ProcessInfo.processInfo.environment
        let venv = environment["WIRETALLY_QUIC_VENV"] ?? (environment["HOME"] ?? "/root") + "/.cache/wiretally/quic-venv"
        let python = venv + "/bin/python"
        guard FileManager.default.isExecutableFile(atPath: python),
              (try? run(python, ["-c", "import aioquic.h3.connection, aioquic.asyncio"]))?.status == 0 else { return nil }
        return python
    }()

    /// `scripts/lib/h3-peer.py`.
    static let h3Peer = TestPaths.root.appendingPathComponent("scripts/lib/h3-peer.py").path

    /// Starts `scripts/lib/h3-peer.py`'s HTTP/3 server (aioquic) in the server namespace on UDP 443 with
    /// the HTTPS certificate of `startServer` (call that first), and waits until it listens.
    func startH3Server() throws {
        guard let python = Self.quicPython else { throw LiveNetworkError.serverDidNotStart }
        let path = folder.path, ready = "\(path)/h3server.ready"
        _ = try start(["ip", "netns", "exec", serverNamespace, python, Self.h3Peer, "server", "--cert", "\(path)/cert.pem",
                       "--key", "\(path)/key.pem", "--log", "\(path)/h3server.jsonl", "--qlog-dir", "\(path)/qlog-server",
                       "--ready", ready, "\(serverAddress):443"], stderr: "\(path)/h3server.err")
        for _ in 0..<100 where !FileManager.default.fileExists(atPath: ready) { usleep(100_000) }
        guard FileManager.default.fileExists(atPath: ready) else { throw LiveNetworkError.serverDidNotStart }
    }

    /// Runs h3-peer's client script `script` (`sequential`, `concurrent`…) in the client namespace against
    /// the HTTP/3 server, its key log appended to `keys`; returns its log's request records.
    func h3Client(_ script: String, keyLog keys: String) throws -> [[String: Any]] {
        guard let python = Self.quicPython else { return [] }
        let path = folder.path, log = "\(path)/h3client-\(script).jsonl"
        let result = try Self.run("ip", ["netns", "exec", clientNamespace, python, Self.h3Peer, "client", "--addr", serverAddress,
                                         "--port", "443", "--authority", "www.wt.test", "--cafile", "\(path)/cert.pem",
                                         "--keylog", keys, "--log", log, "--qlog-dir", "\(path)/qlog-client", script])
        guard result.status == 0 else { throw LiveNetworkError.clientFailed(result.stderr) }
        return try JSONLines.load(log).filter { $0["record"] as? String == "request" }
    }

    /// Runs curl in the client namespace.
    func curl(_ arguments: [String]) throws -> LiveNetwork.Run {
        try Self.run("ip", ["netns", "exec", clientNamespace, "curl"] + arguments)
    }

    /// Starts a program (in a namespace with `ip netns exec`, which becomes the program: its PID is
    /// the program's), standard output and error to files in the folder.
    func start(_ command: [String], stdout: String = "/dev/null", stderr: String = "/dev/null") throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.path(of: command[0]) ?? command[0])
        process.arguments = Array(command.dropFirst())
        process.standardOutput = try FileHandle.truncatingForWriting(stdout)
        process.standardError = try FileHandle.truncatingForWriting(stderr)
        try process.run()
        started.append(process)
        return process
    }

    /// Waits up to `seconds` for `process` to exit; true when it did.
    static func wait(_ process: Process, seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning { return false }
        process.waitUntilExit()
        return true
    }

    /// Waits up to `seconds` until the file contains `text` (at least `count` times).
    static func waitFor(_ text: String, count: Int = 1, in path: String, seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let contents = try? String(contentsOfFile: path, encoding: .utf8),
               contents.components(separatedBy: text).count - 1 >= count
            {
                return true
            }
            usleep(20_000)
        }
        return false
    }

    /// Stops what it started (by PID), deletes the namespaces (with the veth pair) and the folder.
    func tearDown() {
        for process in started where process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        started.removeAll()
        for namespace in [clientNamespace, serverNamespace] { _ = try? Self.run("ip", ["netns", "del", namespace]) }
        try? FileManager.default.removeItem(at: folder)
    }

    typealias Run = ExternalProgram.Run

    /// Runs a program (looked up on PATH) to its end.
    static func run(_ program: String, _ arguments: [String]) throws -> Run {
        try ExternalProgram.run(URL(fileURLWithPath: program.hasPrefix("/") ? program : (path(of: program) ?? program)), arguments)
    }

    private static func check(_ program: String, _ arguments: [String]) throws {
        let result = try run(program, arguments)
        guard result.status == 0 else {
            throw LiveNetworkError.commandFailed("\(program) \(arguments.joined(separator: " ")): \(result.stderr)")
        }
    }

    /// The program's path on PATH (or the usual sbin folders), if it is installed.
    static func path(of program: String) -> String? { ExternalProgram.path(of: program) }
}

enum LiveNetworkError: Error {
    case commandFailed(String)
    case serverDidNotStart
    case clientFailed(String)
}
