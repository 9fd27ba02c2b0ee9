/// The one-line progress display of a run reading capture files: a bar, the share and bytes read of
/// the total, packets per second and the time left, e.g.
/// `[██████████░░░░░░░░░░]  52%  219.3/421.7 MB  118.2k packets/s  ETA 0:03`.
package enum ProgressLine {
    /// Cells of the bar.
    static let barWidth = 20

    /// The line for `progress` after `elapsedSeconds` of reading.
    package static func render(_ progress: ReadProgress, elapsedSeconds: Double) -> String {
        let total = max(progress.fileBytesTotal, 1)
        let fraction = min(max(Double(progress.fileBytesRead) / Double(total), 0), 1)
        let filled = Int((fraction * Double(barWidth)).rounded(.down))
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: barWidth - filled)
        let percent = Int((fraction * 100).rounded(.down))
        var line = "[\(bar)] \(pad(percent, to: 3))%  \(megabytes(progress.fileBytesRead))/\(megabytes(progress.fileBytesTotal)) MB"
        if elapsedSeconds > 0 {
            line += "  \(rate(Double(progress.packets) / elapsedSeconds)) packets/s"
        }
        if fraction > 0, elapsedSeconds > 0 {
            line += "  ETA \(clock(elapsedSeconds * (1 - fraction) / fraction))"
        }
        return line
    }

    private static func pad(_ value: Int, to width: Int) -> String {
        let text = String(value)
        return String(repeating: " ", count: max(0, width - text.count)) + text
    }

    /// Megabytes (10^6 bytes) with one decimal.
    private static func megabytes(_ bytes: Int) -> String {
        let tenths = (bytes + 50_000) / 100_000
        return "\(tenths / 10).\(tenths % 10)"
    }

    /// A rate with a k/M suffix and one decimal above 1000.
    private static func rate(_ value: Double) -> String {
        switch value {
        case 1_000_000...: return "\(tenths(value / 1_000_000))M"
        case 1000...: return "\(tenths(value / 1000))k"
        default: return String(Int(value.rounded()))
        }
    }

    private static func tenths(_ value: Double) -> String {
        let scaled = Int((value * 10).rounded())
        return "\(scaled / 10).\(scaled % 10)"
    }

    /// m:ss, or h:mm:ss from an hour on.
    private static func clock(_ seconds: Double) -> String {
        let whole = Int(min(seconds, 359_999).rounded(.up))
        let (hours, minutes, secs) = (whole / 3600, whole / 60 % 60, whole % 60)
        let twoDigits = { (value: Int) in value < 10 ? "0\(value)" : "\(value)" }
        return hours > 0 ? "\(hours):\(twoDigits(minutes)):\(twoDigits(secs))" : "\(minutes):\(twoDigits(secs))"
    }
}
