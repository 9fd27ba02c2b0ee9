// SwiftPM links an executable target with `--defsym main=<Target>_main` (its entry point is renamed so
// tests can import the module). With `-parse-as-library` there is no Swift main, so each target's
// `<Target>_main` calls `runFuzzer`, which hands control to libFuzzer's driver, exactly what
// libFuzzer's own `main` would do.

@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt

/// Runs libFuzzer with the process arguments, calling `target` for every input.
public func runFuzzer(
    _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
    _ target: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv, target)
}
