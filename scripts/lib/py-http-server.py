#!/usr/bin/env python3
"""python http.server used as a second, independent HTTP server.

usage: py-http-server.py ADDR PORT HTTP_VERSION(1.0|1.1) HTDOCS LOG.jsonl

Serves HTDOCS (SimpleHTTPRequestHandler) plus:
  POST /echo        reads Content-Length body, answers JSON with its size
  GET  /stream      body without Content-Length (close-delimited, HTTP/1.0 style; forces close)
  GET  /chunked     chunked body (HTTP/1.1 server); close-delimited on the HTTP/1.0 server
  GET  /reset       server aborts the connection with RST (SO_LINGER 0) before answering
  GET  /reset-mid   server sends headers and part of the body, then RST
Logs one JSON line per request with exact bytes read from / written to the socket for that request
(request_bytes counts request line + headers + body consumed; response_bytes counts everything written).
"""
import http.server, json, os, socket, struct, sys, threading, time

addr, port, version, htdocs, logpath = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
loglock = threading.Lock()
logf = open(logpath, "a", buffering=1)


class CountingReader:
    def __init__(self, f):
        self.f, self.n = f, 0

    def readline(self, *a):
        b = self.f.readline(*a); self.n += len(b); return b

    def read(self, *a):
        b = self.f.read(*a); self.n += len(b); return b

    def __getattr__(self, k):
        return getattr(self.f, k)


class CountingWriter:
    def __init__(self, f):
        self.f, self.n = f, 0

    def write(self, b):
        r = self.f.write(b); self.n += len(b); return r

    def __getattr__(self, k):
        return getattr(self.f, k)


class Handler(http.server.SimpleHTTPRequestHandler):
    protocol_version = "HTTP/" + version
    server_version = "wt-pyhttp/1"

    def __init__(self, *a, **kw):
        super().__init__(*a, directory=htdocs, **kw)

    def setup(self):
        super().setup()
        self.rfile = CountingReader(self.rfile)
        self.wfile = CountingWriter(self.wfile)
        self.conn_id = "%s:%d" % self.client_address[:2]
        self.nreq = 0

    def handle_one_request(self):
        r0, w0 = self.rfile.n, self.wfile.n
        self.code = None
        self.requestline = ""
        self.command = None
        self.path = None
        t = time.time()
        try:
            super().handle_one_request()
        finally:
            if self.rfile.n > r0 or self.wfile.n > w0 or self.command:
                self.nreq += 1
                rec = {"time": round(t, 6), "server": "%s:%d" % (addr, port),
                       "server_http_version": version, "client": self.client_address[0],
                       "client_port": self.client_address[1], "conn_request": self.nreq,
                       "request_line": self.requestline, "method": self.command, "path": self.path,
                       "status": self.code, "request_bytes": self.rfile.n - r0,
                       "response_bytes": self.wfile.n - w0, "close_connection": self.close_connection,
                       "aborted": getattr(self, "aborted", False)}
                with loglock:
                    logf.write(json.dumps(rec) + "\n")

    def send_response(self, code, message=None):
        self.code = code
        super().send_response(code, message)

    def log_message(self, *a):
        pass

    def _rst(self):
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.aborted = True
        self.close_connection = True
        self.connection.close()

    def do_GET(self):
        if self.path == "/stream":
            body = b"".join(b"close-delimited line %04d\n" % i for i in range(200))
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            for i in range(0, len(body), 1000):
                self.wfile.write(body[i:i + 1000])
            return
        if self.path == "/chunked" and version == "1.0":
            # no chunked coding in HTTP/1.0: same body, close-delimited
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.end_headers()
            self.close_connection = True
            for i in range(5):
                self.wfile.write((b"chunk %d " % i) * (50 * (i + 1)))
            return
        if self.path == "/chunked":
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for i in range(5):
                chunk = (b"chunk %d " % i) * (50 * (i + 1))
                self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            self.wfile.write(b"0\r\n\r\n")
            return
        if self.path == "/reset":
            self._rst()
            return
        if self.path == "/reset-mid":
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", "100000")
            self.end_headers()
            self.wfile.write(b"x" * 20000)
            time.sleep(0.05)
            self._rst()
            return
        super().do_GET()

    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        data = self.rfile.read(n)
        body = json.dumps({"received": len(data)}).encode() + b"\n"
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class Server(http.server.ThreadingHTTPServer):
    allow_reuse_address = True
    daemon_threads = True


Server((addr, port), Handler).serve_forever()
