#!/usr/bin/env python3
"""Independent checks of HAR files written by `wiretally analyze --format har`.

    har-check.py schema SCHEMA.json FILE.har...   validate against the JSON schema (jsonschema) and
                                                   the spec's prose rules (time = sum of timings...)
    har-check.py haralyzer FILE.har...             load with haralyzer.HarParser and count

Prints one JSON object per file. Exit 0 when every file passes, 1 otherwise, 77 when a needed
Python module is missing (the tests that run this require the module, so for them that is a failure).
"""
import json
import sys


def missing(module):
    print(f"SKIP: python module {module} is not installed (pip install {module})")
    sys.exit(77)


def spec_rules(har):
    """Rules the HAR 1.2 spec states in prose, which a JSON schema cannot express."""
    problems = []
    log = har["log"]
    starts = [entry["startedDateTime"] for entry in log["entries"]]
    if starts != sorted(starts):
        problems.append("entries are not sorted by startedDateTime")
    pages = {page["id"] for page in log.get("pages", [])}
    for index, entry in enumerate(log["entries"]):
        timings = entry["timings"]
        phases = [timings.get(name, -1) for name in ("blocked", "dns", "connect", "send", "wait", "receive")]
        total = sum(value for value in phases if value >= 0)
        if abs(total - entry["time"]) > 0.0015:
            problems.append(f"entry {index}: time {entry['time']} != sum of timings {total}")
        ssl, connect = timings.get("ssl", -1), timings.get("connect", -1)
        if ssl >= 0 and connect < ssl:
            problems.append(f"entry {index}: connect {connect} does not include ssl {ssl}")
        if "pageref" in entry and entry["pageref"] not in pages:
            problems.append(f"entry {index}: pageref {entry['pageref']} is not a page")
        post = entry["request"].get("postData")
        if post is not None and "text" in post and "params" in post:
            problems.append(f"entry {index}: postData has both text and params")
    return problems


def check_schema(schema_path, files):
    try:
        import jsonschema
    except ImportError:
        missing("jsonschema")
    with open(schema_path, encoding="utf-8") as handle:
        schema = json.load(handle)
    validator = jsonschema.Draft7Validator(schema)
    ok = True
    for path in files:
        with open(path, encoding="utf-8") as handle:
            har = json.load(handle)
        errors = [f"{'/'.join(map(str, error.absolute_path))}: {error.message}"
                  for error in validator.iter_errors(har)]
        errors += spec_rules(har)
        ok = ok and not errors
        print(json.dumps({"file": path, "valid": not errors, "errors": errors[:10],
                          "entries": len(har["log"]["entries"])}))
    return ok


def check_haralyzer(files):
    try:
        from haralyzer import HarParser
    except ImportError:
        missing("haralyzer")
    for path in files:
        with open(path, encoding="utf-8") as handle:
            parser = HarParser(json.load(handle))
        pages = parser.pages
        entries = 0
        requests = 0
        for page in pages:
            for entry in page.entries:
                entries += 1
                # Touch what consumers read: request, response, start time, timings, sizes.
                _ = (entry.request.method, entry.request.url, entry.request.headers, entry.request.bodySize,
                     entry.response.status, entry.response.headersSize, entry.response.mimeType,
                     entry.timings, entry.time, entry.port)
                if entry.startTime is None:
                    raise SystemExit(f"{path}: haralyzer cannot parse startedDateTime of {entry.url}")
                if entry.request.method:
                    requests += 1
        transfer = sum(page.get_total_size_trans(page.entries) for page in pages)
        print(json.dumps({"file": path, "version": parser.version, "creator": parser.creator["name"],
                          "pages": len(pages), "entries": entries, "requests": requests,
                          "transfer_size": transfer}))
    return True


def main(argv):
    if len(argv) >= 3 and argv[1] == "schema":
        return 0 if check_schema(argv[2], argv[3:]) else 1
    if len(argv) >= 2 and argv[1] == "haralyzer":
        return 0 if check_haralyzer(argv[2:]) else 1
    print(__doc__, file=sys.stderr)
    return 64


if __name__ == "__main__":
    sys.exit(main(sys.argv))
