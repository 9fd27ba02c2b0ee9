#!/usr/bin/env python3
"""tshark's view of every SVCB/HTTPS answer (RFC 9460) in a capture, one TSV row per answer record.

    scripts/lib/svcb-truth.py CAPTURE.pcap > CAPTURE.svcb.tsv

Reads `tshark -T json --no-duplicate-keys` (the per-field TSV of `tshark -T fields -e dns.svcb.*` would
merge the answers of one message) and writes tshark's own field names as columns; lists are
comma-joined in wire order. `dns.svcb.svcparam.key` / `dns.svcb.svcparam.value.length` list every
SvcParam's key and value length, so absent and opaque parameters (ech, unknown keys) can be checked too.
"""
import json, subprocess, sys

COLUMNS = ["frame.number", "dns.id", "dns.resp.name", "dns.resp.type", "dns.resp.ttl", "dns.svcb.svcpriority",
           "dns.svcb.targetname", "dns.svcb.svcparam.key", "dns.svcb.svcparam.value.length",
           "dns.svcb.svcparam.mandatory.key", "dns.svcb.svcparam.alpn", "dns.svcb.svcparam.port",
           "dns.svcb.svcparam.ipv4hint.ip", "dns.svcb.svcparam.ipv6hint.ip"]
PARAM_FIELDS = COLUMNS[7:]


def as_list(value):
    return value if isinstance(value, list) else [] if value is None else [value]


def main(path):
    out = subprocess.run(["tshark", "-r", path, "-Y", "dns.svcb.svcpriority", "-T", "json", "--no-duplicate-keys"],
                         capture_output=True, text=True, check=True).stdout
    print("\t".join(COLUMNS))
    for packet in json.loads(out):
        layers = packet["_source"]["layers"]
        for dns in as_list(layers.get("dns")):
            for records in dns.get("Answers", {}).values():
                for record in as_list(records):
                    if record.get("dns.resp.type") not in ("64", "65"):
                        continue
                    row = {"frame.number": layers["frame"]["frame.number"], "dns.id": dns["dns.id"]}
                    for field in COLUMNS[2:7]:
                        row[field] = record.get(field, "")
                    values = {field: [] for field in PARAM_FIELDS}
                    for param in as_list(record.get("dns.svcb.svcparam")):
                        for field in PARAM_FIELDS:
                            values[field] += as_list(param.get(field))
                    for field in PARAM_FIELDS:
                        row[field] = ",".join(values[field])
                    print("\t".join(row[c] for c in COLUMNS))


if __name__ == "__main__":
    main(sys.argv[1])
