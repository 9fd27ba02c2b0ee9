#!/usr/bin/env python3
"""Userspace Ethernet bridge with seeded impairments (the kernel here has no netem).

Runs inside the `middle` namespace: one AF_PACKET raw socket per interface, every frame received on
one side is forwarded to the other side after a fixed delay.  IP frames (IPv4/IPv6) may additionally be
dropped, duplicated or reordered (held back for an extra delay so later frames overtake them), each
decided by one seeded random generator, in the order frames arrive.  ARP and other frames are only
delayed.  Every impairment is logged as one JSON line (TCP: ports, seq/ack, flags, payload length; UDP:
ports, payload length and the QUIC header form); a summary is written on SIGTERM/SIGINT.

usage: impair-bridge.py --a m1 --b m2 --seed 7701 --drop 0.03 --dup 0.02 --reorder 0.02 \
           --delay-ms 5 --reorder-extra-ms 15 --events EVENTS.jsonl --summary SUMMARY.json --ready FILE
"""
import argparse, heapq, json, random, select, signal, socket, struct, sys, time

ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4


def describe(frame):
    """Small dict describing an Ethernet frame (for the event log)."""
    d = {"len": len(frame)}
    if len(frame) < 14:
        return d
    et = struct.unpack("!H", frame[12:14])[0]
    d["ethertype"] = "0x%04x" % et
    l4 = None
    if et == 0x0800 and len(frame) >= 34:
        ihl = (frame[14] & 0x0F) * 4
        total = struct.unpack("!H", frame[16:18])[0]
        d["src"] = socket.inet_ntop(socket.AF_INET, frame[26:30])
        d["dst"] = socket.inet_ntop(socket.AF_INET, frame[30:34])
        proto = frame[23]
        l4, l4len = 14 + ihl, total - ihl
    elif et == 0x86DD and len(frame) >= 54:
        d["src"] = socket.inet_ntop(socket.AF_INET6, frame[22:38])
        d["dst"] = socket.inet_ntop(socket.AF_INET6, frame[38:54])
        proto = frame[20]
        l4, l4len = 54, struct.unpack("!H", frame[18:20])[0]
    if l4 is not None and proto == 6 and len(frame) >= l4 + 20:
        sp, dp, seq, ack, off, flags = struct.unpack("!HHIIBB", frame[l4:l4 + 14])
        d.update(sport=sp, dport=dp, seq=seq, ack=ack, flags="0x%03x" % flags,
                 tcp_len=l4len - (off >> 4) * 4)
    elif l4 is not None and proto == 17 and len(frame) >= l4 + 8:
        # UDP (QUIC in quic-lossy): ports and payload length; the first payload byte tells a QUIC long
        # header (bit 7 set: Initial, 0-RTT, Handshake, Retry) from a short one (1-RTT)
        sp, dp, ulen = struct.unpack("!HHH", frame[l4:l4 + 6])
        d.update(sport=sp, dport=dp, udp_len=ulen - 8)
        if len(frame) > l4 + 8:
            d["quic_form"] = "long" if frame[l4 + 8] & 0x80 else "short"
    return d


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--a", required=True)
    ap.add_argument("--b", required=True)
    ap.add_argument("--seed", type=int, default=7701)
    ap.add_argument("--drop", type=float, default=0.03)
    ap.add_argument("--dup", type=float, default=0.02)
    ap.add_argument("--reorder", type=float, default=0.02)
    ap.add_argument("--delay-ms", type=float, default=5.0)
    ap.add_argument("--reorder-extra-ms", type=float, default=15.0)
    ap.add_argument("--dup-gap-ms", type=float, default=1.0)
    ap.add_argument("--events", required=True)
    ap.add_argument("--summary", required=True)
    ap.add_argument("--ready")
    args = ap.parse_args()

    rng = random.Random(args.seed)
    socks = {}
    for name in (args.a, args.b):
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)
        s.bind((name, 0))
        s.setblocking(False)
        socks[name] = s
    peer = {args.a: socks[args.b], args.b: socks[args.a]}
    dirname = {args.a: "%s->%s" % (args.a, args.b), args.b: "%s->%s" % (args.b, args.a)}
    stats = {d: {"in": 0, "forwarded": 0, "dropped": 0, "duplicated": 0, "reordered": 0}
             for d in dirname.values()}
    events = open(args.events, "w")
    t0 = time.time()
    queue = []  # (due, n, out_socket, frame)
    n = 0
    stop = [False]

    def on_signal(*_):
        stop[0] = True
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    if args.ready:
        open(args.ready, "w").write("ready\n")

    fd2name = {s.fileno(): name for name, s in socks.items()}
    while not stop[0]:
        now = time.monotonic()
        while queue and queue[0][0] <= now:
            _, _, out, frame = heapq.heappop(queue)
            try:
                out.send(frame)
            except OSError as e:
                print("send failed: %s" % e, file=sys.stderr)
        timeout = max(0.0, queue[0][0] - time.monotonic()) if queue else 0.2
        try:
            r, _, _ = select.select(list(fd2name), [], [], timeout)
        except InterruptedError:
            continue
        for fd in r:
            name = fd2name[fd]
            s = socks[name]
            while True:
                try:
                    frame, addr = s.recvfrom(65535)
                except BlockingIOError:
                    break
                if addr[2] == PACKET_OUTGOING:
                    continue  # our own transmissions on this interface
                d = dirname[name]
                st = stats[d]
                st["in"] += 1
                now = time.monotonic()
                due = now + args.delay_ms / 1000.0
                et = struct.unpack("!H", frame[12:14])[0] if len(frame) >= 14 else 0
                action = None
                if et in (0x0800, 0x86DD):
                    x = rng.random()
                    if x < args.drop:
                        action = "drop"
                    elif x < args.drop + args.dup:
                        action = "duplicate"
                    elif x < args.drop + args.dup + args.reorder:
                        action = "reorder"
                if action:
                    ev = {"t": round(time.time(), 6), "rel": round(time.time() - t0, 6), "dir": d,
                          "action": action}
                    ev.update(describe(frame))
                    events.write(json.dumps(ev) + "\n")
                if action == "drop":
                    st["dropped"] += 1
                    continue
                if action == "reorder":
                    st["reordered"] += 1
                    due += args.reorder_extra_ms / 1000.0
                n += 1
                heapq.heappush(queue, (due, n, peer[name], frame))
                st["forwarded"] += 1
                if action == "duplicate":
                    st["duplicated"] += 1
                    n += 1
                    heapq.heappush(queue, (due + args.dup_gap_ms / 1000.0, n, peer[name], frame))
    # flush what is still queued
    for _, _, out, frame in sorted(queue):
        try:
            out.send(frame)
        except OSError:
            pass
    events.close()
    summary = {"seed": args.seed, "drop": args.drop, "dup": args.dup, "reorder": args.reorder,
               "delay_ms": args.delay_ms, "reorder_extra_ms": args.reorder_extra_ms,
               "dup_gap_ms": args.dup_gap_ms, "impaired_ethertypes": ["0x0800", "0x86dd"],
               "directions": stats}
    with open(args.summary, "w") as f:
        json.dump(summary, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
