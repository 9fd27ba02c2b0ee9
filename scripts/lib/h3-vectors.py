#!/usr/bin/env python3
"""Writes the HTTP/3 and QPACK test fixtures of Tests/WireTallyTests/HTTP3/Fixtures from independent
implementations: pylsqpack 1.0.0 (ls-qpack) and aioquic 1.7.2's H3 code, the versions pinned in
scripts/lib/quic-requirements.txt.

Made once with:
    python3 -m venv ~/.cache/wiretally/quic-venv
    ~/.cache/wiretally/quic-venv/bin/pip install -r scripts/lib/quic-requirements.txt
    ~/.cache/wiretally/quic-venv/bin/python scripts/lib/h3-vectors.py Tests/WireTallyTests/HTTP3/Fixtures

qpack-vectors.json — cases, each: "settings" (the decoder's max table capacity and blocked streams),
"steps" (in order: {"encoder": hex} encoder-stream bytes, {"section": hex, "stream": id} a field
section) and "expected" (per section, in order: the header list pylsqpack's Decoder gave, or
"blocked_until_step": the step after which it decodes). Encoded by pylsqpack's Encoder and decoded by
pylsqpack's Decoder; "static-table" is a section of the 99 static indices built here and decoded by
pylsqpack (a check of the static table).

h3-streams.json — an aioquic H3Connection client and server wired back to back over a stub QUIC
connection that records send_stream_data: "chunks" in the order they were sent ({"stream", "from_client",
"hex", "fin"}), and "exchanges": per request stream its method, path, status and per direction the
bytes of HEADERS payloads, DATA payloads and frame headers (+ unknown frames), counted here by walking
the frames. A reserved (grease) frame is written into one request by hand (aioquic ignores it).
"""
import json
import sys

import pylsqpack
from aioquic.h3.connection import H3Connection
from aioquic.h3.events import DataReceived, HeadersReceived
from aioquic.quic.events import StreamDataReceived


def qpack_case(name, capacity, blocked, requests, feed_section_first=()):
    """Encodes `requests` (lists of (name, value)) on streams 0, 4, 8…; sections whose index is in
    `feed_section_first` are given to the decoder before their encoder bytes."""
    encoder = pylsqpack.Encoder()
    decoder = pylsqpack.Decoder(capacity, blocked)
    steps, expected = [], []
    settings_bytes = encoder.apply_settings(capacity, blocked)
    if settings_bytes:
        steps.append({"encoder": settings_bytes.hex()})
        decoder.feed_encoder(settings_bytes)
    for index, headers in enumerate(requests):
        stream = 4 * index
        enc, section = encoder.encode(stream, [(n.encode(), v.encode()) for n, v in headers])
        order = ["section", "encoder"] if index in feed_section_first else ["encoder", "section"]
        for what in order:
            if what == "encoder" and enc:
                steps.append({"encoder": enc.hex()})
                for unblocked in decoder.feed_encoder(enc):
                    _, decoded = decoder.resume_header(unblocked)
                    entry = next(e for e in expected if e["stream"] == unblocked and "headers" not in e)
                    entry["headers"] = [[n.decode(), v.decode()] for n, v in decoded]
                    entry["blocked_until_step"] = len(steps) - 1
            if what == "section":
                steps.append({"section": section.hex(), "stream": stream})
                entry = {"stream": stream}
                expected.append(entry)
                try:
                    _, decoded = decoder.feed_header(stream, section)
                    entry["headers"] = [[n.decode(), v.decode()] for n, v in decoded]
                except pylsqpack.StreamBlocked:
                    pass
    return {"name": name, "settings": {"capacity": capacity, "blocked": blocked}, "steps": steps, "expected": expected}


def static_table_case():
    section = bytearray(b"\x00\x00")
    for index in range(99):
        # Indexed field line, static (0b11xxxxxx, 6-bit prefix).
        if index < 63:
            section.append(0xC0 | index)
        else:
            section += bytes([0xFF, index - 63])
    decoder = pylsqpack.Decoder(0, 0)
    _, decoded = decoder.feed_header(0, bytes(section))
    return {"name": "static-table", "settings": {"capacity": 0, "blocked": 0},
            "steps": [{"section": section.hex(), "stream": 0}],
            "expected": [{"stream": 0, "headers": [[n.decode(), v.decode()] for n, v in decoded]}]}


def qpack_vectors():
    browser = [(":method", "GET"), (":scheme", "https"), (":authority", "www.wt.test"), (":path", "/index.html"),
               ("user-agent", "wiretally-test/1.0 (X11; Linux x86_64)"), ("accept", "text/html,application/xhtml+xml"),
               ("accept-language", "en-GB,en;q=0.9"), ("x-custom-token", "a7f3c9e1b2d4f6a8c0e2")]
    second = browser[:3] + [(":path", "/api/status"), browser[4], ("x-custom-token", "a7f3c9e1b2d4f6a8c0e2"),
                            ("cookie", "session=0123456789abcdef; theme=dark")]
    third = browser[:3] + [(":path", "/api/config"), browser[4], ("cookie", "session=0123456789abcdef; theme=dark"),
                           ("x-request-id", "77e0c1f2-5d1a-4b8e-9f00-1234567890ab")]
    response = [(":status", "200"), ("server", "aioquic/1.7.2"), ("date", "Mon, 06 Jun 2022 12:00:00 GMT"),
                ("content-type", "text/html; charset=utf-8"), ("content-length", "1449"), ("etag", '"62a1b2c3-5a9"')]
    cases = [
        static_table_case(),
        qpack_case("dynamic-inserts", 4096, 16, [browser, second, third]),
        qpack_case("blocked-section-first", 4096, 16, [browser, second], feed_section_first=(0, 1)),
        qpack_case("small-capacity-eviction", 160, 16, [browser, second, third, browser]),
        qpack_case("responses", 4096, 16, [response, response[:1] + [("server", "aioquic/1.7.2"), ("content-length", "57")]]),
        qpack_case("no-dynamic-table", 0, 0, [browser, response]),
    ]
    return {"generator": "scripts/lib/h3-vectors.py", "pylsqpack": "1.0.0", "cases": cases}


class StubQuic:
    """What H3Connection needs of a QuicConnection: it records the stream data sent."""

    class Configuration:
        def __init__(self, is_client):
            self.is_client = is_client
            self.max_datagram_frame_size = None

    def __init__(self, is_client, chunks):
        self.configuration = StubQuic.Configuration(is_client)
        self._quic_logger = None
        self.is_client = is_client
        self.chunks = chunks
        self.next_bidi = 0 if is_client else 1
        self.next_uni = 2 if is_client else 3
        self.peer = None

    def get_next_available_stream_id(self, is_unidirectional=False):
        if is_unidirectional:
            stream_id, self.next_uni = self.next_uni, self.next_uni + 4
        else:
            stream_id, self.next_bidi = self.next_bidi, self.next_bidi + 4
        return stream_id

    def send_stream_data(self, stream_id, data, end_stream=False):
        self.chunks.append({"stream": stream_id, "from_client": self.is_client, "hex": bytes(data).hex(), "fin": end_stream})
        self.peer.pending.append(StreamDataReceived(data=bytes(data), end_stream=end_stream, stream_id=stream_id))


def walk_frames(data):
    """Sums one request-stream direction by frame type: HEADERS and DATA payloads, frame headers and unknown frames."""
    def varint(pos):
        length = 1 << (data[pos] >> 6)
        value = data[pos] & 0x3F
        for b in data[pos + 1:pos + length]:
            value = value << 8 | b
        return value, pos + length
    totals = {"headers": 0, "body": 0, "framing": 0, "frames": 0, "header_blocks": 0, "unknown_frames": 0}
    pos = 0
    while pos < len(data):
        start = pos
        ftype, pos = varint(pos)
        length, pos = varint(pos)
        totals["frames"] += 1
        totals["framing"] += pos - start
        if ftype == 0:
            totals["body"] += length
        elif ftype == 1:
            totals["headers"] += length
            totals["header_blocks"] += 1
        else:
            totals["framing"] += length
            totals["unknown_frames"] += 1
        pos += length
    return totals


def h3_streams():
    chunks = []
    client_quic, server_quic = StubQuic(True, chunks), StubQuic(False, chunks)
    client_quic.pending, server_quic.pending = [], []
    client_quic.peer, server_quic.peer = server_quic, client_quic
    client, server = H3Connection(client_quic), H3Connection(server_quic)

    def pump():
        events = {"client": [], "server": []}
        while client_quic.pending or server_quic.pending:
            for quic, conn, side in ((server_quic, server, "client"), (client_quic, client, "server")):
                # quic.pending holds what the *peer* sent to this side.
                while quic.pending:
                    events["server" if conn is server else "client"] += conn.handle_event(quic.pending.pop(0))
        return events

    authority = "www.wt.test"
    def request(method, path, body=b"", grease=False, trailers=None):
        stream = client_quic.get_next_available_stream_id()
        headers = [(b":method", method.encode()), (b":scheme", b"https"), (b":authority", authority.encode()),
                   (b":path", path.encode()), (b"user-agent", b"aioquic/1.7.2")]
        if body:
            headers.append((b"content-length", str(len(body)).encode()))
        client.send_headers(stream, headers, end_stream=not body and not grease and not trailers)
        if grease:
            # A reserved frame: type 0x21 + 0x1f * 2 = 0x5f (a 2-byte varint), a 6-byte payload.
            client_quic.send_stream_data(stream, bytes([0x40, 0x5F, 0x06]) + b"grease", end_stream=False)
        if body:
            client.send_data(stream, body, end_stream=not trailers)
        if trailers:
            client.send_headers(stream, trailers, end_stream=True)
        if grease and not body and not trailers:
            client_quic.send_stream_data(stream, b"", end_stream=True)
        return stream

    def respond(stream, status, body=b"", head=False, interim=None, content_type=b"text/plain", trailers=None):
        if interim:
            server.send_headers(stream, [(b":status", str(interim).encode()), (b"link", b"</style.css>; rel=preload")])
        headers = [(b":status", str(status).encode()), (b"server", b"aioquic/1.7.2"), (b"content-type", content_type)]
        if body and not head:
            headers.append((b"content-length", str(len(body)).encode()))
        server.send_headers(stream, headers, end_stream=(not body or head) and not trailers)
        if body and not head:
            server.send_data(stream, body, end_stream=not trailers)
        if trailers:
            server.send_headers(stream, trailers, end_stream=True)

    exchanges = []
    def exchange(method, path, status, req_body=b"", resp_body=b"", **kw):
        stream = request(method, path, req_body, grease=kw.get("grease", False), trailers=kw.get("request_trailers"))
        pump()
        respond(stream, status, resp_body, head=method == "HEAD", interim=kw.get("interim"), trailers=kw.get("trailers"))
        pump()
        exchanges.append({"stream": stream, "method": method, "path": path, "status": status,
                          "interim": kw.get("interim"), "request_trailers": bool(kw.get("request_trailers")),
                          "response_trailers": bool(kw.get("trailers"))})

    pump()
    exchange("GET", "/index.html", 200, resp_body=b"<html>" + b"x" * 1443, grease=True)
    exchange("POST", "/upload/small", 201, req_body=bytes(range(256)) * 4, resp_body=b'{"ok":true}')
    exchange("HEAD", "/index.html", 200)
    exchange("GET", "/nocontent", 204)
    exchange("GET", "/api/status", 200, resp_body=b'{"status":"ok"}' * 40, interim=103,
             trailers=[(b"x-checksum", b"abc123")])
    exchange("GET", "/api/config", 200, resp_body=b"y" * 20000)

    for entry in exchanges:
        for side, from_client in (("request", True), ("response", False)):
            data = b"".join(bytes.fromhex(c["hex"]) for c in chunks if c["stream"] == entry["stream"] and c["from_client"] == from_client)
            entry[side] = walk_frames(data)
            entry[side]["total"] = len(data)
    return {"generator": "scripts/lib/h3-vectors.py", "aioquic": "1.7.2", "chunks": chunks, "exchanges": exchanges}


def main():
    out = sys.argv[1]
    with open(f"{out}/qpack-vectors.json", "w") as f:
        json.dump(qpack_vectors(), f, indent=1)
        f.write("\n")
    with open(f"{out}/h3-streams.json", "w") as f:
        json.dump(h3_streams(), f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
