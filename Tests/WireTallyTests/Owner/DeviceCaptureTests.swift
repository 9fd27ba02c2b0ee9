import Foundation
import Testing
@testable import WireTally

/// The recorded `device` scenario (scripts/record-captures device): real curl and python traffic,
/// each packet wrapped in a device layout (PKTAP pcap, Apple pcapng, PCAPdroid trailer pcap,
/// PCAPdroid pcapng) by scripts/lib/device-wrap.py with the owner the clients' own logs name
/// (`device.owners.jsonl`). Every record's process or app must be that owner; the bytes must be those
/// of the plain Ethernet recording; tshark's reading of the same files gives the same packets.
@Suite struct DeviceCaptureTests {
    static let files = ["device-pktap.pcap", "device-pktap.pcapng", "device-pcapdroid.pcap", "device-pcapdroid.pcapng"]

    struct Owner: Decodable {
        var pid: Int
        var comm: String
        var uid: Int
        var proto: String
        var local_port: Int
    }

    /// The clients' owners by `proto:local port`.
    static func owners() throws -> [String: Owner] {
        let text = try String(contentsOfFile: TestPaths.capture("device.owners.jsonl"), encoding: .utf8)
        var owners: [String: Owner] = [:]
        for line in text.split(separator: "\n") {
            let owner = try JSONDecoder().decode(Owner.self, from: Data(line.utf8))
            owners["\(owner.proto):\(owner.local_port)"] = owner
        }
        return owners
    }

    /// The `process` or `app` member a record of `file` must have for `owner`.
    static func expected(_ owner: Owner, in file: String) -> String {
        file.hasPrefix("device-pcapdroid")
            ? #"{"uid":\#(owner.uid),"name":"\#(owner.comm)"}"#
            : #"{"pid":\#(owner.pid),"name":"\#(owner.comm)","effective_pid":null,"effective_name":null}"#
    }

    static func port(_ endpoint: String?) -> String { String(endpoint?.split(separator: ":").last ?? "") }

    @Test(arguments: files)
    func everyRecordNamesTheClientThatMadeIt(file: String) throws {
        let owners = try Self.owners()
        let member = file.hasPrefix("device-pcapdroid") ? "app" : "process"
        let (writer, result) = CollectingWriter.analyze([TestPaths.capture(file)])
        Conservation.check(writer, result)
        #expect(writer.connections.count == 3 && writer.flows.count == 1)
        for record in writer.connections + writer.flows {
            let proto = record.string("proto") ?? "tcp"
            let owner = try #require(owners["\(proto):\(Self.port(record.string("client")))"], "\(record.serialized)")
            #expect(record[member]?.serialized == Self.expected(owner, in: file), "\(file)")
            #expect(!record.flagNames.contains("owner_conflict"))
        }
        // each http record names the client whose log has its request
        let requests = try String(contentsOfFile: TestPaths.capture("device.curl-transfers.jsonl"), encoding: .utf8)
            .split(separator: "\n").count
            + (try String(contentsOfFile: TestPaths.capture("device.pyclient.jsonl"), encoding: .utf8))
            .split(separator: "\n").filter { $0.contains(#""proto": "tcp""#) }.count
        #expect(writer.exchanges.count == requests)
        for exchange in writer.exchanges {
            let owner = try #require(owners["tcp:\(Self.port(exchange.string("conn.client")))"])
            #expect(exchange[member]?.serialized == Self.expected(owner, in: file))
        }
        // the same packets as the plain recording: every connection's and flow's bytes at the IP level
        let (plain, _) = CollectingWriter.analyze([TestPaths.capture("device.pcap")])
        let ipBytes: (CollectingWriter) -> [[Int?]] = { writer in
            (writer.connections + writer.flows).map { [$0.int("up.ip_bytes"), $0.int("down.ip_bytes"), $0.int("up.packets")] }
        }
        #expect(ipBytes(writer) == ipBytes(plain))
        #expect(plain.connections.allSatisfy { $0["process"] == nil && $0["app"] == nil })
    }

    /// Our packets of each device file as tshark reads them (`NAME.EXT.frames.tsv`, recorded): the same
    /// packets with the same lengths; PCAPdroid's pcapng comment `u-<uid>` names the uid we read.
    @Test(arguments: ["device-pktap.pcapng", "device-pcapdroid.pcap", "device-pcapdroid.pcapng"])
    func packetsAndOwnersEqualTsharksReading(file: String) throws {
        let truth = try TruthTable.read(TestPaths.capture(file + ".frames.tsv")).rows.filter { !$0["ip.len"].isEmpty }
        let owners = try Self.owners()
        var source = try CaptureFile.open(path: TestPaths.capture(file))
        var index = 0
        while let packet = try source.nextPacket() {
            defer { index += 1 }
            let row = try #require(index < truth.count ? truth[index] : nil)
            #expect(packet.bytes.count == row.int("frame.len"))
            let port = row["tcp.srcport"].isEmpty ? nil : row["tcp.srcport"] == "80" ? row["tcp.dstport"] : row["tcp.srcport"]
            let udp = row["udp.srcport"] == "53" ? row["udp.dstport"] : row["udp.srcport"]
            let owner = try #require(port.map { owners["tcp:\($0)"] } ?? owners["udp:\(udp)"])
            let ours = try #require(packet.owner)
            #expect(Int(ours.id) == (file.hasPrefix("device-pcapdroid") ? owner.uid : owner.pid))
            #expect(ours.name.description == owner.comm)
            if file == "device-pcapdroid.pcapng" { #expect(row["frame.comment"] == "u-\(ours.id)") }
        }
        #expect(index == truth.count)
    }

    /// A pcapng reader hands on one `RecordedOwner` while consecutive packets name the same owner, a
    /// new one only where the owner changes (the packet carries its owner out of line, allocated once
    /// per change).
    @Test(arguments: ["device-pktap.pcapng", "device-pcapdroid.pcapng"])
    func recordedOwnerIsSharedWhileTheOwnerStays(file: String) throws {
        var source = try CaptureFile.open(path: TestPaths.capture(file))
        var previous: RecordedOwner?
        var boxes = 0, changes = 0
        while let packet = try source.nextPacket() {
            guard let box = packet.recordedOwner else { continue }
            #expect(box.owner.kind != .none)
            if let previous, previous.owner == box.owner { #expect(previous === box) }
            if previous !== box { boxes += 1 }
            if previous?.owner != box.owner { changes += 1 }
            previous = box
        }
        #expect(boxes == changes && changes > 1)
    }

    @Test(arguments: ["device-pktap.pcap", "device-pcapdroid.pcapng"])
    func appFilterKeepsOneClientsTraffic(file: String) throws {
        var options = CaptureAnalyzer.Options()
        options.appName = "python3"
        let (writer, result) = CollectingWriter.analyze([TestPaths.capture(file)], options: options)
        Conservation.check(writer, result)
        let owners = try Self.owners()
        let kept = writer.connections + writer.flows
        #expect(kept.count == 2)
        for record in kept {
            let owner = try #require(owners["\(record.string("proto") ?? "tcp"):\(Self.port(record.string("client")))"])
            #expect(owner.comm == "python3")
        }
        // every packet of another client is counted as filtered (the PKTAP header names each one)
        let others = try TruthTable.load("device-pktap", "pktap.tsv").rows.filter { $0["pktap.cmdname"] != "python3" }
        #expect(result.summary.filtered.packets == others.count && others.count > 0)
        #expect(writer.exchanges.count == 3)
    }

    /// The reading thread does not decode ahead when `--app` filters (as with `-f`): one or two
    /// threads give the same records.
    @Test func appFilterGivesTheSameRecordsOnOneOrTwoThreads() throws {
        var options = CaptureAnalyzer.Options()
        options.appName = "python3"
        func run(_ threads: Int) throws -> [String] {
            let writer = CollectingWriter()
            _ = AnalysisRun(files: [TestPaths.capture("device-pktap.pcap")], options: options, threads: threads).run(writer: writer)
            return (writer.connections + writer.flows + writer.exchanges + [try #require(writer.summary)]).map(\.serialized)
        }
        #expect(try run(1) == run(2))
    }

    /// `--summary`: the endpoints split by app, each app's bytes those of its http records.
    @Test func endpointSummaryGroupsByApp() throws {
        final class Tee: RecordWriter {
            let records = CollectingWriter()
            let aggregator = EndpointAggregator()
            func write(_ record: AnalysisRecord, timestampDigits: Int) {
                records.write(record, timestampDigits: timestampDigits)
                aggregator.add(record)
            }
            func finish(summary: CaptureSummary, files: [String]) {}
        }
        let tee = Tee()
        _ = AnalysisRun(files: [TestPaths.capture("device-pktap.pcap")]).run(writer: tee)
        let endpoints = tee.aggregator.summaries()
        let apps = EndpointAggregator.apps(endpoints)
        #expect(Set(apps.map(\.app)) == ["curl", "python3"])
        #expect(endpoints.allSatisfy { $0.app != nil })
        // listed app by app: all of one app's endpoints, then the other's
        #expect(endpoints.map { $0.app! }.reduce(into: [String]()) { if $0.last != $1 { $0.append($1) } }.count == 2)
        for app in apps {
            let records = tee.records.exchanges.filter { $0.string("process.name") == app.app }
            #expect(app.requests == records.count)
            #expect(app.up == records.reduce(0) { $0 + ($1.int("wire.up.ip_bytes") ?? 0) })
            #expect(app.down == records.reduce(0) { $0 + ($1.int("wire.down.ip_bytes") ?? 0) })
        }
        let table = EndpointSummaryWriter.table(endpoints, windowWidth: tee.aggregator.windowWidth, files: ["device-pktap.pcap"])
        #expect(table.hasPrefix("APP "))
        #expect(tee.aggregator.json()["apps"] != nil)
    }

    /// `--app` on the commands that take `-f`: analyze keeps python's records only, compare and report
    /// accept it.
    @Test(.requires(.wiretallyBinary))
    func appOptionOnTheCommandLine() throws {
        let file = TestPaths.capture("device-pcapdroid.pcap")
        let analyze = try CommandLineTests.run(["analyze", file, "--app", "python3", "--format", "jsonl"])
        #expect(analyze.status == 0)
        let lines = analyze.stdout.split(separator: "\n").filter { $0.contains(#""type":"connection""#) || $0.contains(#""type":"http""#) }
        #expect(lines.count == 4 && lines.allSatisfy { $0.contains(#""app":{"uid":65534,"name":"python3"}"#) })
        let html = TestScratch.folder.appendingPathComponent("device-\(UUID().uuidString).html").path
        #expect(try CommandLineTests.run(["report", file, "--app", "python3", "-o", html, "--quiet"]).status == 0)
        #expect(try CommandLineTests.run(["compare", file, "--app", "python3", "--quiet"]).status == 0)
    }

    @Test func csvColumnsCarryTheOwner() throws {
        let path = TestScratch.folder.appendingPathComponent("device-\(UUID().uuidString).csv").path
        _ = AnalysisRun(files: [TestPaths.capture("device-pcapdroid.pcap")])
            .run(writer: CSVWriter(output: try TextOutput(path: path), view: .connections))
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        let header = try #require(lines.first).split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        #expect(header.suffix(6) == ["process_pid", "process_name", "process_effective_pid", "process_effective_name", "app_uid", "app_name"])
        let (records, _) = CollectingWriter.analyze([TestPaths.capture("device-pcapdroid.pcap")])
        #expect(lines.count - 1 == records.connections.count)
        for (line, record) in zip(lines.dropFirst(), records.connections) {
            let row = Dictionary(uniqueKeysWithValues: zip(header, line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)))
            #expect(row["app_uid"] == record.int("app.uid").map(String.init) && row["app_name"] == record.string("app.name"))
            #expect(row["process_pid"] == "")
        }
    }

    @Test func reportGroupsEndpointsByApp() throws {
        let model = ReportRun(files: [TestPaths.capture("device-pcapdroid.pcap")]).run()
        let exchanges = ReportFixture.rows(model, "exchanges")
        #expect(exchanges.count == 6)
        #expect(Set(exchanges.compactMap { $0["app"]?.plainText }) == ["curl", "python3"])
        #expect(exchanges.allSatisfy { ($0["endpoint"]?.plainText ?? "").hasPrefix(($0["app"]?.plainText ?? "?") + ": ") })
        #expect(Set(ReportFixture.rows(model, "connections").compactMap { $0["app"]?.plainText }) == ["curl", "python3"])
    }
}
