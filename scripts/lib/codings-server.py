#!/usr/bin/env python3
"""HTTP/1.1 server sending bodies with the content codings br, zstd, gzip and stacks of them, for the
`codings` scenario of scripts/record-captures (nginx cannot send br or zstd without extra modules).

usage: codings-server.py ADDR PORT HTDOCS LOG.jsonl   (run with the venv of codings-requirements.txt)

GET /c/CODINGS/FILE[?chunked=1] answers HTDOCS/FILE with `Content-Encoding: CODINGS` (joined by `+` in
the path, applied in the order listed: `/c/gzip+br/data.json` is sent as `Content-Encoding: gzip, br`): gzip with python's gzip module at level 6 (mtime 0),
br with the brotli module at quality 6 (window 22), zstd with the zstandard module at level 3. With
Content-Length by default; with ?chunked=1 the body is produced by streaming compressors (brotli's
Compressor, zstandard's compressobj: no content size in the frame) and sent in chunks of 4096
encoded bytes. Each response goes out in one write, head and body together. Logs one JSON line per request: target, codings, file_bytes (the file served, i.e.
the decoded size), encoded_bytes (the body as sent, without chunk framing), chunked.
"""
import gzip, json, os, sys, threading
import http.server
import brotli, zstandard

addr, port, htdocs, logpath = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
loglock = threading.Lock()
logf = open(logpath, "a", buffering=1)
BROTLI_QUALITY, BROTLI_WINDOW, ZSTD_LEVEL, GZIP_LEVEL = 6, 22, 3, 6


def encode_whole(data, coding):
    if coding == "gzip":
        return gzip.compress(data, GZIP_LEVEL, mtime=0)
    if coding == "br":
        return brotli.compress(data, quality=BROTLI_QUALITY, lgwin=BROTLI_WINDOW)
    if coding == "zstd":
        return zstandard.ZstdCompressor(level=ZSTD_LEVEL).compress(data)
    raise ValueError(coding)


def encode_streaming(data, coding, piece=16384):
    """The coding applied as a server streaming a response would: input in pieces, output as it comes."""
    if coding == "br":
        c = brotli.Compressor(quality=BROTLI_QUALITY, lgwin=BROTLI_WINDOW)
        out = b"".join(c.process(data[i:i + piece]) for i in range(0, len(data), piece))
        return out + c.finish()
    if coding == "zstd":
        c = zstandard.ZstdCompressor(level=ZSTD_LEVEL).compressobj()
        out = b"".join(c.compress(data[i:i + piece]) for i in range(0, len(data), piece))
        return out + c.flush()
    return encode_whole(data, coding)


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "codings-server/1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        path, _, query = self.path.partition("?")
        parts = path.split("/", 3)
        name = parts[3] if len(parts) == 4 and parts[1] == "c" else ""
        file = os.path.join(htdocs, name)
        if not name or "/" in name or not os.path.isfile(file):
            body = b"not found\n"
            self.send_response(404)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        codings = [c for c in parts[2].split("+") if c]
        chunked = query == "chunked=1"
        data = open(file, "rb").read()
        body = data
        for coding in codings:
            body = encode_streaming(body, coding) if chunked else encode_whole(body, coding)
        # The whole response in one write, as nginx sends it: head and body leave together (with the head
        # written alone, the body followed 5 ms later and curl's time_starttransfer came with the body).
        head = ["HTTP/1.1 200 OK", "Server: " + self.version_string(), "Date: " + self.date_time_string(),
                "Content-Type: application/octet-stream", "Content-Encoding: " + ", ".join(codings)]
        if chunked:
            head.append("Transfer-Encoding: chunked")
            payload = b"".join(b"%x\r\n" % len(body[i:i + 4096]) + body[i:i + 4096] + b"\r\n"
                              for i in range(0, len(body), 4096)) + b"0\r\n\r\n"
        else:
            head.append("Content-Length: %d" % len(body))
            payload = body
        self.wfile.write(("\r\n".join(head) + "\r\n\r\n").encode() + payload)
        with loglock:
            logf.write(json.dumps({"target": self.path, "codings": ", ".join(codings), "file_bytes": len(data),
                                   "encoded_bytes": len(body), "chunked": chunked}) + "\n")


http.server.ThreadingHTTPServer.allow_reuse_address = True
http.server.ThreadingHTTPServer((addr, port), Handler).serve_forever()
