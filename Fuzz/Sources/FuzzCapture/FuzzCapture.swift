import Glibc
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

/// One temp file per process, rewritten for every input (the pipeline reads from paths only).
let capturePath = "/tmp/wiretally-fuzz-capture-\(getpid())"

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

// SwiftPM links an executable target with `--defsym main=FuzzCapture_main` (its entry point is renamed so
// tests can import the module). With `-parse-as-library` there is no Swift main, so this symbol hands
// control to libFuzzer's driver, exactly what libFuzzer's own `main` would do.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt

@_cdecl("FuzzCapture_main")
func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv, fuzz)
}
