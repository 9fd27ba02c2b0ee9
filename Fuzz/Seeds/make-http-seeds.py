#!/usr/bin/env python3
# Writes the FuzzHTTP seeds: python3 Fuzz/Seeds/make-http-seeds.py Fuzz/Seeds/http captures/A.pcap …
# (hand-written cases, then the first TCP streams of each capture, extracted with tshark).
import subprocess, sys, os, collections
out = sys.argv[1]; os.makedirs(out, exist_ok=True)
def seed(name, up, down, s=7):
    tot = len(up) + len(down)
    b0 = 0 if tot == 0 else min(255, (len(up) * 255 + tot - 1) // tot)
    # the harness takes payload*b0//255 bytes up: adjust so the split is exact when possible
    for c in range(256):
        if tot and tot * c // 255 == len(up): b0 = c; break
    open(os.path.join(out, name), 'wb').write(bytes([b0, s]) + up + down)
R = b"\r\n"
seed("get-keepalive", b"GET / HTTP/1.1\r\nHost: a\r\n\r\nGET /b HTTP/1.1\r\nHost: a\r\n\r\n",
     b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhelloHTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
seed("chunked-trailers", b"POST /u HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n0\r\nX-T: 1\r\n\r\n",
     b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\na\r\n0123456789\r\n0\r\n\r\n")
seed("expect-100", b"PUT /x HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\nabc",
     b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok")
seed("head-304-204", b"HEAD / HTTP/1.1\r\n\r\nGET / HTTP/1.1\r\nIf-None-Match: x\r\n\r\nDELETE /d HTTP/1.1\r\n\r\n",
     b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nHTTP/1.1 304 Not Modified\r\nContent-Length: 9\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n")
seed("http10-close", b"GET / HTTP/1.0\r\n\r\n", b"HTTP/1.0 200 OK\r\nServer: x\r\n\r\nbody until close")
seed("upgrade", b"GET /ws HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n\x81\x05hello",
     b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n\x81\x02hi")
seed("connect", b"CONNECT a:443 HTTP/1.1\r\nHost: a:443\r\n\r\n\x16\x03\x01\x00\x05hello",
     b"HTTP/1.1 200 Connection established\r\n\r\n\x16\x03\x03\x00\x02hi")
seed("connect-refused", b"CONNECT a:443 HTTP/1.1\r\n\r\nGET / HTTP/1.1\r\n\r\n",
     b"HTTP/1.1 407 Proxy Auth\r\nContent-Length: 0\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
import gzip, zlib
body = gzip.compress(b"a" * 5000)
seed("gzip", b"GET /g HTTP/1.1\r\nAccept-Encoding: gzip\r\n\r\n",
     b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
d = zlib.compress(b"b" * 3000)
seed("deflate-chunked", b"GET /d HTTP/1.1\r\n\r\n",
     b"HTTP/1.1 200 OK\r\nContent-Encoding: deflate\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n" % len(d) + d + b"\r\n0\r\n\r\n")
seed("garbage-resync", b"\x16\x03\x01garbage\r\nGET / HTTP/1.1\r\n\r\n", b"xx\r\nHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nz", 0)
seed("pipelined", b"GET /1 HTTP/1.1\r\n\r\nGET /2 HTTP/1.1\r\n\r\nGET /3 HTTP/1.1\r\n\r\n",
     b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n1HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n2HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n3")
# real streams from the bundled captures (first TCP streams of a few)
for cap in sys.argv[2:]:
    r = subprocess.run(["tshark", "-r", cap, "-Y", "tcp.len>0", "-T", "fields", "-e", "tcp.stream", "-e", "tcp.dstport", "-e", "tcp.srcport", "-e", "tcp.payload"], capture_output=True, text=True)
    streams = collections.OrderedDict()
    for line in r.stdout.splitlines():
        parts = line.split("\t")
        if len(parts) < 4 or not parts[3]: continue
        st, dp, sp, pl = parts
        up = int(dp) < int(sp)
        s = streams.setdefault(st, [b"", b""])
        s[0 if up else 1] += bytes.fromhex(pl.replace(":", ""))
    for i, (st, (u, d)) in enumerate(list(streams.items())[:3]):
        if 0 < len(u) + len(d) <= 16384:
            seed(os.path.basename(cap).split(".")[0] + "-" + st, u, d, i * 37 + 5)
