/// Follows a question's name through the CNAMEs of an answer section to its addresses, in linear time
/// whatever the section holds (a CNAME loop ends at the first name seen twice), and reads the service
/// bindings (SVCB/HTTPS) owned along the way.
struct DNSAnswerChain {
    /// The aliases in chain order (targets of each CNAME).
    private(set) var cnames: [String] = []
    /// A/AAAA data owned by the question's name or an alias of the chain, in answer order.
    private(set) var addresses: [IPAddress] = []
    /// `ipv4hint`/`ipv6hint` addresses of the usable (ServiceMode, well-formed) SVCB and HTTPS records
    /// owned by the chain's names, in answer order: addresses a client may connect to without an A/AAAA
    /// lookup (RFC 9460 §7.3).
    private(set) var hints: [IPAddress] = []
    /// A usable HTTPS record owned by the chain's names lists `h3` in its `alpn`.
    private(set) var advertisesH3 = false

    init(question: DNSQuestion?, answers: [DNSResourceRecord]) {
        guard let question, !answers.isEmpty else { return }
        var aliasTargets: [String: String] = [:]
        for record in answers where record.type == .cname {
            if case let .name(target) = record.data, aliasTargets[record.name] == nil {
                aliasTargets[record.name] = target
            }
        }
        var names: Set<String> = [question.name]
        var current = question.name
        while let target = aliasTargets[current], !names.contains(target) {
            cnames.append(target)
            names.insert(target)
            current = target
        }
        for record in answers where names.contains(record.name) {
            switch record.data {
            case let .address(address) where record.type == .a || record.type == .aaaa:
                addresses.append(address)
            case let .serviceBinding(binding):
                hints += binding.usableHints
                if record.type == .https, binding.advertisesH3 { advertisesH3 = true }
            default:
                break
            }
        }
    }
}
