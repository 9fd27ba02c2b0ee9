#!/usr/bin/env python3
# Writes the FuzzHTTP3 seeds: python3 Fuzz/Seeds/make-http3-seeds.py Fuzz/Seeds/http3 captures/quic-A …
# from the HTTP/3 fixtures (the aioquic-made streams of h3-streams.json, the pylsqpack vectors of
# qpack-vectors.json) and the decrypted streams of each quic-* recording named (tshark with its .keys),
# in the record layout of Fuzz/Sources/FuzzHTTP3/FuzzHTTP3.swift.
import json, os, subprocess, sys

out = sys.argv[1]; os.makedirs(out, exist_ok=True)
fixtures = "Tests/WireTallyTests/HTTP3/Fixtures/"
STREAMS = [0, 4, 8, 12, 2, 6, 10, 14, 3, 7, 11, 15, 1, 16, 20, (1 << 62) - 4]
DATA, FIN, GAP, RESET, STOP = 0, 4, 5, 6, 7
LIMIT = 30000  # under the target's -max_len (32768)


def op(stream, from_client, kind):
    flip = from_client != (stream & 1 == 0)
    return STREAMS.index(stream) | (0x10 if flip else 0) | kind << 5


def data(stream, from_client, payload, fin):
    """Records carrying `payload` (255 bytes each), the last one with FIN when `fin`."""
    out = b""
    pieces = [payload[i:i + 255] for i in range(0, len(payload), 255)] or [b""]
    for index, piece in enumerate(pieces):
        kind = FIN if fin and index == len(pieces) - 1 else DATA
        out += bytes([op(stream, from_client, kind), len(piece)]) + piece
    return out


def gap(stream, from_client, length):
    out = b""
    while length > 0:
        out += bytes([op(stream, from_client, GAP), min(length, 255)]); length -= 255
    return out


def write(name, records, limits=0, split=0):
    open(os.path.join(out, name), "wb").write(bytes([limits, split]) + records[:LIMIT])


def varint(v):
    if v < 64: return bytes([v])
    if v < 16384: return (0x4000 | v).to_bytes(2, "big")
    return (0x80000000 | v).to_bytes(4, "big")


# The aioquic-made connection, whole, then split in pieces, with small limits.
chunks = json.load(open(fixtures + "h3-streams.json"))["chunks"]
records = b"".join(data(c["stream"], c["from_client"], bytes.fromhex(c["hex"]), c["fin"]) for c in chunks)
write("aioquic-streams", records)
write("aioquic-streams-split", records, split=7)
write("aioquic-streams-limits", records, limits=0x0f, split=3)

# The QPACK vectors: the server's SETTINGS (the decoder's table capacity and blocked streams), the
# client's encoder stream and each section as a request's HEADERS frame.
for case in json.load(open(fixtures + "qpack-vectors.json"))["cases"]:
    settings = case["settings"]
    payload = varint(1) + varint(settings["capacity"]) + varint(7) + varint(settings["blocked"])
    records = data(3, False, b"\x00\x04" + varint(len(payload)) + payload, False) + data(6, True, b"\x02", False)
    for step in case["steps"]:
        if "encoder" in step:
            records += data(6, True, bytes.fromhex(step["encoder"]), False)
        else:
            section = bytes.fromhex(step["section"])
            records += data(step["stream"], True, b"\x01" + varint(len(section)) + section, True)
    write("qpack-" + case["name"], records)

# The decrypted streams of recordings: STREAM frames in capture order, trimmed of what was already
# delivered, a gap where a frame starts past it; RESET_STREAM and STOP_SENDING as they come.
for capture in sys.argv[2:]:
    fields = ["udp.dstport", "quic.stream.stream_id", "quic.stream.off", "quic.stream.offset", "quic.stream.fin",
              "quic.stream_data", "quic.rsts.stream_id", "quic.ss.stream_id"]
    lines = subprocess.run(["tshark", "-r", capture + ".pcap", "-o", "tls.keylog_file:" + capture + ".keys", "-T", "fields",
                            "-E", "separator=|"] + sum((["-e", f] for f in fields), []),
                           capture_output=True, text=True, check=True).stdout.splitlines()
    delivered, records = {}, b""
    for line in lines:
        port, ids, offs, offsets, fins, payloads, resets, stops = [v.split(",") if v else [] for v in line.split("|")]
        from_client = port[0] in ("443", "7443")
        offsets = iter(offsets)
        if len(payloads) == len(ids):  # (an empty frame has no stream_data: the packet is skipped)
            for stream, off, fin, payload in zip(map(int, ids), offs, fins, payloads):
                offset = int(next(offsets)) if off == "1" else 0
                if stream not in STREAMS: continue
                key = (stream, from_client)
                payload = bytes.fromhex(payload)
                start = delivered.get(key, 0)
                if offset > start: records += gap(stream, from_client, offset - start); start = offset
                payload = payload[start - offset:]
                records += data(stream, from_client, payload, fin == "1")
                delivered[key] = start + len(payload)
        for stream in map(int, resets):
            if stream in STREAMS: records += bytes([op(stream, from_client, RESET), 16])
        for stream in map(int, stops):
            if stream in STREAMS: records += bytes([op(stream, from_client, STOP), 12])
    write(os.path.basename(capture), records)
