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
}
