#!/usr/bin/env python3
# Writes the FuzzQUICPackets seeds: python3 Fuzz/Seeds/make-quic-seeds.py OUT_DIR (from the repository's
# root), in the layout of Fuzz/Sources/FuzzQUICPackets/FuzzQUICPackets.swift: the opening datagrams of
# quic-* recordings (Ethernet pcap, read here) with and without quic-sequential's key log, the RFC 9001 /
# RFC 9369 sample packets, and hand-written frame sequences of every type for the frame walk.
import os, re, struct, sys

out = sys.argv[1]; os.makedirs(out, exist_ok=True)
FRAMES, KEYLESS, KEYED = 1, 0, 2
SERVER_PORTS = (443, 7443)


def datagrams(path):
    """(from client, UDP payload) of each packet of an Ethernet pcap with IPv4 or IPv6 UDP."""
    data = open(path, "rb").read()
    position, result = 24, []
    while position + 16 <= len(data):
        length = struct.unpack("<I", data[position + 8:position + 12])[0]
        frame = data[position + 16:position + 16 + length]
        position += 16 + length
        ethertype = struct.unpack(">H", frame[12:14])[0]
        ip = frame[14:]
        udp = ip[(ip[0] & 0xF) * 4:] if ethertype == 0x0800 else ip[40:]
        destination = struct.unpack(">H", udp[2:4])[0]
        result.append((destination in SERVER_PORTS, udp[8:struct.unpack(">H", udp[4:6])[0]]))
    return result


def write(name, mode, grams):
    records = b"".join(bytes([1 if client else 0]) + len(g).to_bytes(2, "big") + g for client, g in grams)
    open(os.path.join(out, name), "wb").write(bytes([mode]) + records)


sequential = datagrams("captures/quic-sequential.pcap")
write("sequential-keyed-12", KEYED, sequential[:12])
write("sequential-keyed-handshake", KEYED, sequential[:4])
write("sequential-keyless-4", KEYLESS, sequential[:4])
write("versions-v2-keyless", KEYLESS, datagrams("captures/quic-versions.pcap")[:4])
write("resumption-0rtt-keyless", KEYLESS, datagrams("captures/quic-resumption.pcap")[11:15])

# The RFC sample packets (copied into the tests from the RFC texts).
vectors = open("Tests/WireTallyTests/QUIC/QUICRFCVectors.swift").read()
for version, body in zip(("v1", "v2"), re.findall(r"static let v[12] = QUICRFCVectorSet\((.*?)\)\n", vectors, re.S)):
    value = lambda name: bytes.fromhex(re.search(name + r': "([0-9a-f]+)"', body).group(1))
    write(f"rfc-{version}-initials", KEYLESS, [(True, value("clientProtected")), (False, value("serverProtected"))])
    write(f"rfc-{version}-retry", KEYLESS, [(True, value("clientProtected")), (False, value("retry"))])
    open(os.path.join(out, f"rfc-{version}-crypto-frame"), "wb").write(bytes([FRAMES]) + value("clientCryptoFrame"))

# Frame sequences (RFC 9000 §19, RFC 9221): every type once, in a plausible order.
frames = {
    "padding-ping-ack": "00000001" "02050a0003" "020a0a01020101" "03050a0003010203",
    "streams": "0a0003616263" "0b0400" "0e040503616263" "0f040803616263" "0c0810646566",
    "resets": "04040102" "050411",
    "flow": "104400" "110440ff" "1264" "1364" "144001" "15040a" "1604" "1704",
    "ids": "18020108" + "11" * 8 + "22" * 16 + "1901" "1a" + "33" * 8 + "1b" + "44" * 8,
    "close": "1c0a00046f6f7073" "1d0b02626f" "1e",
    "tokens-datagrams": "0704deadbeef" "06000568656c6c6f" "3103ccddee" "30aabb",
}
for name, text in frames.items():
    open(os.path.join(out, "frames-" + name), "wb").write(bytes([FRAMES]) + bytes.fromhex(text))
