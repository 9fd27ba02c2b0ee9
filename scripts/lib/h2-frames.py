#!/usr/bin/env python3
"""tshark's HTTP/2 frames of a capture, one row per HTTP/2 frame (NAME.h2frames.tsv).

usage: h2-frames.py PCAP OUT.tsv [TSHARK_OPTION…]   (e.g. -o tls.keylog_file:KEYS -d tcp.port==8082,http2)

NAME.http2.tsv (tshark -T fields) has one row per packet with every HTTP/2 frame of the packet
comma-joined, and fields a frame does not have (pad length, :method, …) are simply missing from those
lists, so they cannot be matched to frames. This reads `tshark -T pdml` instead and writes one row per
`http2.stream` item (= one HTTP/2 frame, or the client preface magic), in tshark's order:
frame.number frame.time_epoch tcp.stream tcp.srcport tcp.dstport index magic streamid type flags length
pad_length header_block_bytes data_bytes method path status authority promised_stream_id error
last_stream_id window_increment
index = position of the HTTP/2 frame within the packet (0-based); magic = 1 on the preface row (its
other HTTP/2 columns empty, length 24); pad_length = the Pad Length field of a PADDED frame;
header_block_bytes = bytes of the header block fragment (HEADERS, PUSH_PROMISE, CONTINUATION);
data_bytes = DATA payload without the pad length byte and padding (length − pad_length − 1 when
PADDED, computed here: tshark's data fields also hold reassembled / decompressed bodies); method/path/status/authority = the pseudo-headers tshark
decoded for the frame (HEADERS or PUSH_PROMISE, or the CONTINUATION that ends the block);
error = RST_STREAM or GOAWAY error code.
"""
import io, re, subprocess, sys
import xml.etree.ElementTree as ET

COLS = ("frame.number frame.time_epoch tcp.stream tcp.srcport tcp.dstport index magic streamid type flags length "
        "pad_length header_block_bytes data_bytes method path status authority promised_stream_id error "
        "last_stream_id window_increment").split()
BLOCK = {"http2.headers", "http2.push_promise.header", "http2.continuation.header"}


def frame_row(item):
    r = dict.fromkeys(COLS[6:], "")
    if any(f.get("name") == "http2.magic" for f in item.iter("field")):
        r["magic"], r["length"] = "1", "24"
        return r
    r["magic"] = "0"
    hb = None
    headers = {}
    name = None
    seen = set()
    for f in item.iter("field"):
        n, show, size = f.get("name"), f.get("show", ""), int(f.get("size") or 0)
        if n in seen and n not in ("http2.header.name", "http2.header.value"):
            continue  # first occurrence only (reassembled / decompressed bodies repeat some fields)
        seen.add(n)
        if n == "http2.streamid":
            r["streamid"] = show
        elif n == "http2.type":
            r["type"] = show
        elif n == "http2.flags":
            r["flags"] = show
        elif n == "http2.length":
            r["length"] = show
        elif n == "http2.padding":
            r["pad_length"] = str(int(show, 0))  # tshark shows it in hex
        elif n in BLOCK:
            hb = (hb or 0) + size
        elif n == "http2.header.name":
            name = show
        elif n == "http2.header.value" and name is not None:
            headers.setdefault(name, show)
            name = None
        elif n == "http2.push_promise.promised_stream_id":
            r["promised_stream_id"] = show
        elif n in ("http2.rst_stream.error", "http2.goaway.error"):
            r["error"] = str(int(show, 0))
        elif n == "http2.goaway.last_stream_id":
            r["last_stream_id"] = show
        elif n == "http2.window_update.window_size_increment":
            r["window_increment"] = show
    if r["type"] in ("1", "5", "9"):
        r["header_block_bytes"] = str(hb or 0)
    if r["type"] == "0":
        padded = int(r["flags"], 16) & 0x8
        r["data_bytes"] = str(int(r["length"]) - (int(r["pad_length"] or 0) + 1 if padded else 0))
    for k in ("method", "path", "status", "authority"):
        r[k] = headers.get(":" + k, "")
    return r


def main():
    pcap, out, opts = sys.argv[1], sys.argv[2], sys.argv[3:]
    p = subprocess.run(["tshark", "-r", pcap, *opts, "-Y", "http2", "-T", "pdml"], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL)
    if p.returncode != 0:
        raise SystemExit("h2-frames.py: tshark failed on %s" % pcap)
    # tshark writes body bytes it shows as text (e.g. a binary POST taken for a form) unescaped into
    # attributes: drop what XML does not allow
    pdml = re.sub("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]", "", p.stdout.decode("utf-8", "replace"))
    with open(out, "w") as f:
        f.write("\t".join(COLS) + "\n")
        for _, pkt in ET.iterparse(io.StringIO(pdml)):
            if pkt.tag != "packet":
                continue
            top = {}
            for proto in pkt.findall("proto"):
                for fld in proto.iter("field"):
                    if fld.get("name") in ("frame.number", "frame.time_epoch", "tcp.stream", "tcp.srcport", "tcp.dstport"):
                        top.setdefault(fld.get("name"), fld.get("show"))
            index = 0
            for proto in pkt.findall("proto"):
                if proto.get("name") != "http2":
                    continue
                for item in proto.findall("field"):
                    if item.get("name") != "http2.stream":
                        continue
                    r = frame_row(item)
                    r.update({k: top.get(k, "") for k in COLS[:5]}, index=str(index))
                    f.write("\t".join(r[c] for c in COLS) + "\n")
                    index += 1
            pkt.clear()


if __name__ == "__main__":
    main()
