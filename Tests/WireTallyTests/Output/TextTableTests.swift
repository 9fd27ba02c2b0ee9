import Foundation
import Testing
@testable import WireTally

/// The layout rule of every terminal table: titles and numbers are never cut; a number too wide for
/// its column gets a unit, text gets `…`.
@Suite struct TextTableTests {
    @Test func wideNumbersGetAUnitNeverAnEllipsis() {
        #expect(TextTable.abbreviated("18557.3%", width: 7) == "18.6 k%")
        #expect(TextTable.abbreviated("-18557.3%", width: 8) == "-18.6 k%")
        #expect(TextTable.abbreviated("123456789012", width: 10) == "123456.8 M")
        #expect(TextTable.abbreviated("123456789012", width: 6) == "123 G")
        #expect(TextTable.abbreviated("98765.432s", width: 8) == "98.8 ks")
        // nothing makes it fit: left whole (the row widens) rather than cut
        #expect(TextTable.abbreviated("123456789", width: 2) == "123456789")
        #expect(TextTable.abbreviated("-", width: 1) == "-")
    }

    /// Cells are measured in characters: ASCII byte-wise, anything else (é, CR LF) as characters.
    @Test func cellsAreMeasuredInCharacters() {
        for text in ["", "/dense/item-26.json", "a\tb"] { #expect(TextTable.isPlainASCII(text), "\(text)") }
        for text in ["é", "日本語", "🎉x", "a\r\nb", "\r", "x\u{301}"] { #expect(!TextTable.isPlainASCII(text), "\(text)") }
        let table = TextTable(columns: [.text("URL", width: 6), .text("END", width: 0)])
        #expect(table.row(["héllo", "x"]) == "héllo  x")
        #expect(table.row(["日本語日本語日本", "x"]) == "日本語日本… x")
        #expect(table.row(["/dense/item", "x"]) == "/dens… x")
        #expect(table.row(["/dens", "x"]) == "/dens  x")
    }

    /// The exchange table's time: the time of day (UTC) to the millisecond, zero-padded.
    @Test func timeOfDayIsZeroPadded() {
        #expect(TableWriter.timeOfDay(Timestamp(nanoseconds: 0)) == "00:00:00.000")
        #expect(TableWriter.timeOfDay(Timestamp(nanoseconds: 1_795_757_433_726_535_123)) == "05:30:33.726")
        #expect(TableWriter.timeOfDay(Timestamp(nanoseconds: 86_399_999_000_000)) == "23:59:59.999")
        #expect(TableWriter.timeOfDay(Timestamp(nanoseconds: 3_723_004_999_999)) == "01:02:03.004")
        #expect(TableWriter.timeOfDay(Timestamp(nanoseconds: -1_000_000)) == "23:59:59.999")
    }

    @Test func titlesAreNeverCutAndRowsKeepTheirColumns() {
        let table = TextTable(columns: [
            .text("SOURCE", width: 6), .init("DOWN ERR", width: 5), .init("P95", width: 7), .text("LARGEST CAUSES", width: 0),
        ])
        #expect(table.header == "SOURCE DOWN ERR     P95 LARGEST CAUSES")
        let row = table.row(["rebuilt-estimator", "-100.0%", "18557.3%", "other 18557, dns 12"])
        #expect(row == "rebui…  -100.0% 18.6 k% other 18557, dns 12")
        #expect(!row.contains("18557…"))
        // every cell starts where the header's does
        #expect(row.count - "other 18557, dns 12".count == table.header.count - "LARGEST CAUSES".count)
    }

    /// `compare`'s tables on a recorded capture: every title whole, no number cut.
    @Test func compareTableHasWholeTitlesAndNumbers() throws {
        let run = try CommandLineTests.run(["compare", TestPaths.capture("codings.pcap")])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        let header = try #require(lines.first { $0.hasPrefix("SOURCE") && $0.contains("REQ") })
        for title in ["UP EST", "UP WIRE", "UP ERR", "DOWN EST", "DOWN WIRE", "DOWN ERR", "MEDIAN", "P95", "LARGEST CAUSES"] {
            #expect(header.contains(title), "\(title) in \(header)")
        }
        #expect(!lines.contains { $0.hasPrefix("naive") || $0.hasPrefix("rebuilt") ? $0.contains("…") : false })
        #expect(!lines.contains { $0.contains("SOURCE") && $0.contains("…") })
    }

    /// The header lines and the exchange lines of `analyze`'s table (up to the summary's blank line),
    /// the latter split at the spaces (no process, app or URL of the device captures has one).
    static func exchangeRows(_ stdout: String) -> (headers: [String], rows: [[String]]) {
        let lines = stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let table = lines.prefix { !$0.isEmpty }
        return (table.filter { $0.hasPrefix("TIME") }, table.filter { !$0.hasPrefix("TIME") }.map { $0.split(separator: " ").map(String.init) })
    }

    /// The owner of each request tshark's HTTP dissector found in the device recording, by URI: the
    /// process tshark's `pktap.cmdname` names on the request's packet (PKTAP), or the app the clients'
    /// own logs name for its port (PCAPdroid: tshark 4.0 reads no PCAPdroid trailer).
    static func requestOwners(_ file: String) throws -> [String] {
        let requests = try TruthTable.load("device-pktap", "http.tsv").rows.filter { !$0["http.request.method"].isEmpty }
        let owners = try DeviceCaptureTests.owners()
        var commands: [Int: String] = [:]
        for row in try TruthTable.load("device-pktap", "pktap.tsv").rows { commands[row.int("frame.number") ?? -1] = row["pktap.cmdname"] }
        return try requests.map { request in
            let owner = file.hasPrefix("device-pktap") ? commands[request.int("frame.number") ?? -1]
                : owners["tcp:\(request.int("tcp.srcport") ?? -1)"]?.comm
            return "\(try #require(owner)) \(request["http.request.uri"])"
        }.sorted()
    }

    /// `analyze`'s exchange table on the recorded device captures has an `APP` column after the time:
    /// each request's process (PKTAP) or app (PCAPdroid) as tshark and the clients' logs name it; on
    /// the same traffic without owners (`device.pcap`) there is no such column.
    @Test(arguments: ["device-pktap.pcap", "device-pcapdroid.pcap"])
    func exchangeTableNamesTheAppOfEachRequest(file: String) throws {
        let run = try CommandLineTests.run(["analyze", TestPaths.capture(file)])
        #expect(run.status == 0, "\(run.stderr)")
        let (headers, rows) = Self.exchangeRows(run.stdout)
        #expect(headers.count == 1 && headers.first?.hasPrefix("TIME            APP              METHOD") == true, "\(headers)")
        let ours = rows.map { row in "\(row[1]) \(row[3].drop { $0 != "/" })" }.sorted()
        #expect(ours == (try Self.requestOwners(file)), "\(run.stdout)")

        let plain = try CommandLineTests.run(["analyze", TestPaths.capture("device.pcap")])
        let (plainHeaders, plainRows) = Self.exchangeRows(plain.stdout)
        #expect(plainHeaders.count == 1 && !plainHeaders[0].contains("APP") && plainRows.count == rows.count, "\(plain.stdout)")
    }

    /// Exchanges without an owner before the first that has one (a plain capture merged before the
    /// PKTAP one): their lines have no `APP` column; the header is written again with it before the
    /// first owned exchange, and the owned lines name their process.
    @Test func appColumnAppearsWithTheFirstOwnedExchange() throws {
        let run = try CommandLineTests.run(["analyze", TestPaths.capture("dns-http.pcap"), TestPaths.capture("device-pktap.pcap")])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n", omittingEmptySubsequences: false).prefix { !$0.isEmpty }.map(String.init)
        let headers = lines.indices.filter { lines[$0].hasPrefix("TIME") }
        #expect(headers.count == 2 && headers.first == 0 && !lines[0].contains("APP") && lines[headers[1]].contains(" APP "), "\(run.stdout)")
        guard headers.count == 2 else { return }
        let owned = lines[(headers[1] + 1)...].map { $0.split(separator: " ").map(String.init) }
        #expect(owned.map { "\($0[1]) \($0[3].drop { $0 != "/" })" }.sorted() == (try Self.requestOwners("device-pktap.pcap")))
    }
}
