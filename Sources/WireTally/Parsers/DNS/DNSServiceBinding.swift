/// The data of an SVCB (type 64) or HTTPS (type 65) record (RFC 9460): where a service is reached and
/// with which parameters — for HTTPS, notably whether the origin speaks HTTP/3 (`alpn` holds `h3`)
/// before any connection is tried.
///
/// A parameter whose value does not have its expected format is left out and the binding is
/// `isMalformed`; so is one whose keys are not strictly increasing, or whose parameter runs past the
/// RDATA (the parameters from there on are left out). RFC 9460 §2.2 has clients ignore such records.
package struct DNSServiceBinding: Hashable, Sendable {
    /// SvcPriority: 0 is AliasMode (the target is an alias of the owner name), else ServiceMode, lower
    /// values preferred.
    package var priority: UInt16
    /// TargetName: lower-cased, no trailing dot; "" for the root (".": in ServiceMode, the owner itself).
    package var target: String
    /// `mandatory` (key 0): keys a client must understand to use the record, in wire order.
    package var mandatory: [UInt16] = []
    /// `alpn` (key 1): the protocol ids, bytes outside printable ASCII (and backslashes) as `\DDD`.
    package var alpn: [String] = []
    /// `no-default-alpn` (key 2): the scheme's default protocol (HTTPS: http/1.1) is not offered.
    package var noDefaultALPN = false
    /// `port` (key 3).
    package var port: UInt16?
    /// `ipv4hint` (key 4) and `ipv6hint` (key 6): addresses of the target a client may connect to.
    package var ipv4Hints: [IPAddress] = []
    package var ipv6Hints: [IPAddress] = []
    /// `ech` (key 5): the ECHConfigList's length in bytes (its content is opaque here).
    package var echLength: Int?
    /// Parameters of other keys with their value lengths, in wire order.
    package var otherParameters: [DNSServiceParameter] = []
    /// True when the RDATA broke RFC 9460 §2.2 (see the type's description).
    package var isMalformed = false

    package init(priority: UInt16, target: String) {
        self.priority = priority
        self.target = target
    }

    /// AliasMode (priority 0): the record only names another name to look up.
    package var isAliasMode: Bool { priority == 0 }

    /// The target as in presentation format without its trailing dot: "." for the root.
    package var targetText: String { target.isEmpty ? "." : target }

    /// A usable record (ServiceMode, well formed) advertising HTTP/3.
    var advertisesH3: Bool { !isAliasMode && !isMalformed && alpn.contains("h3") }

    /// The address hints of a usable record (ServiceMode, well formed), IPv4 first.
    var usableHints: [IPAddress] { isAliasMode || isMalformed ? [] : ipv4Hints + ipv6Hints }

    /// Close to presentation format (RFC 9460 §2.1), e.g. `1 . alpn=h3,h2 port=8443 ipv4hint=192.0.2.1`;
    /// `ech` and other keys show their length (`ech=<62 bytes>`, `key65333=<3 bytes>`).
    package var text: String {
        var parts = [String(priority), targetText]
        if !mandatory.isEmpty { parts.append("mandatory=" + mandatory.map(DNSServiceParameter.name(ofKey:)).joined(separator: ",")) }
        if !alpn.isEmpty { parts.append("alpn=" + alpn.joined(separator: ",")) }
        if noDefaultALPN { parts.append("no-default-alpn") }
        if let port { parts.append("port=\(port)") }
        if !ipv4Hints.isEmpty { parts.append("ipv4hint=" + ipv4Hints.map(\.description).joined(separator: ",")) }
        if let echLength { parts.append("ech=<\(echLength) bytes>") }
        if !ipv6Hints.isEmpty { parts.append("ipv6hint=" + ipv6Hints.map(\.description).joined(separator: ",")) }
        for parameter in otherParameters { parts.append("\(parameter.name)=<\(parameter.length) bytes>") }
        return parts.joined(separator: " ")
    }
}

/// An SvcParam wiretally does not decode: its key and the length of its value.
package struct DNSServiceParameter: Hashable, Sendable {
    package var key: UInt16
    package var length: Int

    package init(key: UInt16, length: Int) {
        self.key = key
        self.length = length
    }

    /// `key65333` (RFC 9460 §2.1's name for a key without a mnemonic).
    package var name: String { Self.name(ofKey: key) }

    /// The keys RFC 9460 §14.3.2 registers.
    static let mandatory: UInt16 = 0, alpn: UInt16 = 1, noDefaultALPN: UInt16 = 2, port: UInt16 = 3,
        ipv4Hint: UInt16 = 4, ech: UInt16 = 5, ipv6Hint: UInt16 = 6

    private static let mnemonics = ["mandatory", "alpn", "no-default-alpn", "port", "ipv4hint", "ech", "ipv6hint"]

    /// The mnemonic of a key RFC 9460 defines (`alpn`…), else `key<n>`.
    static func name(ofKey key: UInt16) -> String {
        Int(key) < mnemonics.count ? mnemonics[Int(key)] : "key\(key)"
    }
}
