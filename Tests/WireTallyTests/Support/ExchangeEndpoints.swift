@testable import WireTally

extension JSONValue {
    /// The port of an `ip:port` / `[ip]:port` string at a dotted path (`conn.client`, `server`).
    func port(_ path: String) -> Int? {
        string(path)?.split(separator: ":").last.flatMap { Int($0) }
    }

    /// A timestamp (JSON number) at a dotted path, e.g. `request.ts_first`.
    func time(_ path: String) -> Double? {
        var value: JSONValue? = self
        for key in path.split(separator: ".") { value = value?[String(key)] }
        return value.flatMap { Double($0.plainText) }
    }
}
