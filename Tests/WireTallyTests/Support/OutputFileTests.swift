import Foundation
import Testing

/// `FileHandle.truncatingForWriting`, through which the live tests and the browser runs send their
/// programs' output to files or to `/dev/null`.
struct OutputFileTests {
    /// `/dev/null` stays the character device it is (`FileManager.createFile` replaced it with a
    /// regular file, which every later write on the machine then filled).
    @Test func devNullStaysADevice() throws {
        let handle = try FileHandle.truncatingForWriting("/dev/null")
        handle.write(Data("discarded\n".utf8))
        try handle.close()
        var info = stat()
        #expect(stat("/dev/null", &info) == 0)
        #expect(info.st_mode & S_IFMT == S_IFCHR)
    }

    /// A missing file is made; one with contents is emptied before the new ones.
    @Test func aFileIsMadeOrEmptied() throws {
        let path = TestScratch.folder.appendingPathComponent("output-\(UUID().uuidString)").path
        for text in ["a longer first text\n", "second\n"] {
            let handle = try FileHandle.truncatingForWriting(path)
            handle.write(Data(text.utf8))
            try handle.close()
            #expect(try String(contentsOfFile: path, encoding: .utf8) == text)
        }
        #expect(throws: (any Error).self) { try FileHandle.truncatingForWriting(path + "/inside-a-file") }
    }
}
