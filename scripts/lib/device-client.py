#!/usr/bin/env python3
"""The second client of the `device` scenario (scripts/record-captures): a keep-alive http.client
connection with three requests, then one DNS query over UDP. Writes JSON lines to stdout: who it is
(its own pid, /proc/self/comm and uid, for the device-format owners) and each request or query with
the local port it used.

usage: device-client.py HOST HTTP_PORT DNS_NAME
"""
import http.client, json, os, socket, struct, sys

host, port, name = sys.argv[1], int(sys.argv[2]), sys.argv[3]
with open("/proc/self/comm") as f:
    comm = f.read().strip()
me = {"pid": os.getpid(), "comm": comm, "uid": os.getuid()}


def log(**kw):
    print(json.dumps({**me, **kw}), flush=True)


c = http.client.HTTPConnection(host, port, timeout=10)
for path in ("/index.html", "/small.txt", "/nocontent"):
    c.request("GET", path)
    resp = c.getresponse()
    body = resp.read()
    log(proto="tcp", local_port=c.sock.getsockname()[1], path=path, status=resp.status, body_bytes=len(body))
c.close()

query = struct.pack("!HHHHHH", 0x5754, 0x0100, 1, 0, 0, 0)
query += b"".join(bytes([len(label)]) + label.encode() for label in name.split(".")) + b"\0"
query += struct.pack("!HH", 1, 1)  # A, IN
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(5)
s.sendto(query, (host, 53))
answer, _ = s.recvfrom(2048)
log(proto="udp", local_port=s.getsockname()[1], query=name, answer_bytes=len(answer))
s.close()
