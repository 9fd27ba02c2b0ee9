import Foundation

/// App log fixtures written for these tests (kept as Swift literals so the test target needs no
/// resource declarations), and a helper writing them to temporary files.
enum AppLogFixtures {
    /// A HAR as Chrome DevTools exports it (abridged: no headers/cookies/content text), three entries:
    /// a fresh HTTPS connection (dns, connect including ssl), a reused one (-1 phases), and a POST with
    /// an HTTP/2 request whose headersSize is unknown (-1). Times in UTC with `Z`.
    static let chromeHAR = #"""
    {
      "log": {
        "version": "1.2",
        "creator": {"name": "WebInspector", "version": "537.36"},
        "pages": [{"startedDateTime": "2026-11-22T05:16:21.100Z", "id": "page_1", "title": "https://www.wt.test/", "pageTimings": {"onContentLoad": 120.5, "onLoad": 200.1}}],
        "entries": [
          {
            "_initiator": {"type": "other"}, "_priority": "VeryHigh", "_resourceType": "document",
            "cache": {}, "connection": "38112", "pageref": "page_1",
            "request": {"method": "GET", "url": "https://www.wt.test/index.html", "httpVersion": "http/1.1",
              "headers": [{"name": "Host", "value": "www.wt.test"}], "queryString": [], "cookies": [],
              "headersSize": 412, "bodySize": 0},
            "response": {"status": 200, "statusText": "OK", "httpVersion": "http/1.1",
              "headers": [{"name": "Content-Type", "value": "text/html"}], "cookies": [],
              "content": {"size": 1043, "mimeType": "text/html", "compression": 0},
              "redirectURL": "", "headersSize": 262, "bodySize": 1043, "_transferSize": 1305, "_error": null},
            "serverIPAddress": "10.77.0.2", "startedDateTime": "2026-11-22T05:16:21.123Z",
            "time": 48.25,
            "timings": {"blocked": 1.5, "dns": 3.25, "ssl": 20.0, "connect": 30.0, "send": 0.25, "wait": 12.0,
              "receive": 1.25, "_blocked_queueing": 0.75}
          },
          {
            "cache": {}, "connection": "38112", "pageref": "page_1",
            "request": {"method": "GET", "url": "https://WWW.wt.test:443/data.json?x=1#frag", "httpVersion": "http/1.1",
              "headers": [], "queryString": [{"name": "x", "value": "1"}], "cookies": [], "headersSize": 380, "bodySize": 0},
            "response": {"status": 200, "statusText": "OK", "httpVersion": "http/1.1", "headers": [], "cookies": [],
              "content": {"size": 200000, "mimeType": "application/json", "compression": 159663},
              "redirectURL": "", "headersSize": 281, "bodySize": 40337, "_transferSize": 40618},
            "serverIPAddress": "10.77.0.2", "startedDateTime": "2026-11-22T05:16:21.300Z", "time": 9.5,
            "timings": {"blocked": 0.5, "dns": -1, "ssl": -1, "connect": -1, "send": 0.5, "wait": 6.0, "receive": 2.5}
          },
          {
            "cache": {}, "connection": "38200", "pageref": "page_1",
            "request": {"method": "post", "url": "https://api.wt.test/v1/items", "httpVersion": "h2",
              "headers": [], "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 27,
              "postData": {"mimeType": "application/json", "text": "{\"name\":\"caf\u00e9 \ud83d\ude00\"}"}},
            "response": {"status": 201, "statusText": "", "httpVersion": "h2", "headers": [], "cookies": [],
              "content": {"size": 16, "mimeType": "application/json"}, "redirectURL": "",
              "headersSize": -1, "bodySize": -1, "_transferSize": 120},
            "serverIPAddress": "10.77.0.3", "startedDateTime": "2026-11-22T05:16:22.000Z", "time": 30,
            "timings": {"blocked": -1, "dns": -1, "ssl": -1, "connect": -1, "send": 0, "wait": 25, "receive": 5}
          }
        ]
      }
    }
    """#

    /// A HAR as Charles writes it: local time with an offset, no `_transferSize`.
    static let charlesHAR = #"""
    {"log":{"version":"1.2","creator":{"name":"Charles Proxy","version":"4.6.4"},"entries":[
    {"startedDateTime":"2026-11-22T06:16:21.123+01:00","time":5,"request":{"method":"GET","url":"http://10.77.0.2/small.txt","httpVersion":"HTTP/1.1","cookies":[],"headers":[],"queryString":[],"headersSize":82,"bodySize":0},
     "response":{"_charlesStatus":"COMPLETE","status":200,"statusText":"OK","httpVersion":"HTTP/1.1","cookies":[],"headers":[],"content":{"size":33,"mimeType":"text/plain"},"redirectURL":null,"headersSize":237,"bodySize":33},
     "serverIPAddress":"10.77.0.2","cache":{},"timings":{"dns":-1,"connect":-1,"ssl":-1,"send":1,"wait":3,"receive":1}}]}}
    """#

    /// curl `--write-out '%{json}'` lines: one from curl 7.88 (with `method`), one from an older
    /// curl without `method` (an upload: guessed POST), a failed transfer (no connection), and an HTTPS one.
    static let curlLines = #"""
    {"http_code":200,"method":"GET","url_effective":"http://10.77.0.2/index.html","local_port":60418,"remote_ip":"10.77.0.2","remote_port":80,"num_connects":1,"size_request":83,"size_upload":0,"size_header":262,"size_download":1043,"time_namelookup":0.000028,"time_connect":0.000398,"time_appconnect":0.000000,"time_pretransfer":0.000605,"time_starttransfer":0.000609,"time_total":0.000664,"exitcode":0}
    {"http_code":201,"url_effective":"http://10.77.0.2/upload","local_port":60420,"remote_ip":"10.77.0.2","remote_port":80,"num_connects":0,"size_request":150,"size_upload":100000,"size_header":160,"size_download":16,"time_namelookup":0.00001,"time_connect":0,"time_appconnect":0,"time_pretransfer":0.0001,"time_starttransfer":0.0021,"time_total":0.0031,"exitcode":0}

    {"http_code":0,"method":"GET","url_effective":"http://nx.wt.test/","local_port":0,"remote_ip":"","remote_port":0,"num_connects":0,"size_request":0,"size_upload":0,"size_header":0,"size_download":0,"time_namelookup":0,"time_connect":0,"time_appconnect":0,"time_pretransfer":0,"time_starttransfer":0,"time_total":0.012,"exitcode":6,"errormsg":"Could not resolve host: nx.wt.test"}
    {"http_code":200,"method":"GET","url_effective":"https://www.wt.test/index.html","local_port":41000,"remote_ip":"10.77.0.2","remote_port":443,"num_connects":1,"size_request":81,"size_upload":0,"size_header":262,"size_download":1043,"time_namelookup":0.0012,"time_connect":0.0015,"time_appconnect":0.0065,"time_pretransfer":0.0066,"time_starttransfer":0.0080,"time_total":0.0082,"exitcode":0}
    """#

    /// The wiretally app log: a first request on a new TLS connection with full metrics, a reused
    /// connection (no lookup/connect dates), one without metrics and with `start_ms`.
    static let wiretallyLines = #"""
    {"url":"https://api.wt.test/v1/items?page=2","method":"GET","status":200,"start":1795324582.000356,"request_header_bytes":312,"request_body_bytes":0,"response_header_bytes":410,"response_body_bytes":5120,"metrics":{"fetchStart":1795324582.000356,"domainLookupStart":1795324582.0005,"domainLookupEnd":1795324582.0125,"connectStart":1795324582.0130,"secureConnectionStart":1795324582.0300,"connectEnd":1795324582.0700,"requestStart":1795324582.0705,"requestEnd":1795324582.0706,"responseStart":1795324582.1190,"responseEnd":1795324582.1240}}
    {"url":"https://api.wt.test/v1/items?page=3","method":"GET","status":200,"start":1795324583.5,"request_header_bytes":312,"request_body_bytes":0,"response_header_bytes":410,"response_body_bytes":4000,"response_transfer_bytes":4420,"metrics":{"fetchStart":1795324583.5,"domainLookupStart":null,"connectStart":null,"requestStart":1795324583.501,"requestEnd":1795324583.5011,"responseStart":1795324583.541,"responseEnd":1795324583.545},"local_port":51000}
    {"url":"http://10.77.0.2/small.txt","method":"HEAD","status":null,"start_ms":1795324584250,"request_header_bytes":-1}
    """#

    static let directory: URL = {
        let url = TestScratch.folder.appendingPathComponent("wiretally-applogs-\(getpid())")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    /// Writes `text` to a temporary file named `name` and returns its path.
    static func write(_ text: String, name: String) throws -> String {
        let path = directory.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }
}
