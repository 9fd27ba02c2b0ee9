#!/usr/bin/env python3
"""Content and curl URL lists for the TLS and HTTP/2 bench captures (scripts/make-bench-capture).

  tls-bench.py content HTDOCS
      Adds to HTDOCS (after scripts/lib/gen-content.py) what an app's API traffic fetches: small JSON
      resources under api/v1/ (items, users, feed pages, config: 60 B to 3 KB, gzipped by nginx from
      256 B) and large.bin, 8 MB of incompressible bytes for the large transfers. Deterministic.

  tls-bench.py urls HTDOCS OUT_PREFIX LISTS MIX_BYTES LARGE_BYTES SEED [BASE_URL]
      Writes LISTS curl config files OUT_PREFIX-mix-K.cfg (K = 0..LISTS-1) that together hold about
      MIX_BYTES of responses (as sent: gzip sizes for what nginx compresses, + headers) of the
      request mix, and OUT_PREFIX-large-K.cfg (K = 0, 1), each about LARGE_BYTES / 2 of large.bin
      (whole files: none when that is under half a file).
      Each config is `url = ...` / `output = "/dev/null"` pairs, one pair per request; prints one line
      per file: "PATH REQUESTS BYTES". BASE_URL (default https://www.wt.test) is what the paths are
      appended to: https://www.wt.test:8443 for the HTTP/2 capture, http://10.77.0.2:8082 for its h2c
      part.

The mix, per 100 requests (shuffled, so every connection carries all kinds):
  62 small API calls (api/v1/..., many with query strings, as apps send them)
  14 small HTML page (index.html, ~0.5 KB gzipped)
   5 small.txt (34 B, below gzip_min_length)
  18 gzip JSON (data.json: 200 KB -> ~40 KB gzipped)
   1 blob.bin (1 MB, identity)
"""
import gzip, json, os, random, sys

HOST = "www.wt.test"
# what nginx adds to every response besides the body (status line and headers), about
HEADER_BYTES = 260


def content(htdocs):
    rng = random.Random(20261414)
    api = os.path.join(htdocs, "api", "v1")
    for sub in ("items", "users", "feed"):
        os.makedirs(os.path.join(api, sub), exist_ok=True)
    words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india"]

    def write(rel, obj):
        with open(os.path.join(api, rel), "w") as f:
            json.dump(obj, f, separators=(",", ":"))
            f.write("\n")

    for i in range(200):  # 60 B .. ~3 KB
        n = rng.choice([0, 1, 2, 4, 8, 16, 24, 40])
        write("items/%d.json" % i, {"id": i, "name": rng.choice(words), "price": rng.randint(1, 99999),
                                    "tags": [rng.choice(words) for _ in range(n)],
                                    "variants": [{"sku": "%s-%d" % (rng.choice(words), rng.randint(0, 999)),
                                                  "stock": rng.randint(0, 50)} for _ in range(n // 2)]})
    for i in range(100):
        write("users/%d.json" % i, {"id": i, "login": rng.choice(words) + str(i), "active": rng.random() < 0.8,
                                    "roles": rng.sample(words, 2)})
    for i in range(20):
        write("feed/%d.json" % i, {"page": i, "entries": [{"id": rng.randint(0, 10**6), "title": " ".join(
            rng.choice(words) for _ in range(6)), "score": round(rng.random(), 3)} for _ in range(rng.randint(5, 25))]})
    write("status.json", {"status": "ok", "jobs": 3})
    write("config.json", {"poll_ms": 1000, "features": ["a", "b", "c"], "version": "2.14.1"})
    with open(os.path.join(htdocs, "large.bin"), "wb") as f:
        f.write(rng.randbytes(8_000_000))


def sent_size(path):
    """Bytes nginx sends for a file (gzip level 1 for what it compresses, as gzip_comp_level 1)."""
    data = open(path, "rb").read()
    gz = path.endswith((".json", ".html", ".txt")) and len(data) >= 256
    return (len(gzip.compress(data, 1)) if gz else len(data)) + HEADER_BYTES


def urls(htdocs, prefix, lists, mix_bytes, large_bytes, seed, base="https://" + HOST):
    rng = random.Random(seed)
    api = os.path.join(htdocs, "api", "v1")
    items = sorted(os.listdir(os.path.join(api, "items")))
    users = sorted(os.listdir(os.path.join(api, "users")))
    feed = sorted(os.listdir(os.path.join(api, "feed")))
    size_cache = {}

    def size(rel):
        if rel not in size_cache:
            size_cache[rel] = sent_size(os.path.join(htdocs, rel))
        return size_cache[rel]

    def api_call():
        r = rng.random()
        if r < 0.45:
            rel = "api/v1/items/" + rng.choice(items)
            return rel, "%s?fields=all&locale=en" % rel if rng.random() < 0.5 else rel
        if r < 0.70:
            return ("api/v1/users/" + rng.choice(users),) * 2
        if r < 0.85:
            rel = "api/v1/feed/" + rng.choice(feed)
            return rel, "%s?since=%d" % (rel, rng.randint(10**9, 2 * 10**9))
        rel = rng.choice(["api/v1/status.json", "api/v1/config.json"])
        return rel, "%s?t=%d" % (rel, rng.randint(0, 10**6))

    block = ([api_call] * 62 + [lambda: ("index.html",) * 2] * 14 + [lambda: ("small.txt",) * 2] * 5
             + [lambda: ("data.json",) * 2] * 18 + [lambda: ("blob.bin",) * 2])
    out = [[] for _ in range(lists)]
    totals = [0] * lists
    total, k = 0, 0
    while total < mix_bytes:
        order = block[:]
        rng.shuffle(order)
        for make in order:
            rel, target = make()
            out[k % lists].append(target)
            totals[k % lists] += size(rel)
            total += size(rel)
            k += 1
    files = []
    for i, targets in enumerate(out):
        files.append(("%s-mix-%d.cfg" % (prefix, i), targets, totals[i]))
    per = round(large_bytes / 2 / size("large.bin"))  # none when the share is under half a file
    for i in range(2 if per > 0 else 0):
        files.append(("%s-large-%d.cfg" % (prefix, i), ["large.bin"] * per, per * size("large.bin")))
    for path, targets, nbytes in files:
        with open(path, "w") as f:
            for t in targets:
                f.write('url = "%s/%s"\noutput = "/dev/null"\n' % (base, t))
        print(path, len(targets), nbytes)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "content":
        content(sys.argv[2])
    elif len(sys.argv) in (8, 9) and sys.argv[1] == "urls":
        urls(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]), int(sys.argv[7]),
             *sys.argv[8:])
    else:
        sys.exit(__doc__)
