import Foundation

/// The folder of one test process for the files tests write (captures, outputs, HAR and report
/// files), removed when the process exits: test runs leave nothing in the system's temporary folder.
enum TestScratch {
    static let folder: URL = {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("wiretally-tests-\(getpid())-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        pathRemovedAtExit = url.path
        atexit {
            if let path = TestScratch.pathRemovedAtExit { try? FileManager.default.removeItem(atPath: path) }
        }
        return url
    }()

    /// Set once, by `folder`'s initialiser, before the exit handler can run.
    nonisolated(unsafe) private static var pathRemovedAtExit: String?
}
