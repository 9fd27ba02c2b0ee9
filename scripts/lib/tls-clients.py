#!/usr/bin/env python3
"""TLS clients for the tls-ciphers scenario of scripts/record-captures (key logs in NSS format).

usage: tls-clients.py sclient ADDR PORT SNI CAFILE KEYLOG STEPS [-- S_CLIENT_OPTION…]
       tls-clients.py pyhttp  ADDR PORT SNI CAFILE KEYLOG CIPHERS

sclient: drives `openssl s_client -quiet -no_ign_eof -keylogfile KEYLOG` over its stdin/stdout.
  STEPS is a comma-separated list: `GET:/path` or `POST:/path` (an HTTP/1.1 keep-alive request; the
  response, which must have a Content-Length, is read completely before the next step), `K` (s_client's
  command: TLS 1.3 KeyUpdate, update_requested — the server answers with its own KeyUpdate before its
  next record), `k` (KeyUpdate, update_not_requested: the client's sending keys only), `R` (send
  nothing, read one response: the answer to a request s_client sent by itself, e.g. the 0-RTT request
  of `-early_data FILE`). After the last step stdin is closed: s_client sends close_notify and exits.
pyhttp: python's http.client over ssl (TLS 1.2 only, `SSLContext.set_ciphers(CIPHERS)`,
  `SSLContext.keylog_filename = KEYLOG`) on one keep-alive connection: GET /index.html, GET /text.txt
  with Accept-Encoding: gzip, POST /upload/pyhttp (JSON), GET /small.txt.
Both connect to ADDR (no DNS) and send SNI / Host SNI; the certificate is verified against CAFILE.
Nothing is logged: nginx's access log and the key log are the truth of these connections.
"""
import http.client, json, os, socket, ssl, subprocess, sys, time

DEADLINE = 10.0


def read_response(out, host_port):
    """Reads one HTTP/1.1 response with a Content-Length from s_client's stdout."""
    head = b""
    end = time.monotonic() + DEADLINE
    while b"\r\n\r\n" not in head:
        b = os.read(out.fileno(), 1)
        if not b or time.monotonic() > end:
            raise SystemExit("sclient %s: response head incomplete: %r" % (host_port, head[:200]))
        head += b
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    body = b""
    while len(body) < length:
        b = os.read(out.fileno(), length - len(body))
        if not b:
            raise SystemExit("sclient %s: response body incomplete" % host_port)
        body += b
    return head.split(b"\r\n")[0].decode()


def sclient(addr, port, sni, cafile, keylog, steps, options):
    cmd = ["openssl", "s_client", "-connect", "%s:%d" % (addr, port), "-servername", sni, "-CAfile", cafile,
           "-verify_return_error", "-quiet", "-no_ign_eof", "-keylogfile", keylog] + options
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    payload = json.dumps({"client": "openssl s_client", "n": list(range(40))}).encode()
    for step in steps.split(","):
        if step in ("K", "k"):
            time.sleep(0.1)
            proc.stdin.write(step.encode() + b"\n")
            proc.stdin.flush()
            time.sleep(0.2)  # its own read of stdin: the next request must not share it
            continue
        if step == "R":
            status = read_response(proc.stdout, "%s:%d" % (addr, port))
            if not status.startswith("HTTP/1.1 2"):
                raise SystemExit("sclient %s:%d %s: %s" % (addr, port, step, status))
            continue
        method, _, path = step.partition(":")
        request = "%s %s HTTP/1.1\r\nHost: %s:%d\r\nUser-Agent: openssl-s_client\r\n" % (method, path, sni, port)
        body = payload if method == "POST" else b""
        if body:
            request += "Content-Type: application/json\r\nContent-Length: %d\r\n" % len(body)
        proc.stdin.write(request.encode() + b"\r\n" + body)  # one write: one read by s_client
        proc.stdin.flush()
        status = read_response(proc.stdout, "%s:%d" % (addr, port))
        if not status.startswith("HTTP/1.1 2"):
            raise SystemExit("sclient %s:%d %s: %s" % (addr, port, step, status))
    time.sleep(0.1)
    proc.stdin.close()
    try:
        rc = proc.wait(timeout=DEADLINE)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise SystemExit("sclient %s:%d did not exit" % (addr, port))
    err = proc.stderr.read().decode(errors="replace")
    if rc != 0:
        raise SystemExit("sclient %s:%d exit %d: %s" % (addr, port, rc, err))


def pyhttp(addr, port, sni, cafile, keylog, ciphers):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.load_verify_locations(cafile)
    ctx.minimum_version = ctx.maximum_version = ssl.TLSVersion.TLSv1_2
    ctx.set_ciphers(ciphers)
    ctx.keylog_filename = keylog
    conn = http.client.HTTPSConnection(sni, port, context=ctx, timeout=DEADLINE)
    # connect to the address, keep the name for SNI, certificate check and Host
    conn._create_connection = lambda _address, *a, **k: socket.create_connection((addr, port), *a, **k)
    payload = json.dumps({"client": "python http.client", "n": list(range(60))}).encode()
    for method, path, headers, body in (
            ("GET", "/index.html", {}, None),
            ("GET", "/text.txt", {"Accept-Encoding": "gzip"}, None),
            ("POST", "/upload/pyhttp", {"Content-Type": "application/json"}, payload),
            ("GET", "/small.txt", {}, None)):
        conn.request(method, path, body=body, headers=headers)
        resp = conn.getresponse()
        resp.read()
        if resp.status // 100 != 2:
            raise SystemExit("pyhttp %s %s: %d" % (method, path, resp.status))
    conn.close()


def main():
    mode, addr, port, sni, cafile, keylog = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6]
    if mode == "sclient":
        rest = sys.argv[8:]
        sclient(addr, port, sni, cafile, keylog, sys.argv[7], rest[1:] if rest[:1] == ["--"] else rest)
    elif mode == "pyhttp":
        pyhttp(addr, port, sni, cafile, keylog, sys.argv[7])
    else:
        raise SystemExit("unknown mode " + mode)


main()
