#!/usr/bin/env python3
"""HTTP/3 server and client on aioquic (PyPI `aioquic`, pinned in scripts/lib/quic-requirements.txt) for
the `quic` scenario of scripts/record-captures: real QUIC (RFC 9000/9001, version 1 and version 2) and
HTTP/3 (RFC 9114, QPACK) from aioquic's `H3Connection` on `QuicConnectionProtocol`, `serve` and
`connect`, each side writing its own truth: a JSON Lines log and aioquic's qlog (`QuicFileLogger`, one
file per connection named after the original destination connection ID); the client also writes the
TLS key log (`QuicConfiguration.secrets_log_file`, NSS format) that decrypts the capture.

usage: h3-peer.py server --cert CERT --key KEY --log LOG.jsonl --qlog-dir DIR --ready FILE ADDR:PORT…
       h3-peer.py client --addr ADDR --port PORT --authority HOST[:PORT] --cafile CA --keylog KEYS
                         --log LOG.jsonl --qlog-dir DIR SCRIPT [--version 1|2|vn] [--max-datagram N]
  SCRIPT: sequential | concurrent | upload | cancel | resumption | lossy | versions

server: one UDP socket per ADDR:PORT (aioquic `serve`, ALPN h3, QUIC v1 and v2, session tickets kept in
  memory so that a client can resume — with 0-RTT: aioquic's tickets allow early data). Responses are
  generated (deterministic, no Date header), every one with content-type and content-length:
    GET|HEAD /index.html   HTML page (INDEX, 1,449 B)
    GET /api/status, /api/config   small JSON
    GET /bytes/N           N deterministic bytes (application/octet-stream)
    GET /slow/N            N bytes in 16 KiB DATA frames 20 ms apart (the `cancel` script stops it)
    POST /upload/…         reads the body, answers 200 JSON {"received": N}
    GET /nocontent         204, HEADERS with FIN only
    anything else          404 text
  A STOP_SENDING from the client makes aioquic reset the stream's sending side (RESET_STREAM with the
  same code); a RESET_STREAM from the client ends the request (no response).
client: one process runs all connections of its SCRIPT (see `SCRIPTS` below).

Both logs are JSON Lines, one object per line with `record` = "request" or "connection":
  request (client: when the request ends; server: when the connection ends): `side` client|server,
    `conn` (client: 0-based index of the connection in this run; server: counted since it started),
    `odcid` (hex: the client's original destination connection ID = the qlog file name = the server's
    trace), `local_port`/`client_port`, `server_port`, `stream_id`, `method`, `scheme`, `authority`,
    `path`, `status` (null: none received), `request_body_bytes` (bytes of the request body sent /
    received in DATA frames), `response_body_bytes` (response DATA payload received / sent),
    `content_length` (the response's content-length header, null if none), `start`/`end` (epoch
    seconds: request headers queued / last response byte or cancellation), `early_data` (client: the
    request was written before the handshake completed, i.e. in 0-RTT packets; server: its headers
    arrived before the handshake completed), `cancelled` (client: it cancelled the request), `outcome`
    (`complete`; client `stopped` = it sent STOP_SENDING and got the server's RESET_STREAM,
    `reset_stream` = it reset its request body (RESET_STREAM + STOP_SENDING); server
    `stopped_by_client`, `reset_by_client`, `incomplete`), `reset_error` (RESET_STREAM code received),
    `stop_error` (STOP_SENDING code sent / received).
  connection (when it ends): `side`, `conn`, `odcid`, `version` (hex, e.g. "0x00000001",
    "0x6b3343cf" = QUIC v2), `alpn`, `session_resumed`, `early_data_accepted`, `local_port` /
    `client_port`, `server_port`, `requests`, `key_updates` (client: key updates it started),
    `cid_changes` (client: times it switched to a new peer connection ID), `close_error_code`,
    `close_reason`, `qlog` (file name), `start`/`end`.

qlog: aioquic 1.x writes qlog 0.3 JSON (`transport:packet_sent|packet_received|packet_dropped`,
`transport:datagrams_sent|datagrams_received`, `recovery:packet_lost`, `http:frame_created|
frame_parsed|stream_type_set`, …). This script adds one event of its own: aioquic logs the packets a
flush built (`packet_sent`) before the datagrams that carry them (`datagrams_sent`) without saying
which packet went into which datagram, so a hook on QuicPacketBuilder records, per flush, the number of
packets in each datagram as `wiretally:datagrams_built` {"packets_per_datagram": [...]}, logged just
before that flush's `packet_sent` events (scripts/lib/quic-truth.py reads it).
"""
import argparse, asyncio, json, os, random, socket, sys, time

from aioquic.asyncio import QuicConnectionProtocol, connect, serve
from aioquic.h3.connection import H3_ALPN, H3Connection, ErrorCode
from aioquic.h3.events import DataReceived, HeadersReceived
from aioquic.quic import events as qe
from aioquic.quic.configuration import QuicConfiguration
from aioquic.quic.logger import QuicFileLogger
from aioquic.quic.packet import QuicProtocolVersion
from aioquic.quic import packet_builder as _pb

H3_REQUEST_CANCELLED = int(ErrorCode.H3_REQUEST_CANCELLED)  # 0x10c

# ---------------------------------------------------------------- datagram grouping hook (see above)
_orig_flush_current = _pb.QuicPacketBuilder._flush_current_datagram
_orig_flush = _pb.QuicPacketBuilder.flush


def _flush_current_datagram(self):
    before = len(self._datagrams)
    _orig_flush_current(self)
    if len(self._datagrams) > before:
        groups = self.__dict__.setdefault("_wt_groups", [])
        mark = sum(groups)
        groups.append(len(self._packets) - mark)


def _flush(self):
    datagrams, packets = _orig_flush(self)
    groups = self.__dict__.pop("_wt_groups", [])
    if datagrams and self._quic_logger is not None:
        assert len(groups) == len(datagrams) and sum(groups) == len(packets), (groups, len(datagrams), len(packets))
        self._quic_logger.log_event(category="wiretally", event="datagrams_built",
                                    data={"packets_per_datagram": groups})
    return datagrams, packets


_pb.QuicPacketBuilder._flush_current_datagram = _flush_current_datagram
_pb.QuicPacketBuilder.flush = _flush

# ---------------------------------------------------------------- content
INDEX = ("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>wiretally HTTP/3</title>\n"
         "<link rel=\"stylesheet\" href=\"/style.css\">\n</head>\n<body>\n<h1>wiretally over HTTP/3</h1>\n"
         + "".join("<p>Paragraph %d: QUIC carries this page in STREAM frames on a bidirectional stream; "
                   "HTTP/3 frames it as HEADERS and DATA.</p>\n" % i for i in range(10))
         + "</body>\n</html>\n").encode()
STATUS = json.dumps({"status": "ok", "server": "h3-peer", "protocol": "h3"}).encode()
CONFIG = json.dumps({"features": ["streams", "qpack", "0rtt", "v2"], "limits": {"max_streams": 128,
                     "max_data": 1048576}, "region": "wt-test"}).encode()


def det_bytes(n, seed=None):
    return random.Random(n if seed is None else seed).randbytes(n)


def now():
    return round(time.time(), 6)


def jdump(f, obj):
    f.write(json.dumps(obj, sort_keys=False) + "\n")
    f.flush()


def hexv(v):
    return "0x%08x" % v


def big_receive_buffer(sock):
    """4 MiB UDP receive buffer (SO_RCVBUFFORCE: root, above net.core.rmem_max). With the default 208 KiB
    the python server falls behind a 1 MB upload and its kernel drops ~90 of ~810 datagrams
    (UdpRcvbufErrors): loss belongs to quic-lossy only."""
    try:
        sock.setsockopt(socket.SOL_SOCKET, getattr(socket, "SO_RCVBUFFORCE", 33), 4 << 20)
    except OSError:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)


# ---------------------------------------------------------------- server
class Server:
    conn_counter = 0
    tickets = {}
    log = None


class ServerProtocol(QuicConnectionProtocol):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.h3 = H3Connection(self._quic)
        self.conn = Server.conn_counter
        Server.conn_counter += 1
        self.reqs = {}
        self.handshake = None
        self.start = now()
        self.closed = False

    def req(self, sid):
        return self.reqs.setdefault(sid, {"record": "request", "side": "server", "conn": self.conn,
                                          "stream_id": sid, "method": None, "scheme": None, "authority": None,
                                          "path": None, "status": None, "request_body_bytes": 0,
                                          "response_body_bytes": 0, "content_length": None, "start": now(),
                                          "end": None, "early_data": self.handshake is None, "cancelled": False,
                                          "outcome": "incomplete", "reset_error": None, "stop_error": None,
                                          "_fin": False, "_done": False})

    def quic_event_received(self, ev):
        if isinstance(ev, qe.HandshakeCompleted):
            self.handshake = ev
        elif isinstance(ev, qe.StopSendingReceived):
            r = self.reqs.get(ev.stream_id)
            if r is not None:
                r["stop_error"] = ev.error_code
                if r["outcome"] != "reset_by_client":
                    r["outcome"] = "stopped_by_client"
                r["end"] = r["end"] or now()
        elif isinstance(ev, qe.StreamReset):
            r = self.reqs.get(ev.stream_id)
            if r is not None:
                r["reset_error"] = ev.error_code
                r["outcome"] = "reset_by_client"  # also when a STOP_SENDING came first
                r["end"] = r["end"] or now()
        elif isinstance(ev, qe.ConnectionTerminated):
            self.write_log(ev)
        for hev in self.h3.handle_event(ev):
            self.http_event(hev)

    def http_event(self, ev):
        if isinstance(ev, HeadersReceived):
            r = self.req(ev.stream_id)
            h = dict(ev.headers)
            r["method"] = h.get(b":method", b"").decode()
            r["scheme"] = h.get(b":scheme", b"").decode()
            r["authority"] = h.get(b":authority", b"").decode()
            r["path"] = h.get(b":path", b"").decode()
            if ev.stream_ended:
                self.respond(ev.stream_id)
        elif isinstance(ev, DataReceived):
            r = self.req(ev.stream_id)
            r["request_body_bytes"] += len(ev.data)
            if ev.stream_ended:
                self.respond(ev.stream_id)

    def respond(self, sid):
        r = self.reqs[sid]
        if r["outcome"] in ("reset_by_client", "stopped_by_client"):
            return
        m, p = r["method"], r["path"]
        ctype, body, status, slow = b"text/plain", None, 200, False
        if p == "/index.html" and m in ("GET", "HEAD"):
            ctype, body = b"text/html; charset=utf-8", INDEX
        elif p == "/api/status":
            ctype, body = b"application/json", STATUS
        elif p == "/api/config":
            ctype, body = b"application/json", CONFIG
        elif p.startswith("/bytes/") and p[7:].isdigit():
            ctype, body = b"application/octet-stream", det_bytes(int(p[7:]))
        elif p.startswith("/slow/") and p[6:].isdigit():
            ctype, body, slow = b"application/octet-stream", det_bytes(int(p[6:])), True
        elif p.startswith("/upload/") and m == "POST":
            ctype, body = b"application/json", json.dumps({"received": r["request_body_bytes"]}).encode()
        elif p == "/nocontent":
            status, body = 204, b""
        else:
            status, body = 404, b"not found: %s\n" % p.encode()
        headers = [(b":status", str(status).encode()), (b"server", b"h3-peer"), (b"content-type", ctype)]
        if status != 204:
            headers.append((b"content-length", str(len(body)).encode()))
            r["content_length"] = len(body)
        else:
            headers = [(b":status", b"204"), (b"server", b"h3-peer")]
        r["status"] = status
        if m == "HEAD" or status == 204:
            self.h3.send_headers(sid, headers, end_stream=True)
            self.finish(r)
            self.transmit()
        elif slow:
            self.h3.send_headers(sid, headers)
            self.transmit()
            asyncio.ensure_future(self.send_slow(r, body))
        else:
            self.h3.send_headers(sid, headers)
            self.h3.send_data(sid, body, end_stream=True)
            r["response_body_bytes"] += len(body)
            self.finish(r)
            self.transmit()

    def finish(self, r):
        r["end"] = now()
        r["outcome"] = "complete"

    async def send_slow(self, r, body):
        chunk = 16384
        for off in range(0, len(body), chunk):
            if r["outcome"] == "stopped_by_client" or self.closed:
                return
            part = body[off:off + chunk]
            last = off + chunk >= len(body)
            try:
                self.h3.send_data(r["stream_id"], part, end_stream=last)
            except Exception as e:  # the stream was reset in between
                print("h3-peer server: slow send stopped: %r" % e, file=sys.stderr)
                return
            r["response_body_bytes"] += len(part)
            self.transmit()
            if last:
                self.finish(r)
                return
            await asyncio.sleep(0.02)

    def write_log(self, ev):
        if self.closed:
            return
        self.closed = True
        q = self._quic
        odcid = q.original_destination_connection_id.hex()
        addr = q._network_paths[0].addr if q._network_paths else ("", 0)
        sport = q._wt_server_port
        for sid in sorted(self.reqs):
            r = self.reqs[sid]
            out = {k: v for k, v in r.items() if not k.startswith("_")}
            out.update(odcid=odcid, client_port=addr[1], server_port=sport)
            jdump(Server.log, out)
        hs = self.handshake
        jdump(Server.log, {"record": "connection", "side": "server", "conn": self.conn, "odcid": odcid,
                           "version": hexv(q._version), "alpn": hs.alpn_protocol if hs else None,
                           "session_resumed": hs.session_resumed if hs else None,
                           "early_data_accepted": hs.early_data_accepted if hs else None,
                           "client_addr": addr[0].replace("::ffff:", ""), "client_port": addr[1],
                           "server_port": sport, "requests": len(self.reqs), "close_error_code": ev.error_code,
                           "close_reason": ev.reason_phrase, "qlog": odcid + ".qlog", "start": self.start,
                           "end": now()})


async def run_server(a):
    Server.log = open(a.log, "a")
    cfg = QuicConfiguration(is_client=False, alpn_protocols=H3_ALPN,
                            quic_logger=QuicFileLogger(a.qlog_dir))
    cfg.load_cert_chain(a.cert, a.key)

    def make_protocol(port):
        def create(*args, **kwargs):
            p = ServerProtocol(*args, **kwargs)
            p._quic._wt_server_port = port
            return p
        return create

    for ap in a.listen:
        host, port = ap.rsplit(":", 1)
        srv = await serve(host, int(port), configuration=cfg, create_protocol=make_protocol(int(port)),
                          session_ticket_handler=lambda t: Server.tickets.__setitem__(t.ticket, t),
                          session_ticket_fetcher=lambda label: Server.tickets.get(label))
        big_receive_buffer(srv._transport.get_extra_info("socket"))
    with open(a.ready, "w") as f:
        f.write("ready\n")
    await asyncio.Event().wait()


# ---------------------------------------------------------------- client
class ClientH3(H3Connection):
    """aioquic 1.7.2 checks every response's content-length against its DATA, also a HEAD response's (RFC
    9110 §9.3.2: the length a GET would have, no body), and closes the connection with H3_MESSAGE_ERROR
    "content-length does not match data size": the client skips the check on its HEAD streams."""

    head_streams = None

    def _check_content_length(self, stream):
        if self.head_streams and stream.stream_id in self.head_streams:
            return
        super()._check_content_length(stream)


class ClientProtocol(QuicConnectionProtocol):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.h3 = ClientH3(self._quic)
        self.h3.head_streams = set()
        self.reqs = {}
        self.waiters = {}
        self.handshake = None
        self.first_bytes = {}
        self.key_updates = 0
        self.cid_changes = 0

    def quic_event_received(self, ev):
        if isinstance(ev, qe.HandshakeCompleted):
            self.handshake = ev
        elif isinstance(ev, qe.StreamReset):
            r = self.reqs.get(ev.stream_id)
            if r is not None:
                r["reset_error"] = ev.error_code
                self.done(ev.stream_id)
        for hev in self.h3.handle_event(ev):
            r = self.reqs.get(hev.stream_id)
            if r is None:
                continue
            if isinstance(hev, HeadersReceived):
                h = dict(hev.headers)
                if b":status" in h:
                    r["status"] = int(h[b":status"])
                if b"content-length" in h:
                    r["content_length"] = int(h[b"content-length"])
            elif isinstance(hev, DataReceived):
                r["response_body_bytes"] += len(hev.data)
                w = self.first_bytes.get(hev.stream_id)
                if w is not None and r["response_body_bytes"] >= w[0] and not w[1].done():
                    w[1].set_result(None)
            if hev.stream_ended:
                self.done(hev.stream_id)

    def done(self, sid):
        r = self.reqs[sid]
        if r["end"] is None:
            r["end"] = now()
        if r["outcome"] == "incomplete":
            r["outcome"] = "complete"
        w = self.waiters.get(sid)
        if w is not None and not w.done():
            w.set_result(r)

    def start_request(self, conn, method, path, body=b"", authority=None, end_stream=True):
        sid = self._quic.get_next_available_stream_id()
        r = {"record": "request", "side": "client", "conn": conn, "odcid": None, "local_port": None,
             "server_port": None, "stream_id": sid, "method": method, "scheme": "https",
             "authority": authority or self.authority, "path": path, "status": None,
             "request_body_bytes": 0, "response_body_bytes": 0, "content_length": None, "start": now(),
             "end": None, "early_data": self.handshake is None, "cancelled": False,
             "outcome": "incomplete", "reset_error": None, "stop_error": None}
        self.reqs[sid] = r
        self.waiters[sid] = self._loop.create_future()
        if method == "HEAD":
            self.h3.head_streams.add(sid)
        headers = [(b":method", method.encode()), (b":scheme", b"https"), (b":authority", r["authority"].encode()),
                   (b":path", path.encode()), (b"user-agent", b"wiretally-h3-peer aioquic")]
        if method == "POST":
            headers += [(b"content-type", b"application/octet-stream" if len(body) > 4096 else b"application/json"),
                        (b"content-length", str(len(body)).encode())]
        self.h3.send_headers(sid, headers, end_stream=(end_stream and not body))
        if body:
            self.h3.send_data(sid, body, end_stream=end_stream)
            r["request_body_bytes"] = len(body)
        self.transmit()
        return sid

    async def request(self, conn, method, path, body=b""):
        sid = self.start_request(conn, method, path, body)
        return await asyncio.shield(self.waiters[sid])

    async def wait_bytes(self, sid, n):
        w = (n, self._loop.create_future())
        self.first_bytes[sid] = w
        await w[1]

    def key_update(self):
        self._quic.request_key_update()
        self.key_updates += 1
        self.transmit()

    def change_cid(self):
        self._quic.change_connection_id()
        self.cid_changes += 1
        self.transmit()


UPLOAD_SMALL = json.dumps({"name": "wiretally", "kind": "http3-upload", "items": [
    {"id": i, "label": "item %d" % i, "tags": ["quic", "h3", "qpack"]} for i in range(12)]}).encode()


async def scr_sequential(c, conn):
    await c.request(conn, "GET", "/api/status")
    await c.request(conn, "GET", "/index.html")
    await c.request(conn, "HEAD", "/index.html")
    await c.request(conn, "GET", "/api/config")
    # a key update and a switch to a new server connection ID between requests
    c.key_update()
    await asyncio.sleep(0.05)
    c.change_cid()
    await c.request(conn, "GET", "/bytes/102400")
    await c.request(conn, "POST", "/upload/small", UPLOAD_SMALL)
    await c.request(conn, "GET", "/missing.html")
    await c.request(conn, "GET", "/nocontent")


async def scr_concurrent(c, conn):
    paths = []
    for i in range(20):
        k = i % 5
        paths.append(["/api/status", "/api/config", "/index.html", "/bytes/%d" % (1000 * (i + 1)),
                      "/bytes/%d" % (20000 + 997 * i)][k])
    await asyncio.gather(*(c.request(conn, "GET", p) for p in paths))


async def scr_upload(c, conn):
    await c.request(conn, "POST", "/upload/big", det_bytes(1_000_000, seed=1))
    await c.request(conn, "GET", "/api/status")


async def scr_cancel(c, conn):
    # (1) a slow 256 KiB download: after 40,000 body bytes the client sends STOP_SENDING
    #     (H3_REQUEST_CANCELLED); aioquic's server answers with RESET_STREAM
    sid = c.start_request(conn, "GET", "/slow/262144")
    await c.wait_bytes(sid, 40000)
    r = c.reqs[sid]
    c._quic.stop_stream(sid, H3_REQUEST_CANCELLED)
    r.update(cancelled=True, outcome="stopped", stop_error=H3_REQUEST_CANCELLED)
    c.transmit()
    await asyncio.wait_for(asyncio.shield(c.waiters[sid]), 5)
    # (2) an upload the client abandons: 48,000 of 200,000 announced body bytes, then RESET_STREAM
    #     and STOP_SENDING (both H3_REQUEST_CANCELLED)
    body = det_bytes(200_000, seed=2)
    sid = c._quic.get_next_available_stream_id()
    r = {"record": "request", "side": "client", "conn": conn, "odcid": None, "local_port": None,
         "server_port": None, "stream_id": sid, "method": "POST", "scheme": "https", "authority": c.authority,
         "path": "/upload/cancelled", "status": None, "request_body_bytes": 0, "response_body_bytes": 0,
         "content_length": None, "start": now(), "end": None, "early_data": False, "cancelled": True,
         "outcome": "reset_stream", "reset_error": None, "stop_error": H3_REQUEST_CANCELLED}
    c.reqs[sid] = r
    c.waiters[sid] = c._loop.create_future()
    c.h3.send_headers(sid, [(b":method", b"POST"), (b":scheme", b"https"), (b":authority", c.authority.encode()),
                            (b":path", b"/upload/cancelled"), (b"user-agent", b"wiretally-h3-peer aioquic"),
                            (b"content-type", b"application/octet-stream"), (b"content-length", b"200000")])
    c.h3.send_data(sid, body[:48000], end_stream=False)
    r["request_body_bytes"] = 48000
    c.transmit()
    await asyncio.sleep(0.1)
    c._quic.reset_stream(sid, H3_REQUEST_CANCELLED)
    c._quic.stop_stream(sid, H3_REQUEST_CANCELLED)
    c.transmit()
    r["end"] = now()
    await asyncio.sleep(0.1)
    # (3) one more request on the same connection
    await c.request(conn, "GET", "/api/status")


async def scr_lossy(c, conn):
    await c.request(conn, "GET", "/bytes/300000")
    await asyncio.gather(*(c.request(conn, "GET", p) for p in
                           ["/index.html", "/api/status", "/api/config", "/bytes/5000", "/bytes/40000",
                            "/nocontent"]))
    await c.request(conn, "POST", "/upload/lossy", det_bytes(100_000, seed=3))


SCRIPTS = {
    # quic-sequential: one connection, eight requests one after another (GET JSON, GET HTML, HEAD, GET
    # JSON, then a client key update and a switch to a new connection ID, GET 102,400 B, POST 816 B JSON,
    # GET 404, GET 204)
    "sequential": [scr_sequential],
    # quic-concurrent: one connection, 20 GETs started at once
    "concurrent": [scr_concurrent],
    # quic-upload: one connection, POST 1,000,000 B then a GET
    "upload": [scr_upload],
    # quic-cancel: one connection: STOP_SENDING on a slow download, RESET_STREAM of an upload, then a GET
    "cancel": [scr_cancel],
    # quic-lossy: one connection through the impairment bridge: GET 300,000 B, six GETs at once, POST 100,000 B
    "lossy": [scr_lossy],
}


async def one_connection(a, conn, script, ticket=None, early=None, version=None, out=None):
    """Runs one connection; returns the session ticket the server sent (if any)."""
    cfg = QuicConfiguration(is_client=True, alpn_protocols=H3_ALPN, server_name=a.sni,
                            quic_logger=QuicFileLogger(a.qlog_dir), secrets_log_file=a.keylog_file)
    cfg.load_verify_locations(a.cafile)
    if a.max_datagram:
        cfg.max_datagram_size = a.max_datagram
    if version is not None:
        cfg.supported_versions = version
    if ticket is not None:
        cfg.session_ticket = ticket
    tickets = []
    start = now()
    async with connect(a.addr, a.port, configuration=cfg, create_protocol=ClientProtocol,
                       session_ticket_handler=tickets.append, wait_connected=(early is None)) as c:
        c.authority = a.authority
        big_receive_buffer(c._transport.get_extra_info("socket"))
        if early is not None:
            # 0-RTT: the request is written before the handshake completes
            sids = [c.start_request(conn, m, p) for m, p in early]
            await c.wait_connected()
            for sid in sids:
                await asyncio.shield(c.waiters[sid])
        await script(c, conn)
        # let the server's NewSessionTicket and the last ACKs arrive before closing
        await asyncio.sleep(0.1)
        q = c._quic
        lport = c._transport.get_extra_info("sockname")[1]
        odcid = q.original_destination_connection_id.hex()
        hs = c.handshake
        c.close(error_code=ErrorCode.H3_NO_ERROR)
        await c.wait_closed()
    for sid in sorted(c.reqs):
        r = c.reqs[sid]
        r.update(odcid=odcid, local_port=lport, server_port=a.port)
        jdump(a.log_file, r)
    jdump(a.log_file, {"record": "connection", "side": "client", "conn": conn, "odcid": odcid,
                       "version": hexv(q._version), "alpn": hs.alpn_protocol if hs else None,
                       "session_resumed": hs.session_resumed if hs else None,
                       "early_data_accepted": hs.early_data_accepted if hs else None,
                       "local_port": lport, "server_port": a.port, "requests": len(c.reqs),
                       "key_updates": c.key_updates, "cid_changes": c.cid_changes,
                       "close_error_code": q._close_event.error_code if q._close_event else None,
                       "close_reason": q._close_event.reason_phrase if q._close_event else None,
                       "qlog": odcid + ".qlog", "start": start, "end": now()})
    return tickets[-1] if tickets else None


async def run_client(a):
    a.keylog_file = open(a.keylog, "a", buffering=1)  # a line per secret as it is derived, as browsers write it
    a.log_file = open(a.log, "a")
    a.sni = a.authority.split(":")[0]
    if a.script == "resumption":
        # connection 0: full handshake, GET /index.html, keep the session ticket; connection 1: resumes
        # with it and sends GET /api/status and GET /api/config as 0-RTT (before the handshake completes),
        # then GET /index.html in 1-RTT
        async def first(c, conn):
            await c.request(conn, "GET", "/index.html")

        async def second(c, conn):
            await c.request(conn, "GET", "/index.html")
        ticket = await one_connection(a, 0, first)
        if ticket is None:
            raise SystemExit("h3-peer client: no session ticket received")
        await one_connection(a, 1, second, ticket=ticket, early=[("GET", "/api/status"), ("GET", "/api/config")])
    elif a.script == "versions":
        # connection 0: QUIC version 2 (RFC 9369) from the first Initial; connection 1: the client offers a
        # reserved version (0x1a2a3a4a) first, the server answers with Version Negotiation, the client
        # starts again with version 1
        async def small(c, conn):
            await c.request(conn, "GET", "/api/status")
            await c.request(conn, "GET", "/bytes/20000")
        await one_connection(a, 0, small, version=[QuicProtocolVersion.VERSION_2])
        await one_connection(a, 1, small, version=[0x1A2A3A4A, QuicProtocolVersion.VERSION_1])
    else:
        for i, s in enumerate(SCRIPTS[a.script]):
            await one_connection(a, i, s)


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="mode", required=True)
    s = sub.add_parser("server")
    s.add_argument("--cert", required=True)
    s.add_argument("--key", required=True)
    s.add_argument("--log", required=True)
    s.add_argument("--qlog-dir", required=True)
    s.add_argument("--ready", required=True)
    s.add_argument("listen", nargs="+")
    c = sub.add_parser("client")
    c.add_argument("--addr", required=True)
    c.add_argument("--port", type=int, required=True)
    c.add_argument("--authority", required=True)
    c.add_argument("--cafile", required=True)
    c.add_argument("--keylog", required=True)
    c.add_argument("--log", required=True)
    c.add_argument("--qlog-dir", required=True)
    c.add_argument("--max-datagram", type=int, default=0)
    c.add_argument("script", choices=sorted(SCRIPTS) + ["resumption", "versions"])
    a = ap.parse_args()
    os.makedirs(a.qlog_dir, exist_ok=True)
    asyncio.run(run_server(a) if a.mode == "server" else run_client(a))


if __name__ == "__main__":
    main()
