#if canImport(Glibc)
import Glibc
#endif

extension AnalysisRun {
    /// Files smaller than this (all together) are analysed on one thread: the second thread's start
    /// and hand-overs cost more than it saves.
    package static let smallestInputForTwoThreads = 16 << 20

    /// The thread count `--threads auto` picks for `files`: 2 when at least two CPUs are online and the
    /// files hold at least `smallestInputForTwoThreads` bytes, otherwise 1.
    package static func automaticThreads(files: [String]) -> Int {
        automaticThreads(fileBytes: MergedPacketSource.fileBytes(of: files), onlineCPUs: onlineCPUCount())
    }

    /// The rule of `automaticThreads(files:)` for a given input size and CPU count.
    static func automaticThreads(fileBytes: Int, onlineCPUs: Int) -> Int {
        onlineCPUs >= 2 && fileBytes >= smallestInputForTwoThreads ? 2 : 1
    }

    /// CPUs online.
    static func onlineCPUCount() -> Int {
        max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
    }
}
