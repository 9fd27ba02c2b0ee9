import Foundation

/// One transfer of a curl `--write-out '%{json}'` log, with its position on its connection.
struct CurlTransfer {
    /// The JSON object curl wrote.
    var fields: [String: Any]
    /// curl's local port: the connection's client port.
    var port: Int
    /// The transfer's position among the transfers on that connection (the exchange index).
    var index: Int

    /// True when curl finished the transfer (exit code 0); aborted transfers have partial figures.
    var completed: Bool { (fields["exitcode"] as? Int) == 0 }
    /// The transfer was cleartext HTTP (curl's `scheme`), not HTTPS.
    var isPlainHTTP: Bool { (fields["scheme"] as? String)?.lowercased() == "http" }

    /// A duration field in milliseconds.
    func milliseconds(_ key: String) -> Double { ((fields[key] as? Double) ?? Double(fields[key] as? Int ?? 0)) * 1000 }

    /// Every transfer of `captures/NAME.curl.jsonl` that used a connection.
    static func load(_ name: String) throws -> [CurlTransfer] {
        var transfersPerPort: [Int: Int] = [:]
        return try String(contentsOfFile: TestPaths.capture(name + ".curl.jsonl"), encoding: .utf8)
            .split(separator: "\n").compactMap { line in
                guard let fields = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                      let port = fields["local_port"] as? Int, port > 0 else { return nil }
                let index = transfersPerPort[port, default: 0]
                transfersPerPort[port] = index + 1
                return CurlTransfer(fields: fields, port: port, index: index)
            }
    }
}

extension CurlTransfer {
    /// curl's times of this transfer, in ms, for `CurlPhaseComparison`.
    var curlTimes: CurlPhaseComparison.CurlTimes {
        CurlPhaseComparison.CurlTimes(
            namelookup: milliseconds("time_namelookup"), connect: milliseconds("time_connect"),
            appconnect: milliseconds("time_appconnect"), pretransfer: milliseconds("time_pretransfer"),
            starttransfer: milliseconds("time_starttransfer"), total: milliseconds("time_total"),
            opensConnection: (fields["num_connects"] as? Int ?? 0) > 0,
            uploads: (fields["size_upload"] as? Int ?? 0) > 0, completed: completed)
    }
}
