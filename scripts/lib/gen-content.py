#!/usr/bin/env python3
"""Deterministic content for the recorded captures: gen-content.py HTDOCS UPLOADS"""
import json, os, random, sys

htdocs, uploads = sys.argv[1], sys.argv[2]
os.makedirs(htdocs, exist_ok=True)
os.makedirs(os.path.join(htdocs, "dav"), exist_ok=True)
os.makedirs(uploads, exist_ok=True)
rng = random.Random(20261122)
MTIME = 1700000000  # Tue, 14 Nov 2023 22:13:20 GMT


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)
    os.utime(path, (MTIME, MTIME))


items = "".join("<li>Hello item %d</li>\n" % i for i in range(40))
write(os.path.join(htdocs, "index.html"), (
    "<!doctype html>\n<html><head><title>wiretally test page</title></head>\n<body>\n"
    "<h1>Hello from wiretally</h1>\n<ul>\n%s</ul>\n</body></html>\n" % items).encode())
write(os.path.join(htdocs, "small.txt"), b"tiny text, below gzip_min_length\n")
words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"]
recs, size = [], 0
while size < 200_000:
    r = {"id": len(recs), "name": rng.choice(words) + "-" + rng.choice(words),
         "value": rng.randint(0, 1_000_000), "ratio": round(rng.random(), 4),
         "tags": rng.sample(words, 3), "active": rng.random() < 0.5}
    recs.append(r)
    size += len(json.dumps(r)) + 2
body = json.dumps({"records": recs}, indent=None).encode()
write(os.path.join(htdocs, "data.json"), body)
text = ("The quick brown fox jumps over the lazy dog. Hello again, line %d.\n")
write(os.path.join(htdocs, "text.txt"), "".join(text % i for i in range(900)).encode())
write(os.path.join(htdocs, "blob.bin"), rng.randbytes(1_000_000))
write(os.path.join(uploads, "put-300k.bin"), rng.randbytes(300_000))
write(os.path.join(uploads, "post-100k.bin"), rng.randbytes(100_000))
write(os.path.join(uploads, "payload.json"),
      json.dumps({"user": "wiretally", "items": list(range(200))}).encode())
