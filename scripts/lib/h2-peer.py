#!/usr/bin/env python3
"""HTTP/2 server and client for the `h2-python` and `h2-upgrade` scenarios of scripts/record-captures: the
frames nginx and curl never send (server push, padding, RST_STREAM, GOAWAY below open streams, PRIORITY, PING,
CONTINUATION, unknown frame types), written frame by frame (HPACK from the `hpack` module, which
PyPI's `h2` installs; the framing is done here, so any frame can be sent).

usage: h2-peer.py server ADDR TLS_PORT H2C_PORT CERT KEY LOG.jsonl READY_FILE KEYLOG
       h2-peer.py client ADDR PORT tls|h2c SNI CAFILE KEYLOG LOG.jsonl SCRIPT   (SCRIPT: odd | push | cancel)
KEYLOG: NSS key log appended by python's ssl (SSLContext.keylog_filename), `-` for none; the server's
covers clients that cannot write one (nghttp 1.52 has no SSLKEYLOGFILE).

server: TLS 1.3 (ALPN h2 only) on TLS_PORT and cleartext h2c on H2C_PORT — prior knowledge, or an
  HTTP/1.1 request with `Upgrade: h2c` (read with its body, answered `101 Switching Protocols`, then
  served as stream 1) — one thread per connection. Paths (responses are deterministic, no Date header):
    /push        200 + PUSH_PROMISE for /pushed/style.css and /pushed/app.js (only if the peer's
                 SETTINGS_ENABLE_PUSH is not 0), then the page, then the two pushed responses
    /padded      padded HEADERS (pad 17) and padded DATA frames: 1000 B pad 0, 2000 B pad 255,
                 an empty DATA frame with END_STREAM and pad 30
    /big-header  a response header block of ~23 KB (x-big, 30000 characters): HEADERS (10000 B of the
                 block) + CONTINUATION (8000 B) + CONTINUATION (the rest)
    /reset       HEADERS, 1000 B DATA, then RST_STREAM INTERNAL_ERROR (2)
    /refuse      RST_STREAM REFUSED_STREAM (7) only
    /large       256 KiB in 16 KiB DATA frames, 20 ms apart (the client cancels it)
    /unknown     a frame of unknown type 0xfa on the stream and one of type 0xfb on stream 0, then 200
    /ping        a server PING, then 200
    /trailers    HEADERS, DATA, trailing HEADERS (END_STREAM)
    /goaway      GOAWAY with last-stream-id = this stream, then 200; HEADERS of higher streams that
                 follow are decoded (HPACK state) and ignored
    /echo        (POST) JSON with the request body size
    /small, /pushed/*, anything else: 200 text (/missing: 404)
  The server answers PING, acknowledges SETTINGS, sends WINDOW_UPDATE (connection and stream) for every
  DATA frame it receives, honours the peer's flow-control windows and max frame size.
client: one connection; `odd`: unknown frame on stream 0,
  PING, PRIORITY frames, HEADERS with PRIORITY and PADDED, padded POST DATA, a request header block
  with CONTINUATION, an unknown frame on an open stream, a server reset, a client RST_STREAM CANCEL
  of /large, trailers, then three requests in one write of which the first is /goaway (the other two
  are refused), GOAWAY and close. `push`: SETTINGS_ENABLE_PUSH 1, /push (accepts both pushes),
  /padded, /big-header, /ping, GOAWAY and close. `cancel` (to nginx's rate-limited /cancel/, scenario
  h2-cancel): /cancel/blob.bin reset with RST_STREAM CANCEL once 100,000 body bytes arrived, 0.5 s for
  the DATA in flight, the same after 40,000 bytes on a second stream, then /text.txt to its end, GOAWAY
  and close.

Both sides log one JSON line per stream when the connection ends (`side` server or client): `conn`,
`transport` tls|h2c, `client_port`, `server_port`, `stream`, `pushed_by` (promised streams), `method`,
`path`, `authority`, `status`, `outcome` (complete, reset_by_server, reset_by_client, refused = above a
GOAWAY's last-stream-id, idle = PRIORITY frames only, incomplete), `rst_error`, `request_body_bytes`,
`response_body_bytes`, `upgrade` (the h2c Upgrade request's HTTP/1.1 byte counts, on stream 1), and
per direction `in`/`out` (what this side received / sent on that stream id): `frames` = [[type, flags,
length, pad_length or null], …] in wire order, `frame_count`, `frame_bytes` (Σ 9 + length),
`header_block_bytes` (HPACK bytes of HEADERS + CONTINUATION: payload less pad length byte, padding
and the 5 priority bytes), `promise_block_bytes` (same for PUSH_PROMISE + its CONTINUATIONs, less the
4-byte promised id), `data_bytes` (DATA payload less padding), `padding_bytes` (Σ Pad Length),
`padded_frames`. Then one line with `stream` 0: the connection's own frames (SETTINGS, PING,
WINDOW_UPDATE, GOAWAY, unknown) in `in`/`out`, `preface_bytes` (24 received by the server / sent by the
client), `bytes_in` / `bytes_out` (every byte above TCP/TLS: HTTP/1.1 upgrade bytes + preface + Σ frame
bytes), `http1_in` / `http1_out` (server), `goaway` ({last_stream_id, error, debug} sent or received).
"""
import base64, json, os, select, socket, ssl, struct, sys, threading, time

import hpack

DATA, HEADERS, PRIORITY, RST_STREAM, SETTINGS, PUSH_PROMISE, PING, GOAWAY, WINDOW_UPDATE, CONTINUATION = range(10)
END_STREAM = ACK = 0x1
END_HEADERS, PADDED, PRIORITY_FLAG = 0x4, 0x8, 0x20
PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
NO_ERROR, INTERNAL_ERROR, REFUSED_STREAM, CANCEL = 0, 2, 7, 8
S_ENABLE_PUSH, S_INITIAL_WINDOW, S_MAX_FRAME = 2, 4, 5
IDLE_TIMEOUT = 10.0


def frame_bytes(ftype, flags, sid, payload):
    return struct.pack("!I", len(payload))[1:] + struct.pack("!BBI", ftype, flags, sid & 0x7FFFFFFF) + payload


def padded(payload, pad):
    """PADDED payload: pad length byte, payload, pad zero bytes (pad None: no padding)."""
    return payload if pad is None else bytes([pad]) + payload + bytes(pad)


class Wire:
    """One HTTP/2 connection's bytes: frames sent and received, recorded in wire order."""

    def __init__(self, sock):
        self.sock, self.rbuf, self.eof = sock, b"", False
        self.records = []          # (dir, type, flags, sid, length, pad, block kind, block bytes)
        self.bytes_in = self.bytes_out = 0
        self.preface_in = self.preface_out = 0
        self.http1_in = self.http1_out = 0       # h2c Upgrade: the HTTP/1.1 request and the 101
        self.block = {"in": None, "out": None}  # kind of the open header block (continuations)

    def _record(self, d, ftype, flags, sid, payload):
        pad, hb, kind = None, 0, None
        body = payload
        if ftype in (DATA, HEADERS, PUSH_PROMISE) and flags & PADDED and payload:
            pad = payload[0]
            body = payload[1:len(payload) - pad]
        if ftype == HEADERS:
            hb = len(body) - (5 if flags & PRIORITY_FLAG else 0)
            kind = "header"
        elif ftype == PUSH_PROMISE:
            hb, kind = len(body) - 4, "promise"
        elif ftype == CONTINUATION:
            hb, kind = len(payload), self.block[d]
        if ftype in (HEADERS, PUSH_PROMISE):
            self.block[d] = None if flags & END_HEADERS else kind
        elif ftype == CONTINUATION and flags & END_HEADERS:
            self.block[d] = None
        data = len(body) if ftype == DATA else 0
        self.records.append((d, ftype, flags, sid, len(payload), pad, kind, hb, data))

    def send(self, frames):
        """frames: [(type, flags, sid, payload)], written with one sendall."""
        out = b"".join(frame_bytes(*f) for f in frames)
        for f in frames:
            self._record("out", *f)
        self.sock.sendall(out)
        self.bytes_out += len(out)

    def send_preface(self):
        self.sock.sendall(PREFACE)
        self.preface_out = len(PREFACE)
        self.bytes_out += len(PREFACE)

    def readable(self, timeout):
        if isinstance(self.sock, ssl.SSLSocket) and self.sock.pending():
            return True
        return bool(select.select([self.sock], [], [], timeout)[0])

    def fill(self, timeout):
        """Reads what is there (waits up to timeout); False on EOF or reset."""
        if not self.readable(timeout):
            return True
        try:
            b = self.sock.recv(65536)
        except (ConnectionResetError, ssl.SSLError, OSError):
            b = b""
        if not b:
            self.eof = True
            return False
        self.rbuf += b
        self.bytes_in += len(b)
        return True

    def starts_with_preface(self):
        end = time.monotonic() + IDLE_TIMEOUT
        while len(self.rbuf) < 4:
            if time.monotonic() > end or not self.fill(0.2):
                raise ConnectionError("nothing received")
        return self.rbuf.startswith(PREFACE[:4])

    def read_http1_head(self):
        end = time.monotonic() + IDLE_TIMEOUT
        while b"\r\n\r\n" not in self.rbuf:
            if time.monotonic() > end or not self.fill(0.2):
                raise ConnectionError("HTTP/1.1 head incomplete")
        i = self.rbuf.index(b"\r\n\r\n") + 4
        head, self.rbuf = self.rbuf[:i], self.rbuf[i:]
        self.http1_in += len(head)
        return head

    def read_http1_body(self, n):
        end = time.monotonic() + IDLE_TIMEOUT
        while len(self.rbuf) < n:
            if time.monotonic() > end or not self.fill(0.2):
                raise ConnectionError("HTTP/1.1 body incomplete")
        body, self.rbuf = self.rbuf[:n], self.rbuf[n:]
        self.http1_in += n
        return body

    def expect_preface(self):
        end = time.monotonic() + IDLE_TIMEOUT
        while len(self.rbuf) < len(PREFACE):
            if time.monotonic() > end or not self.fill(0.2):
                raise ConnectionError("no preface")
        if self.rbuf[:24] != PREFACE:
            raise ConnectionError("bad preface %r" % self.rbuf[:24])
        self.rbuf = self.rbuf[24:]
        self.preface_in = 24

    def next_frame(self):
        """A complete frame from the buffer, or None."""
        if len(self.rbuf) < 9:
            return None
        length = int.from_bytes(self.rbuf[:3], "big")
        if len(self.rbuf) < 9 + length:
            return None
        ftype, flags, sid = struct.unpack("!BBI", self.rbuf[3:9])
        payload, self.rbuf = self.rbuf[9:9 + length], self.rbuf[9 + length:]
        sid &= 0x7FFFFFFF
        self._record("in", ftype, flags, sid, payload)
        return ftype, flags, sid, payload

    def summary(self, sid, d):
        rs = [r for r in self.records if r[0] == d and r[3] == sid]
        return {"frames": [[r[1], r[2], r[4], r[5]] for r in rs], "frame_count": len(rs),
                "frame_bytes": sum(9 + r[4] for r in rs),
                "header_block_bytes": sum(r[7] for r in rs if r[6] == "header"),
                "promise_block_bytes": sum(r[7] for r in rs if r[6] == "promise"),
                "data_bytes": sum(r[8] for r in rs),
                "padding_bytes": sum(r[5] or 0 for r in rs), "padded_frames": sum(r[5] is not None for r in rs)}


def strip_payload(ftype, flags, payload):
    """Header block fragment (or DATA) of a frame: without pad length, padding, priority, promised id."""
    if ftype in (DATA, HEADERS, PUSH_PROMISE) and flags & PADDED:
        payload = payload[1:len(payload) - payload[0]]
    if ftype == HEADERS and flags & PRIORITY_FLAG:
        payload = payload[5:]
    if ftype == PUSH_PROMISE:
        payload = payload[4:]
    return payload


def settings_payload(pairs):
    return b"".join(struct.pack("!HI", k, v) for k, v in pairs)


def header_frames(ftype, sid, block, end_stream=False, pad=None, priority=None, split=None, promised=None,
                  max_frame=16384):
    """HEADERS/PUSH_PROMISE (+ CONTINUATION) frames for one header block. split: sizes of the fragments
    (default: max_frame each); priority: (dependency, weight) for the PRIORITY flag."""
    sizes, rest = [], len(block)
    for s in (split or []):
        if rest > 0:
            sizes.append(min(s, rest)); rest -= sizes[-1]
    while rest > 0 or not sizes:
        sizes.append(min(max_frame - 64, rest)); rest -= sizes[-1]
    frags, pos = [], 0
    for s in sizes:
        frags.append(block[pos:pos + s]); pos += s
    frames = []
    for i, frag in enumerate(frags):
        last = i == len(frags) - 1
        if i == 0:
            flags = (END_STREAM if end_stream and ftype == HEADERS else 0) | (END_HEADERS if last else 0)
            prefix = b""
            if ftype == PUSH_PROMISE:
                prefix = struct.pack("!I", promised)
            if priority is not None:
                flags |= PRIORITY_FLAG
                prefix = struct.pack("!IB", priority[0], priority[1] - 1) + prefix
            if pad is not None:
                flags |= PADDED
            frames.append((ftype, flags, sid, padded(prefix + frag, pad)))
        else:
            frames.append((CONTINUATION, END_HEADERS if last else 0, sid, frag))
    return frames


def big_value(n, seed):
    """n characters that HPACK's Huffman code does not shrink much (deterministic)."""
    out, x = [], seed
    alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_"
    for _ in range(n):
        x = (x * 1103515245 + 12345) & 0x7FFFFFFF
        out.append(alphabet[(x >> 16) % len(alphabet)])
    return "".join(out)


def body_for(path, size):
    line = ("wiretally h2-peer %s " % path).encode()
    return (line * (size // len(line) + 1))[:size]


class Stream:
    def __init__(self, sid):
        self.sid, self.req, self.block, self.body = sid, {}, b"", 0
        self.status, self.resp_body, self.outcome, self.rst_error = None, 0, "incomplete", None
        self.pushed_by, self.req_done, self.resp_done = None, False, False


def decode(decoder, block):
    return [(k.decode() if isinstance(k, bytes) else k, v.decode() if isinstance(v, bytes) else v)
            for k, v in decoder.decode(block, raw=False)]


def stream_lines(side, info, wire, streams, extra0):
    lines = []
    for sid in sorted(set(streams) | {r[3] for r in wire.records if r[3]}):
        s = streams.get(sid)
        if s is None:  # only PRIORITY frames (nghttp's dependency anchors) or frames of a stream never opened
            s = Stream(sid)
            s.outcome = "idle"
        lines.append(dict(info, side=side, stream=sid, pushed_by=s.pushed_by, method=s.req.get(":method"),
                          path=s.req.get(":path"), authority=s.req.get(":authority"), status=s.status,
                          outcome=s.outcome, rst_error=s.rst_error, request_body_bytes=s.body,
                          response_body_bytes=s.resp_body, upgrade=getattr(s, "upgrade", None),
                          **{"in": wire.summary(sid, "in"), "out": wire.summary(sid, "out")}))
    lines.append(dict(info, side=side, stream=0, **{"in": wire.summary(0, "in"), "out": wire.summary(0, "out")},
                      preface_bytes=wire.preface_in or wire.preface_out, bytes_in=wire.bytes_in,
                      bytes_out=wire.bytes_out, **extra0))
    return lines


# ---------------------------------------------------------------- server
class ServerConn:
    def __init__(self, sock, info, log):
        self.w, self.info, self.log = Wire(sock), info, log
        self.enc, self.dec = hpack.Encoder(), hpack.Decoder()
        self.dec.max_header_list_size = 1 << 20
        self.peer = {S_ENABLE_PUSH: 1, S_INITIAL_WINDOW: 65535, S_MAX_FRAME: 16384}
        self.conn_window, self.windows = 65535, {}
        self.streams, self.actions, self.not_before = {}, [], 0.0
        self.next_push, self.goaway, self.open_block = 2, None, None

    def run(self):
        upgraded = None
        if self.info["transport"] == "h2c" and not self.w.starts_with_preface():
            upgraded = self.upgrade()
        else:
            self.w.expect_preface()
        self.w.send([(SETTINGS, 0, 0, settings_payload([(3, 100), (S_INITIAL_WINDOW, 1 << 20)]))])
        if upgraded is not None:
            self.w.expect_preface()
            self.request_done(upgraded)
        idle = time.monotonic() + IDLE_TIMEOUT
        while time.monotonic() < idle:
            while True:  # frames already buffered first (also those that arrived with the FIN)
                f = self.w.next_frame()
                if f is None:
                    break
                idle = time.monotonic() + IDLE_TIMEOUT
                self.handle(*f)
            if self.w.eof:
                break
            try:
                self.pump()
            except OSError:
                break
            timeout = 0.5 if not self.actions else max(0.0, min(0.5, self.not_before - time.monotonic()))
            self.w.fill(timeout)
        if isinstance(self.w.sock, ssl.SSLSocket):  # answer the client's close_notify with ours
            try:
                self.w.sock.settimeout(2)
                self.w.sock.unwrap()
            except (ssl.SSLError, OSError, ValueError):
                pass
        for s in self.streams.values():
            if s.outcome == "incomplete" and s.req_done and s.resp_done:
                s.outcome = "complete"
        extra = {"goaway": self.goaway, "http1_in": self.w.http1_in, "http1_out": self.w.http1_out}
        with self.log[1]:
            for l in stream_lines("server", self.info, self.w, self.streams, extra):
                self.log[0].write(json.dumps(l) + "\n")
            self.log[0].flush()

    def upgrade(self):
        """HTTP/1.1 request with `Upgrade: h2c` (RFC 7540 3.2): its body is read as HTTP/1.1, `101 Switching
        Protocols` answers it, HTTP2-Settings are the client's first SETTINGS, and the request becomes
        stream 1 (half-closed from the client), answered after the server's SETTINGS."""
        head = self.w.read_http1_head()
        lines = head.decode("latin-1").split("\r\n")
        method, target, _ = lines[0].split(" ", 2)
        fields = {}
        for line in lines[1:]:
            if line:
                k, _, v = line.partition(":")
                fields[k.strip().lower()] = v.strip()
        body = self.w.read_http1_body(int(fields.get("content-length", "0")))
        if "h2c" not in fields.get("upgrade", "").lower():
            raise ConnectionError("HTTP/1.1 request without Upgrade: h2c")
        settings = base64.urlsafe_b64decode(fields.get("http2-settings", "") + "==")
        for i in range(0, len(settings) - len(settings) % 6, 6):
            k, v = struct.unpack("!HI", settings[i:i + 6])
            self.peer[k] = v
        resp = b"HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n"
        self.w.sock.sendall(resp)
        self.w.bytes_out += len(resp)
        self.w.http1_out = len(resp)
        s = self.streams[1] = Stream(1)
        self.windows[1] = self.peer[S_INITIAL_WINDOW]
        s.req = {":method": method, ":scheme": "http", ":authority": fields.get("host", ""), ":path": target}
        s.body, s.upgrade = len(body), {"http1_request_bytes": self.w.http1_in, "http1_response_bytes": len(resp)}
        return s

    # incoming
    def handle(self, ftype, flags, sid, payload):
        if ftype == SETTINGS and not flags & ACK:
            for i in range(0, len(payload), 6):
                k, v = struct.unpack("!HI", payload[i:i + 6])
                if k == S_INITIAL_WINDOW:
                    for x in self.windows:
                        self.windows[x] += v - self.peer[S_INITIAL_WINDOW]
                self.peer[k] = v
            self.w.send([(SETTINGS, ACK, 0, b"")])
        elif ftype == PING and not flags & ACK:
            self.w.send([(PING, ACK, 0, payload)])
        elif ftype == WINDOW_UPDATE:
            inc = struct.unpack("!I", payload)[0] & 0x7FFFFFFF
            if sid == 0:
                self.conn_window += inc
            elif sid in self.windows:
                self.windows[sid] += inc
        elif ftype in (HEADERS, CONTINUATION):
            if ftype == HEADERS:
                s = self.streams.get(sid)
                if s is None:
                    s = self.streams[sid] = Stream(sid)
                    self.windows[sid] = self.peer[S_INITIAL_WINDOW]
                    s.end_after = bool(flags & END_STREAM)
                    s.trailer = False
                else:
                    s.trailer, s.end_after = True, bool(flags & END_STREAM)
            s = self.streams[sid]
            s.block += strip_payload(ftype, flags, payload)
            if flags & END_HEADERS:
                hdrs = decode(self.dec, s.block)
                s.block = b""
                if not s.trailer:
                    s.req = dict(hdrs)
                if s.end_after:
                    self.request_done(s)
        elif ftype == DATA:
            s = self.streams.get(sid)
            if s is not None:
                s.body += len(strip_payload(DATA, flags, payload))
            if payload:
                ups = [(WINDOW_UPDATE, 0, 0, struct.pack("!I", len(payload)))]
                if not flags & END_STREAM:
                    ups.append((WINDOW_UPDATE, 0, sid, struct.pack("!I", len(payload))))
                self.w.send(ups)
            if s is not None and flags & END_STREAM:
                self.request_done(s)
        elif ftype == RST_STREAM:
            s = self.streams.get(sid)
            if s is not None:
                s.outcome, s.rst_error = "reset_by_client", struct.unpack("!I", payload)[0]
                self.actions = [a for a in self.actions if a[1] != sid]
        elif ftype == GOAWAY:
            last, err = struct.unpack("!II", payload[:8])
            self.goaway_in = {"last_stream_id": last & 0x7FFFFFFF, "error": err, "debug": payload[8:].decode("latin-1")}
        # PRIORITY, PUSH_PROMISE (never from a client), unknown types: recorded, otherwise ignored

    def request_done(self, s):
        s.req_done = True
        if self.goaway is not None and s.sid > self.goaway["last_stream_id"]:
            s.outcome = "refused"
            return
        self.respond(s)

    # outgoing
    def hdrs(self, status, body, extra=(), ctype="text/plain"):
        return [(":status", str(status)), ("content-type", ctype), ("content-length", str(len(body))),
                ("server", "wt-h2-peer")] + list(extra)

    def respond(self, s):
        sid, path, A = s.sid, s.req.get(":path", ""), self.actions.append
        if path == "/push":
            page = b"<html><link rel=stylesheet href=/pushed/style.css><script src=/pushed/app.js></script></html>\n"
            A(("headers", sid, self.hdrs(200, page, ctype="text/html"), False, {}))
            pushed = []
            if self.peer.get(S_ENABLE_PUSH, 1):
                for p in ("/pushed/style.css", "/pushed/app.js"):
                    pid, self.next_push = self.next_push, self.next_push + 2
                    ps = self.streams[pid] = Stream(pid)
                    self.windows[pid] = self.peer[S_INITIAL_WINDOW]
                    ps.pushed_by, ps.req_done = sid, True
                    ps.req = {":method": "GET", ":scheme": s.req.get(":scheme", "https"),
                              ":authority": s.req.get(":authority", ""), ":path": p}
                    A(("push", sid, pid, list(ps.req.items())))
                    pushed.append((pid, p))
            A(("data", sid, page, True, {}))
            for pid, p in pushed:
                b = body_for(p, 600)
                A(("headers", pid, self.hdrs(200, b), False, {}))
                A(("data", pid, b, True, {}))
        elif path == "/padded":
            b = body_for(path, 3000)
            A(("headers", sid, self.hdrs(200, b), False, {"pad": 17}))
            A(("data", sid, b[:1000], False, {"pad": 0}))
            A(("data", sid, b[1000:], False, {"pad": 255}))
            A(("data", sid, b"", True, {"pad": 30}))
        elif path == "/big-header":
            b = body_for(path, 200)
            A(("headers", sid, self.hdrs(200, b, [("x-big", big_value(30000, 7))]), False, {"split": [10000, 8000]}))
            A(("data", sid, b, True, {}))
        elif path == "/reset":
            b = body_for(path, 4000)
            A(("headers", sid, self.hdrs(200, b), False, {}))
            A(("data", sid, b[:1000], False, {}))
            A(("rst", sid, INTERNAL_ERROR))
        elif path == "/refuse":
            A(("rst", sid, REFUSED_STREAM))
        elif path == "/large":
            b = body_for(path, 256 * 1024)
            A(("headers", sid, self.hdrs(200, b), False, {}))
            for i in range(0, len(b), 16384):
                A(("data", sid, b[i:i + 16384], i + 16384 >= len(b), {}))
                A(("sleep", sid, 0.02))
        elif path == "/unknown":
            b = body_for(path, 100)
            A(("raw", sid, 0xFA, 0x00, sid, b"wiretally-ext-stream"))
            A(("raw", sid, 0xFB, 0x05, 0, b"wiretally-ext-conn"))
            A(("headers", sid, self.hdrs(200, b), False, {}))
            A(("data", sid, b, True, {}))
        elif path == "/ping":
            b = body_for(path, 100)
            A(("raw", sid, PING, 0, 0, b"wt-ping1"))
            A(("headers", sid, self.hdrs(200, b), False, {}))
            A(("data", sid, b, True, {}))
        elif path == "/trailers":
            b = body_for(path, 500)
            A(("headers", sid, self.hdrs(200, b, [("trailer", "x-checksum")]), False, {}))
            A(("data", sid, b, False, {}))
            A(("headers", sid, [("x-checksum", "%08x" % (sum(b) & 0xFFFFFFFF))], True, {}))
        elif path == "/goaway":
            self.goaway = {"last_stream_id": sid, "error": NO_ERROR, "debug": "wiretally: last stream %d" % sid}
            A(("raw", sid, GOAWAY, 0, 0, struct.pack("!II", sid, NO_ERROR) + self.goaway["debug"].encode()))
            b = body_for(path, 300)
            A(("headers", sid, self.hdrs(200, b), False, {}))
            A(("data", sid, b, True, {}))
        elif path == "/echo":
            b = (json.dumps({"received": s.body}) + "\n").encode()
            A(("headers", sid, self.hdrs(200, b, ctype="application/json"), False, {}))
            A(("data", sid, b, True, {}))
        else:
            status = 404 if path == "/missing" else 200
            b = body_for(path, 400 if path.startswith("/pushed/") else 120)
            A(("headers", sid, self.hdrs(status, b), False, {}))
            A(("data", sid, b, True, {}))

    def pump(self):
        maxf = self.peer.get(S_MAX_FRAME, 16384)
        while self.actions:
            a = self.actions[0]
            kind, sid = a[0], a[1]
            if time.monotonic() < self.not_before:
                return
            s = self.streams.get(sid)
            if kind == "sleep":
                self.not_before = time.monotonic() + a[2]
            elif kind == "headers":
                _, _, hdrs, end, opt = a
                if s.status is None and hdrs and hdrs[0][0] == ":status":
                    s.status = int(hdrs[0][1])
                self.w.send(header_frames(HEADERS, sid, self.enc.encode(hdrs), end_stream=end, pad=opt.get("pad"),
                                          split=opt.get("split"), max_frame=maxf))
                if end:
                    s.resp_done = True
            elif kind == "push":
                _, parent, pid, req = a
                self.w.send(header_frames(PUSH_PROMISE, parent, self.enc.encode(req), promised=pid, max_frame=maxf))
            elif kind == "data":
                _, _, data, end, opt = a
                pad = opt.get("pad")
                over = 0 if pad is None else pad + 1
                avail = min(self.conn_window, self.windows[sid], maxf)
                if avail < over + min(len(data), 1):
                    return  # blocked by flow control: read WINDOW_UPDATEs first
                part = data[:avail - over]
                last = len(part) == len(data)
                payload = padded(part, pad)
                flags = (END_STREAM if (end and last) else 0) | (0 if pad is None else PADDED)
                self.w.send([(DATA, flags, sid, payload)])
                self.conn_window -= len(payload)
                self.windows[sid] -= len(payload)
                s.resp_body += len(part)
                if not last:
                    self.actions[0] = ("data", sid, data[len(part):], end, opt)
                    continue
                if end:
                    s.resp_done = True
            elif kind == "rst":
                self.w.send([(RST_STREAM, 0, sid, struct.pack("!I", a[2]))])
                s.outcome, s.rst_error = "reset_by_server", a[2]
            elif kind == "raw":
                _, _, ftype, flags, fsid, payload = a
                self.w.send([(ftype, flags, fsid, payload)])
            self.actions.pop(0)


def serve(addr, port, ctx, log, counter):
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((addr, port))
    ls.listen(16)
    while True:
        c, peer = ls.accept()
        c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        with counter[1]:
            counter[0] += 1
            n = counter[0]
        info = {"conn": n, "transport": "tls" if ctx else "h2c", "client_port": peer[1], "server_port": port}

        def run(c=c, info=info):
            try:
                sock = c
                if ctx:
                    sock = ctx.wrap_socket(c, server_side=True)
                    info["alpn"] = sock.selected_alpn_protocol()
                ServerConn(sock, info, log).run()
            except (ConnectionError, ssl.SSLError, OSError) as e:
                sys.stderr.write("h2-peer server: connection %d: %s\n" % (info["conn"], e))
            finally:
                try:
                    c.close()
                except OSError:
                    pass
        threading.Thread(target=run, daemon=True).start()


def server_main(addr, tls_port, h2c_port, cert, key, logpath, ready, keylog):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_3
    ctx.load_cert_chain(cert, key)
    if keylog != "-":
        ctx.keylog_filename = keylog
    ctx.set_alpn_protocols(["h2"])
    log = (open(logpath, "a", buffering=1), threading.Lock())
    counter = [0, threading.Lock()]
    for port, c in ((int(tls_port), ctx), (int(h2c_port), None)):
        threading.Thread(target=serve, args=(addr, port, c, log, counter), daemon=True).start()
    time.sleep(0.3)
    open(ready, "w").close()
    while True:
        time.sleep(3600)


# ---------------------------------------------------------------- client
class Client:
    def __init__(self, sock, info, push):
        self.w, self.info = Wire(sock), info
        self.enc, self.dec = hpack.Encoder(), hpack.Decoder()
        self.dec.max_header_list_size = 1 << 20
        self.streams, self.next_sid, self.goaway, self.block_sid = {}, 1, None, None
        self.w.send_preface()
        self.w.send([(SETTINGS, 0, 0, settings_payload([(S_ENABLE_PUSH, 1 if push else 0), (S_INITIAL_WINDOW, 1 << 20)])),
                     (WINDOW_UPDATE, 0, 0, struct.pack("!I", (1 << 24) - 65535))])

    def request(self, method, path, body=None, extra=(), pad=None, priority=None, split=None, data_pads=None,
                send=True):
        sid, self.next_sid = self.next_sid, self.next_sid + 2
        s = self.streams[sid] = Stream(sid)
        s.req = {":method": method, ":scheme": self.info["scheme"], ":authority": self.info["authority"], ":path": path}
        hdrs = list(s.req.items()) + [("user-agent", "wt-h2-peer")] + list(extra)
        if body is not None:
            hdrs.append(("content-length", str(len(body))))
        frames = header_frames(HEADERS, sid, self.enc.encode(hdrs), end_stream=body is None, pad=pad,
                               priority=priority, split=split)
        if body is not None:
            pads = data_pads or [None]
            n = len(pads)
            step = -(-len(body) // n) if body else 0
            for i, p in enumerate(pads):
                part = body[i * step:(i + 1) * step]
                frames.append((DATA, (END_STREAM if i == n - 1 else 0) | (0 if p is None else PADDED), sid, padded(part, p)))
                s.body += len(part)
        s.req_done = True
        if send:
            self.w.send(frames)
        return sid, frames

    def handle(self, ftype, flags, sid, payload):
        if ftype == SETTINGS and not flags & ACK:
            self.w.send([(SETTINGS, ACK, 0, b"")])
        elif ftype == PING and not flags & ACK:
            self.w.send([(PING, ACK, 0, payload)])
        elif ftype in (HEADERS, PUSH_PROMISE, CONTINUATION):
            if ftype == PUSH_PROMISE:
                off = 1 if flags & PADDED else 0
                pid = struct.unpack("!I", payload[off:off + 4])[0] & 0x7FFFFFFF
                ps = self.streams[pid] = Stream(pid)
                ps.pushed_by, ps.req_done, ps.promise = sid, True, True
                self.block_sid = pid
            elif ftype == HEADERS:
                self.block_sid = sid
            s = self.streams.get(self.block_sid)
            s.block = getattr(s, "block", b"") + strip_payload(ftype, flags, payload)
            if ftype == HEADERS:
                s.end_after = bool(flags & END_STREAM)
            if flags & END_HEADERS:
                hdrs = decode(self.dec, s.block)
                s.block = b""
                if getattr(s, "promise", False):
                    s.req, s.promise = dict(hdrs), False
                elif s.status is None:
                    s.status = int(dict(hdrs).get(":status", 0))
                if getattr(s, "end_after", False):
                    s.resp_done = True
        elif ftype == DATA:
            s = self.streams.get(sid)
            if s is not None:
                s.resp_body += len(strip_payload(DATA, flags, payload))
                if flags & END_STREAM:
                    s.resp_done = True
        elif ftype == RST_STREAM:
            s = self.streams.get(sid)
            if s is not None:
                s.outcome, s.rst_error = "reset_by_server", struct.unpack("!I", payload)[0]
        elif ftype == GOAWAY:
            last, err = struct.unpack("!II", payload[:8])
            self.goaway = {"last_stream_id": last & 0x7FFFFFFF, "error": err, "debug": payload[8:].decode("latin-1")}

    def wait(self, cond, timeout=5.0):
        end = time.monotonic() + timeout
        while not cond():
            while True:
                f = self.w.next_frame()
                if f is None:
                    break
                self.handle(*f)
                if cond():
                    return True
            if time.monotonic() > end or not self.w.fill(0.2):
                return cond()
        return True

    def done(self, *sids):
        return lambda: all(self.streams[x].resp_done or self.streams[x].outcome != "incomplete" for x in sids)

    def close(self):
        last = max([x for x, s in self.streams.items() if x % 2 == 0] or [0])
        self.w.send([(GOAWAY, 0, 0, struct.pack("!II", last, NO_ERROR))])
        self.wait(lambda: False, 0.3)
        sock = self.w.sock
        if isinstance(sock, ssl.SSLSocket):  # close_notify, then the server's, then FIN
            try:
                sock = sock.unwrap()
            except (ssl.SSLError, OSError):
                pass
        sock.close()

    def finish(self, logpath):
        for s in self.streams.values():
            if s.outcome == "incomplete" and s.resp_done:
                s.outcome = "complete"
            elif s.outcome == "incomplete" and self.goaway and s.sid > self.goaway["last_stream_id"] and s.sid % 2:
                s.outcome = "refused"
        with open(logpath, "a") as f:
            for l in stream_lines("client", self.info, self.w, self.streams, {"goaway": self.goaway}):
                f.write(json.dumps(l) + "\n")


def script_odd(c):
    c.w.send([(0xFB, 0x00, 0, b"wiretally-client-ext")])      # unknown type on stream 0
    c.w.send([(PING, 0, 0, b"wt-ping0")])
    c.wait(lambda: any(r[0] == "in" and r[1] == PING and r[2] & ACK for r in c.w.records))
    c.w.send([(PRIORITY, 0, 3, struct.pack("!IB", 0, 31))])     # PRIORITY for a stream not yet opened
    s1, _ = c.request("GET", "/padded", pad=10, priority=(0, 200))
    c.wait(c.done(s1))
    body = body_for("/echo", 3000)
    s3, _ = c.request("POST", "/echo", body=body, extra=[("content-type", "application/octet-stream")], pad=5,
                      data_pads=[0, 200, None])
    c.wait(c.done(s3))
    s5, _ = c.request("GET", "/big-header", extra=[("x-client-big", big_value(20000, 11))], split=[6000, 6000])
    c.wait(c.done(s5))
    s7, _ = c.request("GET", "/reset")
    c.wait(c.done(s7))
    s9, _ = c.request("GET", "/large")
    c.wait(lambda: c.streams[s9].resp_body > 0)
    c.w.send([(RST_STREAM, 0, s9, struct.pack("!I", CANCEL))])
    c.streams[s9].outcome, c.streams[s9].rst_error = "reset_by_client", CANCEL
    c.wait(lambda: False, 0.3)                                  # frames in flight after the cancel
    s11, frames = c.request("GET", "/unknown", send=False)
    # an unknown frame on the open stream, between HEADERS (no END_STREAM) and an empty DATA END_STREAM
    hf = frames[0]
    c.w.send([(HEADERS, hf[1] & ~END_STREAM, hf[2], hf[3]), (0xFA, 0x00, s11, b"wiretally-client-ext-stream"),
              (DATA, END_STREAM, s11, b"")])
    c.wait(c.done(s11))
    c.w.send([(PRIORITY, 0, s11 + 2, struct.pack("!IB", s11, 15))])
    s13, _ = c.request("GET", "/trailers")
    c.wait(c.done(s13))
    s15, _ = c.request("GET", "/refuse")
    c.wait(c.done(s15))
    # three requests in one write: the server's GOAWAY names the first as the last stream it processes
    a, fa = c.request("GET", "/goaway", send=False)
    b, fb = c.request("GET", "/small", send=False)
    d, fd = c.request("GET", "/small?again", send=False)
    c.w.send(fa + fb + fd)
    c.wait(lambda: c.goaway is not None and c.done(a)())
    c.close()


def script_push(c):
    s1, _ = c.request("GET", "/push")
    c.wait(lambda: c.done(s1)() and all(s.resp_done for x, s in c.streams.items() if x % 2 == 0) and len(c.streams) >= 3)
    for path in ("/padded", "/big-header", "/ping"):
        s, _ = c.request("GET", path)
        c.wait(c.done(s))
    c.wait(lambda: False, 0.2)
    c.close()


def script_cancel(c):
    for after in (100_000, 40_000):
        s, _ = c.request("GET", "/cancel/blob.bin")
        c.wait(lambda: c.streams[s].resp_body >= after)
        c.w.send([(RST_STREAM, 0, s, struct.pack("!I", CANCEL))])
        c.streams[s].outcome, c.streams[s].rst_error = "reset_by_client", CANCEL
        c.wait(lambda: False, 0.5)                              # the DATA in flight after the cancel
    s, _ = c.request("GET", "/text.txt")
    c.wait(c.done(s))
    c.close()


def client_main(addr, port, transport, sni, cafile, keylog, logpath, script):
    sock = socket.create_connection((addr, int(port)), timeout=10)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    info = {"transport": transport, "client_port": sock.getsockname()[1], "server_port": int(port),
            "scheme": "https" if transport == "tls" else "http", "authority": "%s:%s" % (sni, port)}
    if transport == "tls":
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        ctx.load_verify_locations(cafile)
        ctx.set_alpn_protocols(["h2"])
        if keylog != "-":
            ctx.keylog_filename = keylog
        sock = ctx.wrap_socket(sock, server_hostname=sni)
        info["alpn"] = sock.selected_alpn_protocol()
    c = Client(sock, dict(info, conn=1), push=script == "push")
    {"odd": script_odd, "push": script_push, "cancel": script_cancel}[script](c)
    c.info.pop("scheme"); c.info.pop("authority")
    c.finish(logpath)


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "server":
        server_main(*sys.argv[2:10])
    elif mode == "client":
        client_main(*sys.argv[2:10])
    else:
        raise SystemExit(__doc__)
