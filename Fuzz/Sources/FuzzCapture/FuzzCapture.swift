import Glibc
import FuzzDriver
@testable import WireTally

/// One temp file per process, rewritten for every input (the pipeline reads from paths only); in
/// memory (`/dev/shm`) where there is one, so that a file system journal does not pace the fuzzer.
/// Removed when the process exits.
let capturePath = "\(access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp")/wiretally-fuzz-capture-\(getpid())"

/// The key logs of the bundled captures (`captures/*.keys`, the fuzzer runs from the repository's
/// root): inputs mutated from the TLS and QUIC seeds keep their client randoms, so their records and
/// packets go through decryption, the plaintext layer and the HTTP/1, HTTP/2 or HTTP/3 parser behind it.
let keys: TLSKeyStore = {
    var paths: [String] = []
    if let folder = opendir("captures") {
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasSuffix(".keys") { paths.append("captures/" + name) }
        }
        closedir(folder)
    }
    return (try? TLSKeyStore.reading(files: paths.sorted())) ?? TLSKeyStore()
}()

/// Where the JSON Lines go: `/dev/null`, or `FUZZ_CAPTURE_OUTPUT` when set (to replay a seed and see
/// what it yields, e.g. that its QUIC connections decrypt with the bundled key logs).
let outputPath = getenv("FUZZ_CAPTURE_OUTPUT").map { String(cString: $0) } ?? "/dev/null"

/// The input is a capture file (pcap, pcapng, or either gzip-compressed): the whole analyze pipeline
/// to JSON Lines, with the bundled key logs.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let file = fopen(capturePath, "w") else { fatalError("cannot write \(capturePath)") }
    if size > 0 { _ = fwrite(data, 1, size, file) }
    fclose(file)
    // `--format jsonl` to /dev/null: the encoding path the CLI uses. Odd and even input sizes take
    // one and two threads (the second reads and decodes ahead), so both pipelines are fuzzed.
    guard let output = try? TextOutput(path: outputPath) else { fatalError("cannot open \(outputPath)") }
    var options = CaptureAnalyzer.Options()
    options.tlsKeys = keys
    let result = AnalysisRun(files: [capturePath], options: options, threads: size % 2 + 1)
        .run(writer: JSONLinesWriter(output: output))
    if !result.summary.isConserved { fatalError("summary not conserved") }
    return 0
}

@_cdecl("FuzzCapture_main")
func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    atexit { unlink(capturePath) }
    return runFuzzer(argc, argv, fuzz)
}
