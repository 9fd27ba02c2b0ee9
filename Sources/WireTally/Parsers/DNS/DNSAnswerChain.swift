/// Follows a question's name through the CNAMEs of an answer section to its addresses.
struct DNSAnswerChain {
    /// The aliases in chain order (targets of each CNAME).
    private(set) var cnames: [String] = []
    /// A/AAAA data owned by the question's name or an alias of the chain.
    private(set) var addresses: [IPAddress] = []

    init(question: DNSQuestion?, answers: [DNSResourceRecord]) {
        guard let question, !answers.isEmpty else { return }
        var current = question.name
        var names: Set<String> = [current]
        // Each step consumes one distinct CNAME record: at most `answers.count` steps.
        for _ in 0..<answers.count {
            guard let alias = answers.first(where: { $0.type == .cname && $0.name == current }),
                  case let .name(target) = alias.data, !names.contains(target)
            else { break }
            cnames.append(target)
            names.insert(target)
            current = target
        }
        for record in answers where names.contains(record.name) {
            if case let .address(address) = record.data, record.type == .a || record.type == .aaaa {
                addresses.append(address)
            }
        }
    }
}
