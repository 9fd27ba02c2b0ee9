import Glibc
import FuzzDriver
import WireTally

/// One temp file per process, rewritten for every input (the pipeline reads from paths only); in
/// memory (`/dev/shm`) where there is one, so that a file system journal does not pace the fuzzer.
/// Removed when the process exits.
let capturePath = "\(access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp")/wiretally-fuzz-capture-\(getpid())"

/// The input is a capture file (pcap, pcapng, or either gzip-compressed): the whole analyze pipeline
/// to JSON Lines.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let file = fopen(capturePath, "w") else { fatalError("cannot write \(capturePath)") }
    if size > 0 { _ = fwrite(data, 1, size, file) }
    fclose(file)
    // `--format jsonl` to /dev/null: the encoding path the CLI uses. Odd and even input sizes take
    // one and two threads (the second reads and decodes ahead), so both pipelines are fuzzed.
    guard let output = try? TextOutput(path: "/dev/null") else { fatalError("cannot open /dev/null") }
    let result = AnalysisRun(files: [capturePath], threads: size % 2 + 1).run(writer: JSONLinesWriter(output: output))
    if !result.summary.isConserved { fatalError("summary not conserved") }
    return 0
}

@_cdecl("FuzzCapture_main")
func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    atexit { unlink(capturePath) }
    return runFuzzer(argc, argv, fuzz)
}
