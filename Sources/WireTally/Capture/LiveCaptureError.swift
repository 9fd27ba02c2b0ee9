/// Why a live capture could not start or go on.
package enum LiveCaptureError: Error, Equatable, CustomStringConvertible {
    /// The process may not capture on the interface (needs root or CAP_NET_RAW).
    case permissionDenied(interface: String, detail: String)
    /// No interface has this name; `available` lists the ones that exist.
    case noSuchInterface(String, available: [String])
    /// The BPF expression does not compile for the interface.
    case badFilter(expression: String, reason: String)
    /// libpcap failed to open, configure or read the interface.
    case failed(interface: String, reason: String)

    package var description: String {
        switch self {
        case let .permissionDenied(interface, detail):
            return """
                no permission to capture on \(interface) (\(detail)): you need the right to capture: \
                run with sudo, or `sudo setcap cap_net_raw,cap_net_admin=eip $(which wiretally)`
                """
        case let .noSuchInterface(name, available):
            let list = available.isEmpty ? "none" : available.joined(separator: ", ")
            return "no interface named \(name); interfaces: \(list) (wiretally live -D lists them)"
        case let .badFilter(expression, reason):
            return "bad filter \"\(expression)\": \(reason)"
        case let .failed(interface, reason):
            return "cannot capture on \(interface): \(reason)"
        }
    }
}

extension String {
    /// The text of a NUL-terminated C character buffer (libpcap's error buffer, getnameinfo's host).
    init(nulTerminated buffer: [CChar]) {
        self.init(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
