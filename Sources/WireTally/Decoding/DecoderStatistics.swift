/// Counts a `PacketDecoder` keeps for the summary: oddities it met while still decoding the packets.
package struct DecoderStatistics: Hashable, Sendable {
    /// IPv4 headers whose checksum is wrong (the packets are still decoded).
    package var badIPv4HeaderChecksums = 0
    /// Fully captured TCP segments whose checksum is wrong. Usually checksum offload: captured on the
    /// sending host before the NIC filled the checksum in. The segments are still decoded.
    package var badTCPChecksums = 0
    /// Fully captured UDP datagrams whose checksum is wrong (still decoded).
    package var badUDPChecksums = 0
    /// IP length fields that were 0 (TSO, IPv6 jumbograms) or larger than the frame on the wire: the
    /// frame's size after the link header was used as the IP length instead.
    package var ipLengthFallbacks = 0
    /// UDP length fields below 8 or beyond the IP payload: the IP payload length was used instead.
    package var inconsistentUDPLengths = 0
    /// Ethernet-declared frames that start directly with an IP header (iOS `rvi` captures).
    package var ethernetFramesStartingWithIP = 0
    /// IP fragment handling.
    package var fragments = FragmentStatistics()

    package init() {}

    /// These counts with those of a decoder that decoded the other frames of the same capture without
    /// reassembling fragments (`PacketDecoder.decodeUnlessFragment`), whose fragment counts stay zero.
    func merged(withStateless other: DecoderStatistics) -> DecoderStatistics {
        var sum = self
        sum.badIPv4HeaderChecksums += other.badIPv4HeaderChecksums
        sum.badTCPChecksums += other.badTCPChecksums
        sum.badUDPChecksums += other.badUDPChecksums
        sum.ipLengthFallbacks += other.ipLengthFallbacks
        sum.inconsistentUDPLengths += other.inconsistentUDPLengths
        sum.ethernetFramesStartingWithIP += other.ethernetFramesStartingWithIP
        return sum
    }

    /// Bad TCP and UDP checksums together.
    package var badTransportChecksums: Int { badTCPChecksums + badUDPChecksums }
    /// Datagrams reassembled from IP fragments.
    package var fragmentedDatagrams: Int { fragments.reassembledDatagrams }
}
