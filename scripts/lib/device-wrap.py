#!/usr/bin/env python3
"""Writes the `device` scenario's captures (scripts/record-captures): the real packets of an
Ethernet pcap recorded by tcpdump, each wrapped in the layout a device capture gives it, with the
owner the clients' own logs name (pid, /proc/self/comm and uid of the process that used the local
port of the packet's TCP connection or UDP flow).

usage: device-wrap.py IN.pcap OWNERS.jsonl CLIENT_IP OUT_PREFIX

OWNERS.jsonl: {"pid", "comm", "uid", "proto": "tcp"|"udp", "local_port"} lines. Writes
  OUT_PREFIX-pktap.pcap      LINKTYPE_PKTAP (258): xnu's struct pktap_header (bsd/net/pktap.h; 108
                             bytes, little-endian, pth_type_next 1, pth_dlt 1) before each Ethernet frame
  OUT_PREFIX-pktap.pcapng    Apple's pcapng as its libpcap writes with `tcpdump -k` (pcap-ng.h,
                             pcap_ng_dump_pktap): a Process Information Block (0x80000001: pid, option 2
                             name) before the first packet of each process, EPB options 0x8001 (process
                             index), 0x8002 (service class), 2 (epb_flags direction)
  OUT_PREFIX-pcapdroid.pcap  PCAPdroid's "pcap with trailer" (pcap_dump.c, dump_packet_pcap): Ethernet
                             with zero MACs, the IP packet, 0-3 zero bytes, the 32-byte trailer (magic
                             0x01072021, uid, appname[20], CRC-32)
  OUT_PREFIX-pcapdroid.pcapng PCAPdroid's pcapng (pcap_dump.c, dump_packet_pcapng): LINKTYPE_RAW, a
                             Custom Block 0xBAD (PEN 62652, UID mapping) per uid, EPB comment "u-<uid>"
Packets no client owns get PKTAP pid -1 and no command name, no Apple options, and PCAPdroid's
unknown uid -1; PCAPdroid (a VPN) sees only IP, so its files leave non-IP frames out.
"""
import json, socket, struct, sys, zlib

src, owners_path, client_ip, prefix = sys.argv[1:5]
owners = {}
for line in open(owners_path):
    o = json.loads(line)
    owners[(o["proto"], o["local_port"])] = o
client = socket.inet_aton(client_ip)


def read_pcap(path):
    data = open(path, "rb").read()
    magic, _, _, _, _, snaplen, linktype = struct.unpack("<IHHiIII", data[:24])
    assert magic == 0xA1B2C3D4 and linktype == 1, "expects a little-endian microsecond Ethernet pcap"
    offset = 24
    while offset + 16 <= len(data):
        sec, usec, incl, orig = struct.unpack("<IIII", data[offset:offset + 16])
        yield sec, usec, data[offset + 16:offset + 16 + incl], orig
        offset += 16 + incl


def owner_of(frame):
    """(owner or None, outbound?, ip packet or None) of an Ethernet frame."""
    if len(frame) < 34 or frame[12:14] != b"\x08\x00":
        return None, False, None
    ip = frame[14:]
    ihl = (ip[0] & 0x0F) * 4
    proto = {6: "tcp", 17: "udp"}.get(ip[9])
    ip = ip[:struct.unpack("!H", ip[2:4])[0]]
    if proto is None or len(ip) < ihl + 4:
        return None, False, ip
    sport, dport = struct.unpack("!HH", ip[ihl:ihl + 4])
    outbound = ip[12:16] == client
    port = sport if outbound else dport
    return owners.get((proto, port)), outbound, ip


def pad4(b):
    return b + b"\0" * (-len(b) % 4)


def option(code, value):
    return struct.pack("<HH", code, len(value)) + pad4(value)


def block(kind, body):
    length = 12 + len(body)
    return struct.pack("<II", kind, length) + body + struct.pack("<I", length)


def section(linktype, name):
    shb = block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1) + option(4, b"wiretally device-wrap.py") + struct.pack("<I", 0))
    idb = block(1, struct.pack("<HHI", linktype, 0, 0) + option(2, name) + struct.pack("<I", 0))
    return shb + idb


def epb(sec, usec, data, orig, options):
    ts = sec * 1_000_000 + usec
    body = struct.pack("<IIIII", 0, ts >> 32, ts & 0xFFFFFFFF, len(data), orig) + pad4(data)
    if options:
        body += options + struct.pack("<I", 0)
    return block(6, body)


def name_bytes(text, size):
    return text.encode()[:size - 1].ljust(size, b"\0")


packets = list(read_pcap(src))
pktap = [struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 262144, 258)]
apple = [section(1, b"c0")]
apple_index = {}
droid = [struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 262144, 1)]
droid_ng = [section(101, b"tun0")]
droid_mapped = set()
for sec, usec, frame, orig in packets:
    owner, outbound, ip = owner_of(frame)
    pid, comm, uid = (owner["pid"], owner["comm"], owner["uid"]) if owner else (-1, "", -1)
    flags = 0x2 if outbound else 0x1
    family = 2 if ip is not None else 0
    header = struct.pack("<III", 108, 1, 1) + name_bytes("c0", 24)
    header += struct.pack("<IIII", flags, family, 14, 0)
    header += struct.pack("<i", pid) + name_bytes(comm, 17) + b"\0" * 3
    header += struct.pack("<IHHi", 0, 6, 0, -1) + b"\0" * 20
    assert len(header) == 108
    pktap.append(struct.pack("<IIII", sec, usec, 108 + len(frame), 108 + orig) + header + frame)

    options = b""
    if owner:
        if pid not in apple_index:
            apple_index[pid] = len(apple_index)
            apple.append(block(0x80000001, struct.pack("<i", pid) + option(2, comm.encode()) + struct.pack("<I", 0)))
        options = option(0x8001, struct.pack("<I", apple_index[pid])) + option(0x8002, struct.pack("<I", 0))
    options += option(2, struct.pack("<I", flags))
    apple.append(epb(sec, usec, frame, orig, options))

    if ip is None:
        continue
    body = b"\0" * 12 + b"\x08\x00" + ip
    body += b"\0" * (-len(body) % 4)
    body += struct.pack("!Ii", 0x01072021, uid) + name_bytes(comm, 20)
    body += struct.pack("<I", zlib.crc32(body))
    droid.append(struct.pack("<IIII", sec, usec, len(body), len(body)) + body)
    if uid not in droid_mapped and owner:
        droid_mapped.add(uid)
        names = comm.encode()
        custom = struct.pack("<IHBBiBB", 62652, 1, 1, 0, uid, len(names), len(names)) + names + names
        droid_ng.append(block(0x00000BAD, pad4(custom)))
    droid_ng.append(epb(sec, usec, ip, len(ip), option(1, b"u-%d" % uid)))

for suffix, parts in (("-pktap.pcap", pktap), ("-pktap.pcapng", apple), ("-pcapdroid.pcap", droid),
                      ("-pcapdroid.pcapng", droid_ng)):
    with open(prefix + suffix, "wb") as f:
        f.write(b"".join(parts))
