/// Cookies as HAR lists them: sent ones from `Cookie` request headers, set ones from `Set-Cookie`.
package struct HARCookie: Equatable, Sendable {
    package var name: String
    package var value: String
    package var path: String?
    package var domain: String?
    /// ISO 8601, from `Max-Age` (relative to the response) or else `Expires`.
    package var expires: String?
    package var httpOnly: Bool?
    package var secure: Bool?

    package init(name: String, value: String, path: String? = nil, domain: String? = nil, expires: String? = nil,
                httpOnly: Bool? = nil, secure: Bool? = nil) {
        self.name = name
        self.value = value
        self.path = path
        self.domain = domain
        self.expires = expires
        self.httpOnly = httpOnly
        self.secure = secure
    }
}

package enum HTTPCookies {
    /// The cookies of every `Cookie` header (`a=1; b=2`), in order; values as sent (not decoded).
    package static func requestCookies(_ headers: [HTTPHeader]) -> [HARCookie] {
        headers.filter { $0.name.lowercased() == "cookie" }.flatMap { header in
            header.value.split(separator: ";").compactMap { piece -> HARCookie? in
                let pair = pairParts(piece)
                return pair.name.isEmpty && pair.value.isEmpty ? nil : HARCookie(name: pair.name, value: pair.value)
            }
        }
    }

    /// One cookie per `Set-Cookie` header with its attributes; `received` turns `Max-Age` into a date.
    package static func responseCookies(_ headers: [HTTPHeader], received: Timestamp?) -> [HARCookie] {
        headers.filter { $0.name.lowercased() == "set-cookie" }.compactMap { header in
            let pieces = header.value.split(separator: ";", omittingEmptySubsequences: false)
            guard let first = pieces.first else { return nil }
            let pair = pairParts(first)
            guard !(pair.name.isEmpty && pair.value.isEmpty) else { return nil }
            var cookie = HARCookie(name: pair.name, value: pair.value)
            var expires: String?
            var maxAge: String?
            for attribute in pieces.dropFirst() {
                // An attribute without `=` (`HttpOnly`, `Secure`) is a name.
                let (name, value) = attribute.contains("=") ? pairParts(attribute) : (attribute.trimmingHTTPWhitespace(), "")
                switch name.lowercased() {
                case "path": cookie.path = value
                case "domain": cookie.domain = value
                case "expires": expires = HARDate.parseHTTPDate(value).map(HARDate.iso8601)
                case "max-age":
                    if let seconds = Int64(value), let received {
                        maxAge = HARDate.iso8601(Timestamp(nanoseconds: received.nanoseconds + max(seconds, 0) * 1_000_000_000))
                    }
                case "httponly": cookie.httpOnly = true
                case "secure": cookie.secure = true
                default: break
                }
            }
            cookie.expires = maxAge ?? expires
            if cookie.httpOnly == nil { cookie.httpOnly = false }
            if cookie.secure == nil { cookie.secure = false }
            return cookie
        }
    }

    /// `name=value` split at the first `=` and trimmed (a piece without `=` is a value with no name,
    /// as browsers read it).
    private static func pairParts(_ piece: Substring) -> (name: String, value: String) {
        guard let equals = piece.firstIndex(of: "=") else { return ("", piece.trimmingHTTPWhitespace()) }
        return (piece[..<equals].trimmingHTTPWhitespace(), piece[piece.index(after: equals)...].trimmingHTTPWhitespace())
    }
}
