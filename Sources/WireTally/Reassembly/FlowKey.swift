/// A direction-free key for a flow: protocol plus both endpoints in canonical order, so both
/// directions of a connection find the same entry.
struct FlowKey: Hashable {
    var lowAddress: IPAddress
    var highAddress: IPAddress
    var lowPort: UInt16
    var highPort: UInt16
    var transportProtocol: UInt8

    init(transportProtocol: UInt8, _ a: IPAddress, _ aPort: UInt16, _ b: IPAddress, _ bPort: UInt16) {
        self.transportProtocol = transportProtocol
        if (a, aPort) < (b, bPort) {
            lowAddress = a; lowPort = aPort; highAddress = b; highPort = bPort
        } else {
            lowAddress = b; lowPort = bPort; highAddress = a; highPort = aPort
        }
    }
}
