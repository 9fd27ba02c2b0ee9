#!/usr/bin/env python3
"""Raw-socket and stdlib HTTP clients for scripts/record-captures.

usage: clients.py MODE HOST PORT LOG.jsonl [extra]
Every mode appends JSON lines to LOG.jsonl: one per TCP connection for raw-socket modes (bytes sent,
bytes received, local port, how it ended), one per request for the stdlib modes.
"""
import http.client, json, re, socket, ssl, struct, sys, time, urllib.request

mode, host, port, logpath = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
extra = sys.argv[5:]
logf = open(logpath, "a", buffering=1)
DEADLINE = 10.0  # per connection, seconds


def log(**kw):
    kw.setdefault("time", round(time.time(), 6))
    logf.write(json.dumps(kw) + "\n")


def req(method, path, extra_headers="", body=b""):
    h = "%s %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: wt-raw/1\r\n%s" % (method, path, host, extra_headers)
    if body:
        h += "Content-Length: %d\r\n" % len(body)
    return h.encode() + b"\r\n" + body


def connect(src_port=0, nodelay=False, reuse=False):
    fam = socket.AF_INET6 if ":" in host else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_STREAM)
    if reuse:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if nodelay:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    if src_port:
        s.bind(("", src_port))
    s.settimeout(DEADLINE)
    s.connect((host, port))
    return s


def read_all(s, limit=None):
    """Read until EOF (or `limit` bytes, or the deadline). Returns (bytes, how)."""
    buf = bytearray()
    end = time.monotonic() + DEADLINE
    while time.monotonic() < end:
        try:
            b = s.recv(65536)
        except socket.timeout:
            return bytes(buf), "timeout"
        except ConnectionResetError:
            return bytes(buf), "reset"
        if not b:
            return bytes(buf), "eof"
        buf += b
        if limit is not None and len(buf) >= limit:
            return bytes(buf), "limit"
    return bytes(buf), "deadline"


def status_lines(data):
    return [m.decode() for m in re.findall(rb"HTTP/1\.[01] \d{3}[^\r\n]*", data)]


def conn_log(name, s, sent, data, how, requests):
    log(conn=name, local_port=s.getsockname()[1], remote=host, remote_port=port, requests=requests,
        bytes_sent=sent, bytes_received=len(data), ended=how, responses=status_lines(data))


def pipelining():
    # 1) five requests in one write (one TCP segment), last one asks to close
    reqs = [req("GET", "/index.html"), req("GET", "/small.txt"), req("HEAD", "/index.html"),
            req("GET", "/nocontent"), req("GET", "/text.txt", "Accept-Encoding: gzip\r\nConnection: close\r\n")]
    s = connect(nodelay=True)
    payload = b"".join(reqs)
    s.sendall(payload)
    data, how = read_all(s)
    conn_log("pipelined-one-write", s, len(payload), data, how,
             [r.split(b"\r\n")[0].decode() for r in reqs])
    s.close()
    # 2) three requests dribbled in small writes with TCP_NODELAY: the request line and a header
    #    line are split across segments, and the second request starts in the segment that ends the
    #    first
    reqs = [req("GET", "/index.html", "X-Split: aaaaaaaaaaaaaaaaaaaaaaaa\r\n"),
            req("GET", "/small.txt"), req("GET", "/nocontent", "Connection: close\r\n")]
    payload = b"".join(reqs)
    cuts = [7, 19, 45, len(reqs[0]) + 9, len(reqs[0]) + len(reqs[1]) - 3, len(payload)]
    s = connect(nodelay=True)
    pos, pieces = 0, []
    for c in cuts:
        s.sendall(payload[pos:c])
        pieces.append(c - pos)
        pos = c
        time.sleep(0.05)
    data, how = read_all(s)
    conn_log("split-small-writes", s, len(payload), data, how,
             [r.split(b"\r\n")[0].decode() for r in reqs])
    log(conn="split-small-writes", write_sizes=pieces)
    s.close()


def resets():
    # a) client reads part of a rate-limited response, then aborts with RST (SO_LINGER 0)
    s = connect()
    r = req("GET", "/slow/blob.bin")
    s.sendall(r)
    data, how = read_all(s, limit=60000)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    conn_log("client-abort-linger0", s, len(r), data, how + "+client-rst", ["GET /slow/blob.bin"])
    s.close()
    time.sleep(0.3)
    # b) POST with a 64 KB body to a location that closes without reading it (return 444):
    #    the server kernel answers with RST because unread data is still queued
    s = connect()
    body = b"z" * 65536
    r = req("POST", "/drop", "Content-Type: application/octet-stream\r\n", body)
    sent = 0
    try:
        s.sendall(r)
        sent = len(r)
    except (BrokenPipeError, ConnectionResetError) as e:
        sent = -1
    data, how = read_all(s)
    conn_log("server-close-unread-body", s, sent, data, how, ["POST /drop"])
    s.close()
    time.sleep(0.3)
    # c) port reuse: two connections with the same client port, one after the other. The request
    #    asks the server to close first, so the TIME_WAIT is on the server side and the client can
    #    rebind the port at once.
    for i in range(2):
        s = connect(src_port=int(extra[0]), reuse=True)
        r = req("GET", "/small.txt", "Connection: close\r\n")
        s.sendall(r)
        data, how = read_all(s)
        conn_log("port-reuse-%d" % (i + 1), s, len(r), data, how, ["GET /small.txt"])
        s.close()
        time.sleep(0.3)


def cancel():
    # a client that gives up mid-body: reads >= 100,000 B of a rate-limited download, then closes
    # normally (no SO_LINGER); the unread bytes in its receive buffer make the kernel send a RST, and
    # what the server had in flight still arrives (logged: bytes the client had read before closing)
    s = connect()
    r = req("GET", "/cancel/blob.bin")
    s.sendall(r)
    data, how = read_all(s, limit=100000)
    conn_log("client-close-mid-body", s, len(r), data, how + "+client-close", ["GET /cancel/blob.bin"])
    s.close()
    time.sleep(0.5)


def tls_cancel():
    # `cancel` over TLS 1.3 (HTTP/1.1, ALPN http/1.1), extra: SNI CA-CERT KEYLOG. Two connections, each
    # closed with unread data once the limit is read (no close_notify: the kernel sends a RST, the
    # server's records in flight still arrive): /cancel/blob.bin after >= 100,000 B, /cancel/data.json
    # gzip (chunked) after >= 8,000 B.
    sni, cafile, keylog = extra[0], extra[1], extra[2]
    ctx = ssl.create_default_context(cafile=cafile)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_3
    ctx.set_alpn_protocols(["http/1.1"])
    ctx.keylog_filename = keylog
    for path, headers, limit in (("/cancel/blob.bin", "", 100000), ("/cancel/data.json", "Accept-Encoding: gzip\r\n", 8000)):
        s = ctx.wrap_socket(connect(), server_hostname=sni)
        r = req("GET", path, headers)
        s.sendall(r)
        data, how = read_all(s, limit=limit)
        conn_log("tls-close-mid-body", s, len(r), data, how + "+client-close", ["GET " + path])
        s.close()
        time.sleep(0.5)


def pyhttp_resets():
    # server-side RSTs from the python server
    for path in ("/reset", "/reset-mid"):
        s = connect()
        r = req("GET", path)
        s.sendall(r)
        data, how = read_all(s)
        conn_log("python-server" + path, s, len(r), data, how, ["GET " + path])
        s.close()
        time.sleep(0.2)


def stdlib():
    base = "http://%s:%d" % (host, port)
    # urllib: one connection per request (sends Connection: close)
    for path in ("/index.html", "/small.txt", "/stream", "/chunked"):
        try:
            with urllib.request.urlopen(base + path, timeout=DEADLINE) as resp:
                body = resp.read()
                log(client="urllib", url=base + path, status=resp.status, version=resp.version,
                    body_bytes=len(body), headers=dict(resp.getheaders()))
        except Exception as e:
            log(client="urllib", url=base + path, error=repr(e))
    # urllib POST
    data = json.dumps({"hello": "world", "n": list(range(100))}).encode()
    rq = urllib.request.Request(base + "/echo", data=data, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(rq, timeout=DEADLINE) as resp:
        body = resp.read()
        log(client="urllib", url=base + "/echo", method="POST", request_body_bytes=len(data),
            status=resp.status, version=resp.version, body_bytes=len(body))
    # http.client: keep-alive where the server allows it
    c = http.client.HTTPConnection(host, port, timeout=DEADLINE)
    for method, path in (("GET", "/index.html"), ("HEAD", "/index.html"), ("GET", "/text.txt"),
                         ("GET", "/missing"), ("POST", "/echo"), ("GET", "/small.txt")):
        body = b"x" * 5000 if method == "POST" else None
        c.request(method, path, body=body)
        resp = c.getresponse()
        rb = resp.read()
        log(client="http.client", url=base + path, method=method, status=resp.status,
            version=resp.version, body_bytes=len(rb), local_port=c.sock.getsockname()[1] if c.sock else None,
            will_close=resp.will_close)
    c.close()


{"pipelining": pipelining, "resets": resets, "cancel": cancel, "tls-cancel": tls_cancel, "pyhttp-resets": pyhttp_resets, "stdlib": stdlib}[mode]()
