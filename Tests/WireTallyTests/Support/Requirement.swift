import Foundation
import Testing

/// Something a test needs from outside this repository: the shared public captures, a reference
/// program (tshark, chromium, python3, script, setpriv), a python module, root, the built tool.
///
/// A test names what it needs with the `.requires(…)` trait instead of returning early when it is
/// missing, so that a missing truth is never shown as a pass:
/// - normally a test whose requirement is missing is reported as **skipped** with the reason
///   (`➜ Test … skipped: "needs tshark …"`), and `scripts/test` counts the skips at the end;
/// - with `CI=true` (what CI sets) a missing requirement **fails** the test: CI installs everything
///   (`scripts/setup` with `WIRETALLY_TEST_TOOLS=1`), so something missing there is a broken set-up.
///
/// Inside the test, what the requirement guarantees is fetched with a throwing accessor
/// (`try Requirement.publicCapture("x.pcap")`, `try Tshark.fields(…)`): a file absent from a folder
/// that is there, or a reference program that fails, is a failure, never an early return.
///
/// `WIRETALLY_TEST_HIDE=tshark,chromium` makes the named programs count as not installed (see
/// `ExternalProgram.path(of:)`), to see those skips, or those CI failures, on a machine that has them.
struct Requirement: Sendable {
    /// What is needed and how to get it, shown in the skip reason and the CI failure.
    let need: String
    /// Whether it is there (evaluated once, when the test plan is made).
    let isMet: Bool

    /// `../shared/captures/public`: public real-world captures with their tshark/Zeek baselines.
    static let publicCaptures = Requirement(
        need: "../shared/captures/public (the shared public captures beside the repository)",
        isMet: TestPaths.publicCaptures != nil)

    /// `../shared/captures/public-tls`: public TLS/QUIC captures with key logs and tshark's decrypted view.
    static let publicTLSCaptures = Requirement(
        need: "../shared/captures/public-tls (the shared keyed captures beside the repository)",
        isMet: TestPaths.publicTLSCaptures != nil)

    /// tshark, the independent decoder most comparisons are made against (run with `Tshark`).
    static let tshark = program("tshark", need: "tshark (apt-get install tshark, or scripts/setup with WIRETALLY_TEST_TOOLS=1)")

    /// python3 itself, for references computed with its standard library (gzip sizes).
    static let python3 = program("python3", need: "python3 (apt-get install python3)")

    /// `script`, which gives a command a terminal (progress bars and status lines appear only there).
    static let script = program("script", need: "script (apt-get install bsdutils)")

    /// `setpriv`, which runs a command as an unprivileged user.
    static let setpriv = program("setpriv", need: "setpriv (apt-get install util-linux)")

    /// A headless Chromium for the HTML report's browser tests.
    static let chromium = Requirement(
        need: "chromium (apt-get install chromium, or scripts/setup with WIRETALLY_TEST_TOOLS=1)",
        isMet: HeadlessChromium.binary != nil)

    /// The python module `jsonschema` (HAR 1.2 schema validation).
    static let jsonschema = pythonModule("jsonschema")

    /// The python module `haralyzer` (an independent HAR reader).
    static let haralyzer = pythonModule("haralyzer")

    /// Root, `ip`, `nginx`, `curl` and the right to create network namespaces (live capture end to end).
    static let liveNetwork = Requirement(
        need: "root, ip, nginx, curl and the right to create network namespaces (run as root after scripts/setup with WIRETALLY_TEST_TOOLS=1)",
        isMet: LiveNetwork.isAvailable)

    /// aioquic's venv for the HTTP/3 peer (`scripts/lib/h3-peer.py`).
    static let quicPeer = Requirement(
        need: "aioquic in its venv (scripts/setup with WIRETALLY_TEST_TOOLS=1 installs it)", isMet: LiveNetwork.quicPython != nil)

    /// Root (dropping privileges with setpriv, opening interfaces).
    static let root = Requirement(need: "root", isMet: getuid() == 0)

    /// The `wiretally` executable built beside the tests (`swift build --build-tests` builds it).
    static let wiretallyBinary = Requirement(
        need: "the wiretally executable (swift build --build-tests)",
        isMet: CommandLineTests.binary != nil)

    /// A program found by `ExternalProgram.path(of:)`.
    static func program(_ name: String, need: String) -> Requirement {
        Requirement(need: need, isMet: ExternalProgram.path(of: name) != nil)
    }

    /// A module python3 can import.
    static func pythonModule(_ module: String) -> Requirement {
        Requirement(
            need: "the python module \(module) (pip install \(module), or scripts/setup with WIRETALLY_TEST_TOOLS=1)",
            isMet: (try? ExternalProgram.output("python3", ["-c", "import \(module)"])) != nil)
    }

    /// Whether missing requirements fail instead of skipping: `CI=true` in the environment.
    static let missingFails = ProcessInfo.processInfo.environment["CI"] == "true"

    /// The path of a file in `../shared/captures/public`. The folder must be there (the test requires
    /// `.publicCaptures`); a file missing from it is an error, not a skip.
    static func publicCapture(_ name: String) throws -> String {
        try sharedFile(name, in: TestPaths.publicCaptures, requirement: .publicCaptures)
    }

    /// The path of a file in `../shared/captures/public-tls`, as `publicCapture`.
    static func publicTLSCapture(_ name: String) throws -> String {
        try sharedFile(name, in: TestPaths.publicTLSCaptures, requirement: .publicTLSCaptures)
    }

    private static func sharedFile(_ name: String, in folder: URL?, requirement: Requirement) throws -> String {
        guard let folder else { throw Unmet(message: "needs \(requirement.need)") }
        let path = folder.appendingPathComponent(name).path
        guard FileManager.default.fileExists(atPath: path) else {
            throw Unmet(message: "\(name) is not in \(folder.path) although the folder is there")
        }
        return path
    }

    /// A requirement missing where it must not be (CI), or a shared file that is absent.
    struct Unmet: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs the test only when every requirement is met; otherwise it is skipped with the reason (what
    /// is missing), or, with `CI=true`, fails with it.
    static func requires(_ requirements: Requirement...) -> Self {
        let missing = requirements.filter { !$0.isMet }
        let reason = "needs " + (missing.isEmpty ? requirements : missing).map(\.need).joined(separator: "; ")
        return .enabled(Comment(rawValue: reason)) {
            guard missing.isEmpty else {
                if Requirement.missingFails {
                    throw Requirement.Unmet(message: "CI=true and a requirement is missing: "
                        + missing.map(\.need).joined(separator: "; "))
                }
                return false
            }
            return true
        }
    }
}
