#!/usr/bin/env python3
"""Content of the request-dense bench capture (scripts/make-bench-capture --dense-mb, issue 18).

  dense-bench.py content HTDOCS
      Writes HTDOCS/dense/item-K.json (K = 0..63): JSON documents of 5 to 50 KB as an app's API returns
      them (nginx gzips them: 1 to 10 KB on the wire), with the fixed mtime of gen-content.py, and
      HTDOCS/dense/etags.txt: one line per file, "PATH ETAG" with the ETag nginx sends for it
      ("<mtime hex>-<size hex>"), which scripts/lib/bench-dense.lua puts in its conditional GETs.
      Deterministic.
"""
import json, os, random, sys

MTIME = 1700000000  # as scripts/lib/gen-content.py: Tue, 14 Nov 2023 22:13:20 GMT
FILES = 64


def content(htdocs):
    rng = random.Random(20261818)
    dense = os.path.join(htdocs, "dense")
    os.makedirs(dense, exist_ok=True)
    words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"]
    lines = []
    for k in range(FILES):
        want = rng.randint(5000, 50000)
        items, size = [], 40
        while size < want:
            item = {"id": rng.randint(1, 10**6), "name": rng.choice(words) + "-" + rng.choice(words),
                    "score": round(rng.random() * 100, 2), "tags": rng.sample(words, 2),
                    "updated": "2026-11-%02dT%02d:%02d:00Z" % (rng.randint(1, 27), rng.randint(0, 23), rng.randint(0, 59))}
            items.append(item)
            size += len(json.dumps(item)) + 2
        body = json.dumps({"page": k, "items": items}).encode()
        path = os.path.join(dense, "item-%d.json" % k)
        with open(path, "wb") as f:
            f.write(body)
        os.utime(path, (MTIME, MTIME))
        lines.append('/dense/item-%d.json "%x-%x"\n' % (k, MTIME, len(body)))
    with open(os.path.join(dense, "etags.txt"), "w") as f:
        f.writelines(lines)


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] != "content":
        sys.exit(__doc__)
    content(sys.argv[2])
