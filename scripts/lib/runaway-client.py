#!/usr/bin/env python3
"""Runaway polling client for scripts/record-captures (scenario `runaway`).

usage: runaway-client.py HOST PORT LOG.jsonl [DURATION_S]

Models a leaked polling timer: about every STEP seconds the app creates one more identical poller of
GET /api/status (interval 1 s) without cancelling the previous ones, so the request rate to
/api/status grows 1/s, 2/s, 3/s, ... Next to it one steady poller fetches GET /api/config once per
second for the whole run. Every poller has its own keep-alive connection (http.client). All
threads stop at DURATION_S (default 21 s); the run is bounded. One JSON line per request is
appended to LOG.jsonl: time (request start), poller, path, status, body_bytes, local_port.
"""
import http.client, json, sys, threading, time

host, port, logpath = sys.argv[1], int(sys.argv[2]), sys.argv[3]
duration = float(sys.argv[4]) if len(sys.argv) > 4 else 21.0
STEP = 3.0       # a new /api/status poller every STEP seconds
INTERVAL = 1.0   # each poller's interval
lock = threading.Lock()
logf = open(logpath, "a", buffering=1)


def log(**kw):
    with lock:
        logf.write(json.dumps(kw) + "\n")


def poller(name, path, start, end):
    conn = http.client.HTTPConnection(host, port, timeout=10)
    k = 0
    while True:
        due = start + k * INTERVAL   # absolute schedule: no drift
        if due >= end:
            break
        delay = due - time.time()
        if delay > 0:
            time.sleep(delay)
        t = time.time()
        conn.request("GET", path, headers={"User-Agent": "wt-runaway/1", "Accept": "application/json"})
        resp = conn.getresponse()
        body = resp.read()
        log(time=round(t, 6), poller=name, path=path, status=resp.status, body_bytes=len(body),
            local_port=conn.sock.getsockname()[1] if conn.sock else None)
        k += 1
    conn.close()


t0 = time.time() + 0.2
end = t0 + duration
threads = [threading.Thread(target=poller, args=("config", "/api/config", t0 + 0.5, end))]
i = 0
while i * STEP < duration:
    # each new timer is created a little later in the second than the last one (phase i * 0.37 s)
    start = t0 + i * STEP + (i * 0.37) % 1.0
    threads.append(threading.Thread(target=poller, args=("status-%d" % i, "/api/status", start, end)))
    i += 1
for th in threads:
    th.start()
for th in threads:
    th.join()
