/// A URL reduced to what matching compares: scheme, lowercase host, port (nil when the scheme's
/// default), and path + query (fragment dropped, `/` when empty).
package struct AppLogURL: Hashable, Sendable, CustomStringConvertible {
    package var scheme: String
    package var host: String
    package var port: Int?
    package var pathAndQuery: String

    package init(scheme: String, host: String, port: Int?, pathAndQuery: String) {
        self.scheme = scheme.lowercased()
        var host = host.lowercased()
        if host.hasSuffix("."), host.count > 1 { host.removeLast() }
        self.host = host
        self.port = port == Self.defaultPort(of: self.scheme) ? nil : port
        self.pathAndQuery = pathAndQuery.isEmpty ? "/" : pathAndQuery
    }

    /// Parses an absolute `http(s)://` URL (userinfo ignored); nil when it is not one.
    package init?(_ text: String) {
        guard let schemeEnd = text.firstRange(of: "://") else { return nil }
        let scheme = String(text[..<schemeEnd.lowerBound])
        let rest = text[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        guard let (host, port) = Self.splitAuthority(String(authority)), !host.isEmpty else { return nil }
        var path = rest[authorityEnd...]
        if let hash = path.firstIndex(of: "#") { path = path[..<hash] }
        self.init(scheme: scheme, host: host, port: port, pathAndQuery: path.hasPrefix("?") ? "/" + path : String(path))
    }

    /// `host[:port]` or `[v6][:port]` → host (brackets kept for IPv6) and port; nil when the port is
    /// not a number.
    static func splitAuthority(_ authority: String) -> (String, Int?)? {
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            let host = String(authority[...close])
            let rest = authority[authority.index(after: close)...]
            if rest.isEmpty { return (host, nil) }
            guard rest.hasPrefix(":"), let port = Int(rest.dropFirst()) else { return rest == ":" ? (host, nil) : nil }
            return (host, port)
        }
        if let colon = authority.lastIndex(of: ":") {
            let portText = authority[authority.index(after: colon)...]
            if portText.isEmpty { return (String(authority[..<colon]), nil) }
            guard let port = Int(portText) else { return nil }
            return (String(authority[..<colon]), port)
        }
        return (authority, nil)
    }

    static func defaultPort(of scheme: String) -> Int? {
        switch scheme {
        case "http", "ws": return 80
        case "https", "wss": return 443
        default: return nil
        }
    }

    /// The authority part used for host-only matching: host and (non-default) port.
    package var authority: String { port.map { "\(host):\($0)" } ?? host }

    package var description: String { scheme + "://" + authority + pathAndQuery }
}
