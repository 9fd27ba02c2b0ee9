import Foundation
import Testing
@testable import WireTally

/// The app log readers on fixtures written for them, the JSON reader, dates and format detection.
@Suite struct AppLogReaderTests {
    @Test func harLikeChrome() throws {
        let entries = try HARLogReader.entries(bytes: AppLogFixtures.bytes(AppLogFixtures.chromeHAR))
        #expect(entries.count == 3)
        let first = entries[0]
        #expect(first.method == "GET")
        #expect(first.url == "https://www.wt.test/index.html")
        #expect(first.status == 200)
        #expect(first.start == ISO8601.seconds("2026-11-22T05:16:21.123Z"))
        #expect(abs(first.start! - 1795324581.123) < 1e-6)
        #expect(first.requestHeaderBytes == 412 && first.requestBodyBytes == 0)
        #expect(first.responseHeaderBytes == 262 && first.responseBodyBytes == 1043 && first.responseTransferBytes == 1305)
        #expect(first.phases == AppLogPhases(dns: 3.25, connect: 10, ssl: 20, ttfb: 12.25, total: 48.25))
        #expect(first.estimate == TrafficEstimate(up: 412, down: 1305, upHeaders: 412, upBody: 0, downHeaders: 262, downBody: 1043))
        #expect(first.line == 0 && first.source == "entries[0]")

        let reused = entries[1]
        #expect(reused.phases.dns == nil && reused.phases.connect == nil && reused.phases.ssl == nil)
        #expect(reused.phases.ttfb == 6.5 && reused.phases.total == 9.5)
        #expect(AppLogURL(reused.url) == AppLogURL("https://www.wt.test/data.json?x=1"))

        let post = entries[2]
        #expect(post.method == "POST")
        #expect(post.requestHeaderBytes == nil && post.requestBodyBytes == 27)
        // bodySize -1: the body count is `content.size` (what the browser delivered); down stays `_transferSize`.
        #expect(post.responseHeaderBytes == nil && post.responseBodyBytes == 16 && post.responseTransferBytes == 120)
        #expect(post.estimate == TrafficEstimate(up: 27, down: 120, upHeaders: nil, upBody: 27, downHeaders: nil, downBody: 16))
    }

    @Test func harLikeCharlesWithZoneOffset() throws {
        let entries = try HARLogReader.entries(bytes: AppLogFixtures.bytes(AppLogFixtures.charlesHAR))
        #expect(entries.count == 1)
        // 06:16:21.123+01:00 is 05:16:21.123Z.
        #expect(abs(entries[0].start! - 1795324581.123) < 1e-6)
        #expect(entries[0].responseTransferBytes == nil)
        #expect(entries[0].estimate?.down == 237 + 33)
        #expect(entries[0].phases.ttfb == 4)
    }

    @Test func iso8601() {
        #expect(ISO8601.seconds("1970-01-01T00:00:00Z") == 0)
        #expect(ISO8601.seconds("1970-01-01T01:00:00+01:00") == 0)
        #expect(ISO8601.seconds("1970-01-01T00:00:00-0130") == 5400)
        #expect(ISO8601.seconds("2000-02-29T12:00:00.5Z") == 951_825_600.5)
        #expect(ISO8601.seconds("2000-02-29 12:00:00") == 951_825_600)
        #expect(ISO8601.seconds("2026-11-22T05:16:21.123456Z").map { abs($0 - 1795324581.123456) < 1e-6 } == true)
        #expect(ISO8601.seconds("2026-13-22T05:16:21Z") == nil)
        #expect(ISO8601.seconds("yesterday") == nil)
        #expect(ISO8601.seconds("2026-11-22T05:16:21Zjunk") == nil)
        // What wiretally's HAR writer produces reads back to the truncated millisecond.
        let stamp = Timestamp(nanoseconds: 1_795_324_581_123_999_000)
        #expect(ISO8601.seconds(HARDate.iso8601(stamp)).map { abs($0 - 1795324581.123) < 1e-6 } == true)
    }

    @Test func curlLines() throws {
        let entries = try CurlJSONLogReader.entries(bytes: AppLogFixtures.bytes(AppLogFixtures.curlLines))
        #expect(entries.count == 4)
        #expect(entries.map(\.line) == [1, 2, 4, 5])
        #expect(entries.allSatisfy { $0.start == nil })
        let first = entries[0]
        #expect(first.method == "GET" && !first.methodIsGuess)
        #expect(first.localPort == 60418 && first.remoteAddress == "10.77.0.2" && first.remotePort == 80)
        #expect(first.estimate == TrafficEstimate(up: 83, down: 1305, upHeaders: 83, upBody: 0, downHeaders: 262, downBody: 1043))
        #expect(abs(first.phases.dns! - 0.028) < 1e-9)
        #expect(abs(first.phases.connect! - 0.370) < 1e-9)
        #expect(first.phases.ssl == nil)
        #expect(abs(first.phases.ttfb! - 0.004) < 1e-9)
        #expect(abs(first.phases.total! - 0.664) < 1e-9)
        #expect(first.relativeStart == 0)

        let upload = entries[1]
        #expect(upload.method == "POST" && upload.methodIsGuess)
        #expect(upload.phases.dns == nil && upload.phases.connect == nil)  // reused connection
        #expect(upload.estimate?.up == 100_150)
        #expect(abs(upload.relativeStart! - 0.000664) < 1e-12)

        let failed = entries[2]
        #expect(failed.status == nil && failed.localPort == nil && failed.remoteAddress == nil)

        let https = entries[3]
        #expect(abs(https.phases.ssl! - 5.0) < 1e-9)
        #expect(abs(https.phases.connect! - 0.3) < 1e-9)
        #expect(abs(https.phases.dns! - 1.2) < 1e-9)
    }

    @Test func curlLogOfARecordedCapture() throws {
        let log = try AppLog.read(path: TestPaths.capture("nginx-curl-keepalive.curl.jsonl"))
        #expect(log.format == .curl)
        #expect(log.entries.count == 8)
        #expect(log.entries.map(\.method) == ["GET", "GET", "HEAD", "GET", "GET", "GET", "GET", "GET"])
        #expect(log.entries.map(\.status) == [200, 200, 200, 304, 304, 204, 404, 200])
        #expect(log.entries.allSatisfy { $0.localPort == 60418 })
    }

    @Test func wiretallyLines() throws {
        let entries = try WiretallyAppLogReader.entries(bytes: AppLogFixtures.bytes(AppLogFixtures.wiretallyLines))
        #expect(entries.count == 3)
        let first = entries[0]
        #expect(first.start == 1795324582.000356 && first.method == "GET" && first.status == 200)
        #expect(first.estimate == TrafficEstimate(up: 312, down: 5530, upHeaders: 312, upBody: 0, downHeaders: 410, downBody: 5120))
        func near(_ value: Double?, _ expected: Double) -> Bool { value.map { abs($0 - expected) < 1e-3 } ?? false }
        #expect(near(first.phases.dns, 12.0))
        #expect(near(first.phases.connect, 17.0))
        #expect(near(first.phases.ssl, 40.0))
        #expect(near(first.phases.ttfb, 48.5))
        #expect(near(first.phases.total, 123.644))

        let reused = entries[1]
        #expect(reused.phases.dns == nil && reused.phases.connect == nil && reused.phases.ssl == nil)
        #expect(near(reused.phases.ttfb, 40))
        #expect(reused.estimate?.down == 4420)
        #expect(reused.localPort == 51000)

        let bare = entries[2]
        #expect(bare.start == 1795324584.25 && bare.method == "HEAD" && bare.status == nil)
        #expect(bare.requestHeaderBytes == nil && bare.estimate == nil)
        #expect(bare.phases == AppLogPhases())
    }

    @Test func detection() throws {
        #expect(AppLogFormat.detect(bytes: AppLogFixtures.bytes(AppLogFixtures.chromeHAR)) == .har)
        #expect(AppLogFormat.detect(bytes: AppLogFixtures.bytes(AppLogFixtures.charlesHAR)) == .har)
        #expect(AppLogFormat.detect(bytes: AppLogFixtures.bytes(AppLogFixtures.curlLines)) == .curl)
        #expect(AppLogFormat.detect(bytes: AppLogFixtures.bytes(AppLogFixtures.wiretallyLines)) == .wiretally)
        #expect(AppLogFormat.detect(bytes: AppLogFixtures.bytes("")) == nil)
        #expect(AppLogFormat.detect(bytes: AppLogFixtures.bytes("hello\nworld\n")) == nil)
        #expect(AppLogFormat.detect(bytes: AppLogFixtures.bytes(#"{"type":"http","id":1}"#)) == nil)
        // By path, and the reader it selects.
        let har = try AppLogFixtures.write(AppLogFixtures.chromeHAR, name: "chrome.har")
        let curl = try AppLogFixtures.write(AppLogFixtures.curlLines, name: "curl.log")
        let ours = try AppLogFixtures.write(AppLogFixtures.wiretallyLines, name: "app.jsonl")
        #expect(try AppLogFormat.detect(path: har) == .har)
        #expect(try AppLogFormat.detect(path: curl) == .curl)
        #expect(try AppLogFormat.detect(path: ours) == .wiretally)
        #expect(try AppLog.read(path: har).entries.count == 3)
        #expect(try AppLog.read(path: ours).format == .wiretally)
        #expect(try AppLogFormat.detect(path: TestPaths.capture("nginx-curl-keepalive.curl.jsonl")) == .curl)
        #expect(throws: AppLogError.self) { try AppLogFormat.detect(path: TestPaths.capture("nginx-curl-keepalive.nginx.jsonl")) }
        #expect(throws: AppLogError.self) { try AppLog.read(path: "/nonexistent/app.log") }
    }

    @Test func malformedLinesAreReportedWithTheirLine() throws {
        let text = AppLogFixtures.wiretallyLines + "\n{\"url\": \"http://x/\", \"start\": 1,\n"
        #expect(throws: AppLogError.malformed(path: "<app log>", line: 4, reason: "JSON error at column 33: expected a key")) {
            try WiretallyAppLogReader.entries(bytes: AppLogFixtures.bytes(text))
        }
        #expect(throws: AppLogError.self) { try HARLogReader.entries(bytes: AppLogFixtures.bytes(#"{"log":{}}"#)) }
    }

    @Test func jsonReader() throws {
        let value = try AppLogJSON.parse(#" {"a":[1,-2.5,3e2,true,false,null],"s":"caf\u00e9 \ud83d\ude00 \"q\" \\ \/ \n","big":12345678901234567890,"o":{}} "#)
        #expect(value.appPath("a")?.appArray?.count == 6)
        #expect(value.appPath("a")?.appArray?[0] == .integer(1))
        #expect(value.appPath("a")?.appArray?[1].appDouble == -2.5)
        #expect(value.appPath("a")?.appArray?[2].appDouble == 300)
        #expect(value.appPath("s")?.appString == "café 😀 \"q\" \\ / \n")
        #expect(value.appPath("big")?.appDouble == 12345678901234567890)
        #expect(value.appPath("o")?.appIsObject == true)
        for bad in ["", "{", "[1,]", "{\"a\" 1}", "01x", "\"abc", "tru", "{} {}", "\"\\x\"", "-", "1."] {
            #expect(throws: AppLogJSON.SyntaxError.self, "\(bad)") { try AppLogJSON.parse(bad) }
        }
        // Deep nesting is refused, not a stack overflow.
        #expect(throws: AppLogJSON.SyntaxError.self) { try AppLogJSON.parse(String(repeating: "[", count: 100_000)) }
    }

    @Test func urlNormalisation() {
        #expect(AppLogURL("HTTP://Example.COM:80/a?b=1#c") == AppLogURL(scheme: "http", host: "example.com", port: nil, pathAndQuery: "/a?b=1"))
        #expect(AppLogURL("https://example.com:443") == AppLogURL("https://example.com/"))
        #expect(AppLogURL("https://example.com:8443/")?.authority == "example.com:8443")
        #expect(AppLogURL("http://user:pw@[fd77::2]:8080/x")?.authority == "[fd77::2]:8080")
        #expect(AppLogURL("http://example.com?q")?.pathAndQuery == "/?q")
        #expect(AppLogURL("/relative") == nil)
        #expect(AppLogURL("http://host:port/") == nil)
        #expect(AppLogURL("http://Example.com./") == AppLogURL("http://example.com/"))
    }
}
