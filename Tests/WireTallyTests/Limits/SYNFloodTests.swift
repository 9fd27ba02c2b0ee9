import Foundation
import Testing
@testable import WireTally

#if canImport(Glibc)
import Glibc
#endif

/// A million half-open connections (SYNs from distinct sources, never answered): the live
/// connection table stays at the cap (`--max-connections`), the stalest connections are evicted and
/// reported, and the process's memory stays bounded.
@Suite(.serialized) struct SYNFloodTests {
    static let synCount = 1_000_000

    /// Writes `count` SYNs to distinct sources (10.64.0.0/10 addresses, ports from 1024), 10 µs apart,
    /// streamed through `PcapWriter` (one 54-byte frame patched in place, checksums recomputed).
    static func writeFlood(to path: String, count: Int) throws {
        let writer = try PcapWriter(destination: .file(path: path), linkType: .ethernet)
        var frame = FrameBuilder.tcp(from: "10.64.0.0:1024", to: "10.255.0.1:80", seq: 12345, flags: [.syn])
        precondition(frame.count == 54)
        try frame.withUnsafeMutableBytes { bytes in
            for index in 0..<count {
                let source = UInt32(0x0A40_0000) | UInt32(index >> 4), port = UInt16(1024 + index & 0xF)
                store32(source, at: 26, in: bytes)
                store16(port, at: 34, in: bytes)
                store16(0, at: 24, in: bytes)
                store16(~sum(bytes, 14..<34), at: 24, in: bytes)
                store16(0, at: 50, in: bytes)
                // TCP pseudo header: addresses, protocol 6, TCP length 20.
                store16(~sum(bytes, 26..<34, 34..<54, extra: 6 + 20), at: 50, in: bytes)
                try writer.write(CapturedPacket(
                    frameNumber: index + 1, timestamp: Timestamp(nanoseconds: 1_700_000_000_000_000_000 + Int64(index) * 10_000),
                    linkType: .ethernet, originalLength: 54, bytes: UnsafeRawBufferPointer(bytes)))
            }
        }
        try writer.close()
    }

    private static func store16(_ value: UInt16, at offset: Int, in bytes: UnsafeMutableRawBufferPointer) {
        bytes[offset] = UInt8(value >> 8)
        bytes[offset + 1] = UInt8(value & 0xff)
    }

    private static func store32(_ value: UInt32, at offset: Int, in bytes: UnsafeMutableRawBufferPointer) {
        store16(UInt16(value >> 16), at: offset, in: bytes)
        store16(UInt16(value & 0xffff), at: offset + 2, in: bytes)
    }

    /// Ones-complement sum of the big-endian 16-bit words of `ranges` plus `extra`.
    private static func sum(_ bytes: UnsafeMutableRawBufferPointer, _ ranges: Range<Int>..., extra: UInt32 = 0) -> UInt16 {
        var total = extra
        for range in ranges {
            for offset in stride(from: range.lowerBound, to: range.upperBound, by: 2) {
                total += UInt32(bytes[offset]) << 8 | UInt32(bytes[offset + 1])
            }
        }
        while total > 0xffff { total = (total & 0xffff) + (total >> 16) }
        return UInt16(total)
    }

    /// Counts connection records as they come, without keeping them.
    final class CountingWriter: RecordWriter {
        var connections = 0, evicted = 0, others = 0
        var summary: CaptureSummary?
        func write(_ record: AnalysisRecord, timestampDigits: Int) {
            guard case let .connection(connection) = record else { others += 1; return }
            connections += 1
            if connection.flags.contains(.evicted) { evicted += 1 }
        }
        func finish(summary: CaptureSummary, files: [String]) { self.summary = summary }
    }

    /// Runs the `wiretally` binary with `arguments`, standard output to `output`, and returns its
    /// exit status and peak resident memory: the child's own `VmHWM` (`/proc/PID/status`), read every
    /// 10 ms until it exits. (`ru_maxrss` from `wait4` would not do: a child spawned from this test
    /// process starts with the test process's high-water mark.)
    static func runMeasured(_ arguments: [String], output: String) throws -> (status: Int32, peakKilobytes: Int) {
        let binary = try #require(CommandLineTests.binary)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = ([binary.path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        try #require(posix_spawn(&pid, binary.path, &actions, nil, argv, environ) == 0)
        var peak = 0, status: Int32 = 0
        while true {
            if let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
               let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
               let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
            {
                peak = max(peak, kilobytes)
            }
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid { break }
            if reaped < 0 && errno != EINTR { break }
            usleep(10_000)
        }
        let exited = status & 0x7f == 0
        return (exited ? (status >> 8) & 0xff : -1, peak)
    }

    /// In process, with a cap of 100,000: every SYN is read and conserved, exactly the surplus is
    /// evicted (so the table never held more than the cap), each evicted connection says so.
    @Test func evictionsKeepTheTableAtTheCap() throws {
        let path = LimitTestSupport.temporaryPath("syn-flood.pcap")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Self.writeFlood(to: path, count: Self.synCount)
        var limits = ReassemblyLimits()
        limits.maxConnections = 100_000
        let writer = CountingWriter()
        let result = AnalysisRun(files: [path], options: .init(limits: limits)).run(writer: writer)
        #expect(result.summary.errors.isEmpty)
        #expect(result.summary.isConserved)
        #expect(result.summary.read.packets == Self.synCount)
        #expect(result.summary.inConnections.packets == Self.synCount)
        #expect(result.summary.connections == Self.synCount)
        #expect(result.summary.connectionEvictions == Self.synCount - 100_000)
        #expect(writer.connections == Self.synCount)
        #expect(writer.evicted == Self.synCount - 100_000)
        #expect(writer.others == 0)

        // The binary with its default cap (50,000): evictions in the summary, peak memory under 256 MB
        // (about 3.4 KB per live connection).
        let output = LimitTestSupport.temporaryPath("syn-flood.txt")
        defer {
            try? FileManager.default.removeItem(atPath: output)
            try? FileManager.default.removeItem(atPath: output + ".stderr")
        }
        let defaultCap = ReassemblyLimits().maxConnections
        for (arguments, evictions, boundMegabytes) in [([String](), Self.synCount - defaultCap, 256)] {
            let run = try Self.runMeasured(["analyze"] + arguments + [path], output: output)
            #expect(run.status == 0)
            let table = try String(contentsOfFile: output, encoding: .utf8)
            #expect(table.contains("packets      \(Self.synCount) ("), "\(table)")
            #expect(table.contains("tcp          \(Self.synCount) connections"), "\(table)")
            #expect(!table.contains("checksums"))
            #expect(table.contains("evicted      \(evictions) connections, 0 QUIC connections, 0 flows") == (evictions > 0), "\(arguments): \(table)")
            #expect(run.peakKilobytes < boundMegabytes << 10, "\(arguments): peak RSS \(run.peakKilobytes / 1024) MB")
        }
    }
}
