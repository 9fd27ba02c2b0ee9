import Foundation
import Testing

@testable import WireTally

/// HAR documents of every recorded capture, checked by independent consumers (the HAR 1.2 JSON
/// schema through Python's jsonschema, and haralyzer) and against nginx's own byte counts.
@Suite(.serialized) struct HARCaptureTests {
    /// Each capture's HAR, written once.
    nonisolated(unsafe) static let documents: [(capture: String, path: String, log: [String: Any])] = HARTestSupport.captures.compactMap {
        capture in
        let name = URL(fileURLWithPath: capture).lastPathComponent
        guard let (path, log) = try? HARTestSupport.har([capture], name: name) else { return nil }
        return (capture, path, log)
    }

    /// One entry per exchange of our own analysis (a format check: both counts are ours; the count
    /// against nginx's log is `HARIndependentTruthTests.sizesEqualNginx`).
    @Test func everyCaptureHasAHARWithOneEntryPerExchange() throws {
        #expect(Self.documents.count == HARTestSupport.captures.count)
        #expect(Self.documents.count >= 10)
        // the HTTP/2 recordings are among them (their keyed HARs: HTTP2TruthTests)
        #expect(Set(Self.documents.map { URL(fileURLWithPath: $0.capture).deletingPathExtension().lastPathComponent }).isSuperset(of: HTTP2Recordings.all))
        for document in Self.documents {
            let (collected, _) = CollectingWriter.analyze([document.capture])
            let entries = HARTestSupport.entries(document.log)
            #expect(entries.count == collected.exchanges.count, "\(document.capture)")
            #expect(document.log.string("version") == "1.2")
            #expect(document.log.string("creator.name") == "wiretally")
            let starts = entries.compactMap { $0.string("startedDateTime") }
            #expect(starts == starts.sorted(), "\(document.capture): entries sorted by startedDateTime")
            #expect(Set(entries.compactMap { $0.int("_id") }).count == entries.count)
        }
    }

    @Test(.requires(.jsonschema))
    func everyCaptureValidatesAgainstTheHAR12Schema() throws {
        let paths = Self.documents.map(\.path)
        let check = try HARTestSupport.check(["schema", HARTestSupport.schema], files: paths)
        #expect(check.status == 0, "\(check.output)")
        for document in Self.documents {
            let result = try #require(check.results[document.path], "\(document.path): no result\n\(check.output)")
            #expect(result["valid"] as? Bool == true, "\(document.path): \(result["errors"] ?? "")")
            #expect(result["entries"] as? Int == HARTestSupport.entries(document.log).count)
        }
    }

    /// The validator really rejects what the spec forbids (so a pass above means something).
    @Test(.requires(.jsonschema))
    func theSchemaRejectsInvalidHAR() throws {
        let document = try #require(Self.documents.first { $0.capture.hasSuffix("nginx-curl-keepalive.pcap") })
        let text = try String(contentsOfFile: document.path, encoding: .utf8)
        let broken: [(String, String, String)] = [
            ("negative-wait", "\"wait\":", "\"wait\":-1,\"_was\":"),
            ("no-url", "\"url\":", "\"_url\":"),
            ("bad-date", "\"startedDateTime\":\"", "\"startedDateTime\":\"yesterday "),
            ("unknown-field", "\"cache\":{}", "\"cache\":{},\"extra\":1"),
            ("time-not-sum", "\"time\":", "\"time\":1000000,\"_time\":"),
        ]
        var paths: [String] = []
        for (name, find, replace) in broken {
            let path = HARTestSupport.directory.appendingPathComponent("broken-\(name).har").path
            let range = try #require(text.range(of: find))
            try text.replacingCharacters(in: range, with: replace).write(toFile: path, atomically: true, encoding: .utf8)
            paths.append(path)
        }
        let check = try HARTestSupport.check(["schema", HARTestSupport.schema], files: paths)
        #expect(check.status == 1)
        for path in paths {
            #expect(check.results[path]?["valid"] as? Bool == false, "\(path) was accepted")
        }
    }

    @Test(.requires(.haralyzer))
    func haralyzerLoadsEveryCapture() throws {
        let check = try HARTestSupport.check(["haralyzer"], files: Self.documents.map(\.path))
        #expect(check.status == 0, "\(check.output)")
        for document in Self.documents {
            let entries = HARTestSupport.entries(document.log)
            let result = try #require(check.results[document.path], "\(document.path)\n\(check.output)")
            #expect(result["version"] as? String == "1.2")
            #expect(result["pages"] as? Int == 1)
            #expect(result["entries"] as? Int == entries.count, "\(document.path)")
            #expect(result["requests"] as? Int == entries.filter { $0.string("request.method") != "" }.count)
            let transfer = entries.compactMap { $0.int("response._transferSize") }.filter { $0 > 0 }.reduce(0, +)
            #expect(result["transfer_size"] as? Int == transfer, "\(document.path)")
        }
    }

    /// `time` is the sum of the phases that apply; send/wait/receive are never negative; the default
    /// timing covers the first request packet (or the SYN) to the last response packet.
    @Test func timingsAddUpToTime() throws {
        for document in Self.documents {
            for entry in HARTestSupport.entries(document.log) {
                let timings = try #require(entry["timings"] as? [String: Any])
                let phase = { (name: String) in (timings[name] as? NSNumber)?.doubleValue ?? -1 }
                for name in ["send", "wait", "receive"] { #expect(phase(name) >= 0) }
                let sum = ["blocked", "dns", "connect", "send", "wait", "receive"].map(phase).filter { $0 >= 0 }.reduce(0, +)
                let time = try #require(entry.double("time"))
                #expect(abs(sum - time) < 0.0015, "\(document.capture): time \(time) vs \(sum)")
                if phase("ssl") >= 0 { #expect(phase("connect") >= phase("ssl")) }
                if entry.int("_connection.index") != 0 { #expect(phase("connect") == -1) }
            }
        }
    }

    /// The uploads capture's bodies: multipart and JSON posts, a 100 Continue counted in the headers.
    @Test func uploadsPostDataAndInterimResponses() throws {
        let document = try #require(Self.documents.first { $0.capture.hasSuffix("/nginx-uploads.pcap") })
        let entries = HARTestSupport.entries(document.log)
        let json = try #require(entries.first { $0.string("request.url")?.hasSuffix("/upload/json") == true })
        #expect(json.string("request.postData.mimeType")?.hasPrefix("application/json") == true)
        #expect(json.string("request.postData.text")?.utf8.count == json.int("request.bodySize"))
        #expect(json.int("request.postData._size") == json.int("request.bodySize"))
        let expect = try #require(entries.first { $0.string("request.url")?.hasSuffix("/upload/expect") == true })
        // `100 Continue` (25 bytes) is part of the response head.
        #expect(expect.int("response.headersSize") == 25 + 22 + 137)
        // The response (its 100 Continue) began before the request's body had ended: `wait` is 0,
        // `receive` starts at the request's end (HAR phases must not overlap).
        #expect(expect.double("timings.wait") == 0)
        let chunked = try #require(entries.first { $0.string("request.url")?.hasSuffix("/upload/chunked") == true })
        #expect((chunked.int("request.bodySize") ?? 0) > 100_000)  // chunk framing included
        #expect(chunked.int("request.postData._size") == 100_000)
    }

    /// A gzip response: content.size is the decoded size, compression what the coding saved.
    @Test func contentSizeAndCompressionOfEncodedResponses() throws {
        let document = try #require(Self.documents.first { $0.capture.hasSuffix("/nginx-curl-keepalive.pcap") })
        let gzip = try #require(HARTestSupport.entries(document.log).first {
            ($0.at("response.headers") as? [[String: Any]])?.contains {
                ($0["name"] as? String)?.lowercased() == "content-encoding"
            } == true
        })
        let size = try #require(gzip.int("response.content.size"))
        let compression = try #require(gzip.int("response.content.compression"))
        let body = try #require(gzip.int("response.bodySize"))
        #expect(size > body)
        #expect(compression > 0)
        if size <= HARWriter.retainedBodyBytes {
            #expect(gzip.string("response.content.text")?.utf8.count == size)
        } else {
            #expect(gzip.at("response.content.text") == nil, "larger than the retention limit: no text")
        }
    }
}
