import Glibc
import FuzzDriver
import WireTally

/// Serializes every record and the summary, as `--format jsonl` would, and throws the text away.
final class SerializingWriter: RecordWriter {
    var bytes = 0
    func write(_ record: AnalysisRecord, timestampDigits: Int) {
        bytes += RecordEncoding.record(record, timestampDigits: timestampDigits).serialized.utf8.count
    }
    func finish(summary: CaptureSummary, files: [String]) {
        bytes += RecordEncoding.summary(summary, files: files).serialized.utf8.count
    }
}

/// One temp file per process, rewritten for every input (the pipeline reads from paths only); in
/// memory (`/dev/shm`) where there is one, so that a file system journal does not pace the fuzzer.
/// Removed when the process exits.
let capturePath = "\(access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp")/wiretally-fuzz-capture-\(getpid())"

/// The input is a capture file (pcap, pcapng, or either gzip-compressed): the whole analyze pipeline.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let file = fopen(capturePath, "w") else { fatalError("cannot write \(capturePath)") }
    if size > 0 { _ = fwrite(data, 1, size, file) }
    fclose(file)
    let result = AnalysisRun(files: [capturePath]).run(writer: SerializingWriter())
    if !result.summary.isConserved { fatalError("summary not conserved") }
    return 0
}

@_cdecl("FuzzCapture_main")
func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    atexit { unlink(capturePath) }
    return runFuzzer(argc, argv, fuzz)
}
