import WireTally

#if canImport(Glibc)
import Glibc
#endif

/// The progress bar of a run on standard error: drawn only when standard error is a terminal, the
/// files are bigger than a few MB and `--quiet` was not given; redrawn at most ten times a second on
/// one line, erased when the run ends.
final class ProgressDisplay {
    /// Smaller inputs are read too fast for a bar to be worth drawing.
    static let minimumFileBytes = 4_000_000
    private static let redrawInterval = 0.1

    private let isTerminal: Bool
    private let startTime = ProgressDisplay.monotonicSeconds()
    private var lastDrawTime = -Double.infinity
    private var isShown = false

    init(quiet: Bool) {
        isTerminal = !quiet && isatty(STDERR_FILENO) == 1
    }

    /// What to hand a run as its `progress` (nil when nothing is to be shown).
    var callback: ((ReadProgress) -> Void)? {
        isTerminal ? { [self] progress in update(progress) } : nil
    }

    private func update(_ progress: ReadProgress) {
        guard progress.fileBytesTotal >= Self.minimumFileBytes else { return }
        let now = Self.monotonicSeconds()
        guard now - lastDrawTime >= Self.redrawInterval else { return }
        lastDrawTime = now
        isShown = true
        writeToStandardError("\r" + ProgressLine.render(progress, elapsedSeconds: now - startTime) + "\u{1B}[K")
    }

    /// Erases the bar (before the run's messages are printed).
    func clear() {
        guard isShown else { return }
        isShown = false
        writeToStandardError("\r\u{1B}[K")
    }

    private static func monotonicSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
