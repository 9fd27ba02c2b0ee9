/// Follows a question's name through the CNAMEs of an answer section to its addresses, in linear time
/// whatever the section holds (a CNAME loop ends at the first name seen twice).
struct DNSAnswerChain {
    /// The aliases in chain order (targets of each CNAME).
    private(set) var cnames: [String] = []
    /// A/AAAA data owned by the question's name or an alias of the chain, in answer order.
    private(set) var addresses: [IPAddress] = []

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
        for record in answers where record.type == .a || record.type == .aaaa {
            if case let .address(address) = record.data, names.contains(record.name) { addresses.append(address) }
        }
    }
}
