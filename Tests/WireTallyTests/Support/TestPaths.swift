import Foundation

/// Where the project's captures and the shared public captures are, from this source file's location.
enum TestPaths {
    /// The package root.
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `captures/` of this repository.
    static let captures = root.appendingPathComponent("captures")

    /// `../shared/captures/public`, or nil when absent (tests that need it say `.requires(.publicCaptures)`).
    static var publicCaptures: URL? {
        let url = root.deletingLastPathComponent().appendingPathComponent("shared/captures/public")
        return FileManager.default.fileExists(atPath: url.path) ? url : nil
    }

    /// `../shared/captures/public-tls`, or nil when absent.
    static var publicTLSCaptures: URL? {
        let url = root.deletingLastPathComponent().appendingPathComponent("shared/captures/public-tls")
        return FileManager.default.fileExists(atPath: url.path) ? url : nil
    }

    static func capture(_ name: String) -> String { captures.appendingPathComponent(name).path }

    /// Names of the captures (pcap, pcapng, either gzip-compressed) in `../shared/captures/public`,
    /// sorted; none when the folder is absent. Tests taking them as arguments require `.publicCaptures`
    /// (so an absent folder is a skip, not a test of nothing); `LibpcapComparisonTests` checks that a
    /// present folder lists them.
    static var publicCaptureFiles: [String] {
        publicCaptures.map { files(in: $0, endingWith: [".pcap", ".pcapng", ".pcap.gz", ".pcapng.gz"]) } ?? []
    }

    /// The recorded TLS-over-TCP captures with a file ending in `suffix` (the QUIC recordings,
    /// `quic-*`, have key logs too: the QUIC suites read those).
    static func recordedTCPCaptures(beside suffix: String) -> [String] {
        recordedCaptures(beside: suffix).filter { !$0.hasPrefix("quic-") }
    }

    /// Names (without extension) of the recorded captures in `captures/` that have a truth file ending
    /// in `suffix` beside them (`".nginx.jsonl"`), sorted.
    static func recordedCaptures(beside suffix: String) -> [String] {
        files(in: captures, endingWith: [suffix]).map { String($0.dropLast(suffix.count)) }
    }

    /// Names of files in a folder with one of the extensions, sorted.
    static func files(in folder: URL, endingWith suffixes: [String]) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { name in suffixes.contains { name.hasSuffix($0) } }.sorted()
    }
}
