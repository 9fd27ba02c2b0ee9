/// Which transport ports carry DNS (mDNS and LLMNR are left to the flow records).
enum DNSPorts {
    static let dns: UInt16 = 53

    /// True when either port is the DNS port.
    static func carriesDNS(_ first: UInt16, _ second: UInt16) -> Bool { first == dns || second == dns }
}
