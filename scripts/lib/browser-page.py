#!/usr/bin/env python3
"""Pages for the `browser-har` scenario: browser-page.py HTDOCS  (writes HTDOCS/browser/*)

index.html loads style.css, app.js and logo.png; app.js fetches items.json (gzip by nginx) and POSTs
a small JSON to /upload/browser (nginx proxies it to the loopback sink -> 201), then shows a link to
page2.html. page2.html loads page2.png and fetches /browser/missing.json (404) with cache: no-store.
Every page declares an empty data: favicon so the browser does not request /favicon.ico (a request
the browser's HAR would not contain). Deterministic content, mtime 1700000000 like gen-content.py.
"""
import json, os, random, struct, sys, zlib

root = os.path.join(sys.argv[1], "browser")
os.makedirs(root, exist_ok=True)
MTIME = 1700000000
rng = random.Random(20261122)


def write(name, data):
    path = os.path.join(root, name)
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())
    os.utime(path, (MTIME, MTIME))


def png(w, h, seed):
    """RGB PNG with a noisy gradient (does not compress to nothing)."""
    r = random.Random(seed)
    raw = b"".join(b"\0" + bytes(v for x in range(w) for v in
                                 ((x * 7 + r.randrange(40)) & 255, (y * 5 + r.randrange(40)) & 255, 128))
                   for y in range(h))
    chunk = lambda t, d: struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


HEAD = '<!doctype html>\n<html><head><meta charset="utf-8"><title>%s</title>\n<link rel="icon" href="data:,">\n'
write("index.html", HEAD % "wiretally browser page" +
      '<link rel="stylesheet" href="style.css">\n<script src="app.js" defer></script>\n</head>\n<body>\n'
      '<h1>Hello from wiretally</h1>\n<img src="logo.png" width="64" height="48" alt="logo">\n'
      '<ul id="items"></ul>\n<p id="status">loading</p>\n</body></html>\n')
write("style.css", "body { font-family: sans-serif; margin: 2em; }\n" +
      "".join(".item-%d { color: #%06x; padding: %dpx; }\n" % (i, rng.randrange(1 << 24), i % 7) for i in range(60)))
write("app.js", """// wiretally browser-har scenario
async function main() {
  const status = document.getElementById('status');
  const r = await fetch('items.json');
  const data = await r.json();
  const ul = document.getElementById('items');
  for (const it of data.items.slice(0, 20)) {
    const li = document.createElement('li');
    li.className = 'item-' + (it.id % 60);
    li.textContent = it.name + ' ' + it.value;
    ul.appendChild(li);
  }
  const p = await fetch('/upload/browser', {method: 'POST', headers: {'Content-Type': 'application/json'},
    body: JSON.stringify({seen: data.items.length, first: data.items[0].name})});
  await p.text();
  const a = document.createElement('a');
  a.id = 'next'; a.href = 'page2.html'; a.textContent = 'next page';
  document.body.appendChild(a);
  status.textContent = 'done ' + r.status + ' ' + p.status;
}
main().catch(e => { document.getElementById('status').textContent = 'error ' + e; });
""" + "".join("// filler line %d: keeps the script above gzip_min_length and realistic in size\n" % i for i in range(30)))
words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"]
items = [{"id": i, "name": rng.choice(words) + "-" + rng.choice(words), "value": rng.randint(0, 1_000_000),
          "tags": rng.sample(words, 2)} for i in range(120)]
write("items.json", json.dumps({"items": items}))
write("logo.png", png(64, 48, 1))
write("page2.html", HEAD % "wiretally page 2" +
      '</head>\n<body>\n<h1>Page 2</h1>\n<img src="page2.png" width="32" height="32" alt="p2">\n'
      '<p id="status">loading</p>\n<script>\n'
      "fetch('/browser/missing.json', {cache: 'no-store'}).then(r => {\n"
      "  document.getElementById('status').textContent = 'done ' + r.status; });\n"
      '</script>\n</body></html>\n')
write("page2.png", png(32, 32, 2))
