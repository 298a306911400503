#!/usr/bin/env python3
"""Counts the records of two EVE files side by side.

Without options: the number of records per `event_type` in each file, and the
difference. With `--anomaly`: the `anomaly` records per (type, layer, event), with
`app_proto` for application-layer events, instead. Lines that are not JSON objects are
counted apart (a truncated last line, say), never dropped silently.

Usage: bench/eve_counts.py A_EVE B_EVE [--anomaly] [--names A,B]
(files may be gzip-compressed)
"""

import argparse
import collections
import gzip
import json
import sys


def read(path):
    """Yields the records of an EVE file and counts the lines that are not records."""
    opener = gzip.open if path.endswith(".gz") else open
    bad = 0
    records = []
    with opener(path, "rt", encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                bad += 1
                continue
            if isinstance(rec, dict):
                records.append(rec)
            else:
                bad += 1
    return records, bad


def event_type_key(rec):
    return rec.get("event_type", "?")


def anomaly_key(rec):
    if rec.get("event_type") != "anomaly":
        return None
    a = rec.get("anomaly") or {}
    parts = [a.get("type", "?"), a.get("layer", "-"), a.get("event", "?")]
    if a.get("app_proto"):
        parts.append(a["app_proto"])
    return " ".join(str(p) for p in parts)


def count(records, key):
    c = collections.Counter()
    for rec in records:
        k = key(rec)
        if k is not None:
            c[k] += 1
    return c


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("a", help="first EVE file (e.g. Osprey's)")
    ap.add_argument("b", help="second EVE file (e.g. Suricata's)")
    ap.add_argument(
        "--anomaly",
        action="store_true",
        help="count anomaly records per (type, layer, event, app_proto)",
    )
    ap.add_argument("--names", default="A,B", help="column names, comma-separated")
    args = ap.parse_args(argv)
    names = (args.names.split(",") + ["A", "B"])[:2]
    key = anomaly_key if args.anomaly else event_type_key
    (ra, bad_a), (rb, bad_b) = read(args.a), read(args.b)
    ca, cb = count(ra, key), count(rb, key)
    rows = sorted(set(ca) | set(cb), key=lambda k: (-(ca[k] + cb[k]), k))
    width = max([len("total")] + [len(k) for k in rows])
    print(f"{'':{width}}  {names[0]:>8}  {names[1]:>8}  {'diff':>7}")
    for k in rows:
        print(f"{k:{width}}  {ca[k]:8}  {cb[k]:8}  {ca[k] - cb[k]:+7}")
    ta, tb = sum(ca.values()), sum(cb.values())
    print(f"{'total':{width}}  {ta:8}  {tb:8}  {ta - tb:+7}")
    for name, bad in ((names[0], bad_a), (names[1], bad_b)):
        if bad:
            print(f"{name}: {bad} lines that are not JSON records", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
