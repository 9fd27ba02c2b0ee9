#!/usr/bin/env python3
"""HTTP/3 server and client for the QUIC bench capture (scripts/make-bench-capture --quic-only), on the
aioquic peer of scripts/lib/h3-peer.py (imported, unchanged: its ServerProtocol, ClientProtocol and
receive-buffer helper), run from the aioquic venv of scripts/lib/record-tools.sh. No qlog (a trace of
every packet of hundreds of MB would cost more than the traffic).

usage: h3-bench.py server --cert CERT --key KEY --log LOG.jsonl --ready FILE ADDR:PORT…
       h3-bench.py client --addr ADDR --port PORT --authority HOST[:PORT] --cafile CA --keylog KEYS
                          --log LOG.jsonl --mix-bytes B --large-bytes L --seed N
                          [--connections C] [--streams S]
       h3-bench.py size MIX_BYTES SEED   (prints the number of requests and bytes of a mix)

server: h3-peer's server (its routes and its per-connection JSON Lines log) plus the routes of an app's
  API, all deterministic, every response with content-type and content-length (the query string is
  ignored):
    GET /api/v1/items/ID     JSON of 100 B to 10 KB (log-uniform, fixed per ID)
    GET /api/v1/users/ID     JSON of 100 to 600 B
    GET /api/v1/feed/ID      JSON of 2 to 10 KB
    POST /upload/…           (h3-peer) reads the body, answers {"received": N}
    GET /bytes/N             (h3-peer) N bytes, cached here
client: request-dense traffic as apps send it. The mix (MIX_BYTES of response bodies, about) is shared
  out round-robin over C connections (default 4), each running S requests at once (default 16 streams
  in flight); per 100 requests, shuffled:
    60 GET /api/v1/items/ID (half with a query string)   12 GET /api/v1/users/ID
     8 GET /api/v1/feed/ID?since=…                        6 GET /api/status or /api/config
     6 GET /index.html (1,449 B)                          5 POST /upload/api/events (JSON of 200 B to 2 KB)
     3 GET /bytes/N (20 to 100 KB: images)
  and, on one more connection, large transfers one after another: GET /bytes/N of 1, 2, 4 and 8 MB
  (cycled) until LARGE_BYTES (none when LARGE_BYTES is under 1 MB). Connection-level flow control as a
  browser's (16 MB, 8 MB per stream). Every request must end with status 200 and every body byte the
  content-length announced, or the client exits 1. The log has one line per request (h3-peer's
  `request` record) and per connection (`connection`); the last stdout line is
  `requests=N connections=C body_bytes=B large_requests=K failed=F`.
"""
import argparse, asyncio, importlib.util, json, os, random, sys, time, zlib

_spec = importlib.util.spec_from_file_location("h3_peer", os.path.join(os.path.dirname(os.path.abspath(__file__)), "h3-peer.py"))
peer = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(peer)

from aioquic.asyncio import connect, serve  # noqa: E402
from aioquic.h3.connection import H3_ALPN, ErrorCode  # noqa: E402
from aioquic.quic.configuration import QuicConfiguration  # noqa: E402

LARGE_SIZES = [1_000_000, 2_000_000, 4_000_000, 8_000_000]
WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"]


def api_size(path):
    """Body size of an /api/v1/ resource (the query string is not part of it)."""
    kind = path.split("/")[3] if path.count("/") >= 4 else ""
    rng = random.Random(zlib.crc32(path.encode()))
    if kind == "items":
        return int(100 * 100 ** rng.random())  # 100 B .. 10 KB, log-uniform
    if kind == "users":
        return rng.randint(100, 600)
    if kind == "feed":
        return rng.randint(2000, 10000)
    return 0


def api_body(path):
    """Deterministic JSON of exactly api_size(path) bytes."""
    n = api_size(path)
    rng = random.Random(zlib.crc32(path.encode()) ^ 0x5A5A)
    obj = {"path": path, "entries": []}
    while True:
        e = {"id": rng.randint(0, 10**6), "name": rng.choice(WORDS), "score": round(rng.random(), 3)}
        if len(json.dumps(obj, separators=(",", ":"))) + len(json.dumps(e, separators=(",", ":"))) + 12 > n:
            break
        obj["entries"].append(e)
    obj["pad"] = ""
    k = n - len(json.dumps(obj, separators=(",", ":")))
    obj["pad"] = "x" * max(0, k)
    body = json.dumps(obj, separators=(",", ":")).encode()
    return body


# ---------------------------------------------------------------- server
_cache = {}


def cached(key, make):
    v = _cache.get(key)
    if v is None:
        v = _cache[key] = make()
    return v


class BenchServerProtocol(peer.ServerProtocol):
    def respond(self, sid):
        r = self.reqs[sid]
        if r["outcome"] in ("reset_by_client", "stopped_by_client"):
            return
        m, p = r["method"], (r["path"] or "").split("?", 1)[0]
        if m == "GET" and p.startswith("/api/v1/") and api_size(p) > 0:
            ctype, body = b"application/json", cached(p, lambda: api_body(p))
        elif m == "GET" and p.startswith("/bytes/") and p[7:].isdigit():
            ctype, body = b"application/octet-stream", cached(p, lambda: peer.det_bytes(int(p[7:])))
        else:
            return super().respond(sid)
        r["status"] = 200
        r["content_length"] = len(body)
        self.h3.send_headers(sid, [(b":status", b"200"), (b"server", b"h3-peer"), (b"content-type", ctype),
                                   (b"content-length", str(len(body)).encode())])
        self.h3.send_data(sid, body, end_stream=True)
        r["response_body_bytes"] += len(body)
        self.finish(r)
        self.transmit()


async def run_server(a):
    peer.Server.log = open(a.log, "a")
    cfg = QuicConfiguration(is_client=False, alpn_protocols=H3_ALPN)
    cfg.load_cert_chain(a.cert, a.key)

    def make_protocol(port):
        def create(*args, **kwargs):
            p = BenchServerProtocol(*args, **kwargs)
            p._quic._wt_server_port = port
            return p
        return create

    for ap in a.listen:
        host, port = ap.rsplit(":", 1)
        srv = await serve(host, int(port), configuration=cfg, create_protocol=make_protocol(int(port)))
        peer.big_receive_buffer(srv._transport.get_extra_info("socket"))
    with open(a.ready, "w") as f:
        f.write("ready\n")
    await asyncio.Event().wait()


# ---------------------------------------------------------------- client
def mix(mix_bytes, seed):
    """The request list: (method, path, body) until about mix_bytes of response bodies."""
    rng = random.Random(seed)

    def items():
        p = "/api/v1/items/%d" % rng.randint(0, 999)
        return ("GET", p + "?fields=all&locale=en" if rng.random() < 0.5 else p, b""), api_size(p)

    def users():
        p = "/api/v1/users/%d" % rng.randint(0, 499)
        return ("GET", p, b""), api_size(p)

    def feed():
        p = "/api/v1/feed/%d" % rng.randint(0, 49)
        return ("GET", "%s?since=%d" % (p, rng.randint(10**9, 2 * 10**9)), b""), api_size(p)

    def small():
        p = rng.choice(["/api/status", "/api/config"])
        return ("GET", p, b""), len(peer.STATUS if p == "/api/status" else peer.CONFIG)

    def index():
        return ("GET", "/index.html", b""), len(peer.INDEX)

    def post():
        n = rng.randint(200, 2000)
        body = json.dumps({"events": [{"t": rng.randint(0, 10**9), "kind": rng.choice(WORDS)}
                                      for _ in range(n // 40)]}).encode()
        return ("POST", "/upload/api/events", body), 20

    def image():
        n = rng.randint(20_000, 100_000)
        return ("GET", "/bytes/%d" % n, b""), n

    block = [items] * 60 + [users] * 12 + [feed] * 8 + [small] * 6 + [index] * 6 + [post] * 5 + [image] * 3
    out, total = [], 0
    while total < mix_bytes:
        order = block[:]
        rng.shuffle(order)
        for make in order:
            req, n = make()
            out.append(req)
            total += n
    return out, total


def large_list(large_bytes):
    out, total, i = [], 0, 0
    while large_bytes >= 1_000_000 and total + LARGE_SIZES[i % 4] // 2 < large_bytes:
        out.append(("GET", "/bytes/%d" % LARGE_SIZES[i % 4], b""))
        total += LARGE_SIZES[i % 4]
        i += 1
    return out, total


class Counts:
    requests = 0
    failed = 0
    body_bytes = 0
    large = 0


async def bench_connection(a, conn, reqs, streams, counts):
    cfg = QuicConfiguration(is_client=True, alpn_protocols=H3_ALPN, server_name=a.sni,
                            secrets_log_file=a.keylog_file)
    cfg.load_verify_locations(a.cafile)
    cfg.max_data = 16 << 20
    cfg.max_stream_data = 8 << 20
    start = peer.now()
    async with connect(a.addr, a.port, configuration=cfg, create_protocol=peer.ClientProtocol) as c:
        c.authority = a.authority
        peer.big_receive_buffer(c._transport.get_extra_info("socket"))
        queue = list(reversed(reqs))

        async def worker():
            while queue:
                method, path, body = queue.pop()
                await c.request(conn, method, path, body)

        await asyncio.gather(*(worker() for _ in range(min(streams, len(reqs)))))
        await asyncio.sleep(0.1)  # the last ACKs
        q = c._quic
        lport = c._transport.get_extra_info("sockname")[1]
        odcid = q.original_destination_connection_id.hex()
        hs = c.handshake
        c.close(error_code=ErrorCode.H3_NO_ERROR)
        await c.wait_closed()
    for sid in sorted(c.reqs):
        r = c.reqs[sid]
        r.update(odcid=odcid, local_port=lport, server_port=a.port)
        ok = (r["status"] == 200 and r["outcome"] == "complete" and r["content_length"] is not None
              and r["response_body_bytes"] == r["content_length"])
        counts.requests += 1
        counts.failed += 0 if ok else 1
        counts.body_bytes += r["response_body_bytes"]
        if not ok:
            print("h3-bench client: request failed: %s" % json.dumps(r), file=sys.stderr)
        peer.jdump(a.log_file, r)
    peer.jdump(a.log_file, {"record": "connection", "side": "client", "conn": conn, "odcid": odcid,
                            "version": peer.hexv(q._version), "alpn": hs.alpn_protocol if hs else None,
                            "local_port": lport, "server_port": a.port, "requests": len(c.reqs),
                            "close_error_code": q._close_event.error_code if q._close_event else None,
                            "start": start, "end": peer.now()})
    if len(c.reqs) != len(reqs):
        print("h3-bench client: connection %d made %d requests of %d" % (conn, len(c.reqs), len(reqs)), file=sys.stderr)
        counts.failed += abs(len(reqs) - len(c.reqs))


async def run_client(a):
    a.keylog_file = open(a.keylog, "a")
    a.log_file = open(a.log, "a")
    a.sni = a.authority.split(":")[0]
    reqs, _ = mix(a.mix_bytes, a.seed)
    per = [reqs[i::a.connections] for i in range(a.connections)]
    large, _ = large_list(a.large_bytes)
    counts = Counts()
    jobs = [bench_connection(a, i, r, a.streams, counts) for i, r in enumerate(per) if r]
    if large:
        counts.large = len(large)
        jobs.append(bench_connection(a, len(jobs), large, 1, counts))
    await asyncio.gather(*jobs)
    print("requests=%d connections=%d body_bytes=%d large_requests=%d failed=%d"
          % (counts.requests, len(jobs), counts.body_bytes, counts.large, counts.failed))
    return 1 if counts.failed else 0


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="mode", required=True)
    s = sub.add_parser("server")
    s.add_argument("--cert", required=True)
    s.add_argument("--key", required=True)
    s.add_argument("--log", required=True)
    s.add_argument("--ready", required=True)
    s.add_argument("listen", nargs="+")
    c = sub.add_parser("client")
    c.add_argument("--addr", required=True)
    c.add_argument("--port", type=int, required=True)
    c.add_argument("--authority", required=True)
    c.add_argument("--cafile", required=True)
    c.add_argument("--keylog", required=True)
    c.add_argument("--log", required=True)
    c.add_argument("--mix-bytes", type=int, required=True)
    c.add_argument("--large-bytes", type=int, default=0)
    c.add_argument("--seed", type=int, default=1616)
    c.add_argument("--connections", type=int, default=4)
    c.add_argument("--streams", type=int, default=16)
    z = sub.add_parser("size")
    z.add_argument("mix_bytes", type=int)
    z.add_argument("seed", type=int)
    a = ap.parse_args()
    if a.mode == "size":
        reqs, total = mix(a.mix_bytes, a.seed)
        print(len(reqs), total)
    elif a.mode == "server":
        asyncio.run(run_server(a))
    else:
        sys.exit(asyncio.run(run_client(a)))


if __name__ == "__main__":
    main()
