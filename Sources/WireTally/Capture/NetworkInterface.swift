import CPcap
import Glibc

/// A network interface libpcap can capture on, as `pcap_findalldevs` lists it.
package struct NetworkInterface: Sendable, Equatable {
    package var name: String
    /// libpcap's description, when it has one (e.g. "Loopback device").
    package var description: String?
    /// The interface's IPv4 and IPv6 addresses.
    package var addresses: [String]
    package var isUp: Bool
    package var isRunning: Bool
    package var isLoopback: Bool
    package var isWireless: Bool
    /// "Connected", "Disconnected" or nil when libpcap cannot tell (or it does not apply).
    package var connectionStatus: String?

    /// Every interface libpcap can capture on, in its order.
    package static func all() throws(LiveCaptureError) -> [NetworkInterface] {
        var errorBuffer = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE))
        var list: UnsafeMutablePointer<pcap_if_t>?
        guard pcap_findalldevs(&list, &errorBuffer) == 0 else {
            throw .failed(interface: "any", reason: String(nulTerminated: errorBuffer))
        }
        defer { pcap_freealldevs(list) }
        var interfaces: [NetworkInterface] = []
        var cursor = list
        while let device = cursor {
            interfaces.append(NetworkInterface(device.pointee))
            cursor = device.pointee.next
        }
        return interfaces
    }

    init(_ device: pcap_if_t) {
        name = String(cString: device.name)
        description = device.description.map { String(cString: $0) }
        let flags = device.flags
        isUp = flags & UInt32(PCAP_IF_UP) != 0
        isRunning = flags & UInt32(PCAP_IF_RUNNING) != 0
        isLoopback = flags & UInt32(PCAP_IF_LOOPBACK) != 0
        isWireless = flags & UInt32(PCAP_IF_WIRELESS) != 0
        switch flags & UInt32(PCAP_IF_CONNECTION_STATUS) {
        case UInt32(PCAP_IF_CONNECTION_STATUS_CONNECTED): connectionStatus = "Connected"
        case UInt32(PCAP_IF_CONNECTION_STATUS_DISCONNECTED): connectionStatus = "Disconnected"
        default: connectionStatus = nil
        }
        var addresses: [String] = []
        var address = device.addresses
        while let entry = address {
            if let socketAddress = entry.pointee.addr, let text = Self.numericHost(socketAddress) { addresses.append(text) }
            address = entry.pointee.next
        }
        self.addresses = addresses
    }

    /// One line of `-D`, like `tcpdump -D`: `1.eth0 (description) [Up, Running, Connected] 10.0.0.2`.
    package func listing(number: Int) -> String {
        var line = "\(number).\(name)"
        if let description { line += " (\(description))" }
        var flags: [String] = []
        if isUp { flags.append("Up") }
        if isRunning { flags.append("Running") }
        if isWireless { flags.append("Wireless") }
        if isLoopback { flags.append("Loopback") }
        if let connectionStatus, !isLoopback { flags.append(connectionStatus) }
        if !flags.isEmpty { line += " [" + flags.joined(separator: ", ") + "]" }
        if !addresses.isEmpty { line += " " + addresses.joined(separator: " ") }
        return line
    }

    /// The numeric text of an IPv4 or IPv6 socket address (nil for other families).
    private static func numericHost(_ address: UnsafeMutablePointer<sockaddr>) -> String? {
        let family = Int32(address.pointee.sa_family)
        let length: Int
        switch family {
        case AF_INET: length = MemoryLayout<sockaddr_in>.size
        case AF_INET6: length = MemoryLayout<sockaddr_in6>.size
        default: return nil
        }
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        guard getnameinfo(address, socklen_t(length), &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST) == 0 else {
            return nil
        }
        return String(nulTerminated: host)
    }
}
