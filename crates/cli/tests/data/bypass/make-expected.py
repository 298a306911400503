#!/usr/bin/env python3
"""Writes the expected records of keywords_bypass.rs from Suricata 7.0.10's eve.json:
the same projection as the test's `project`, one record per line sorted by its JSON
text with sorted keys (the order of records of one packet is not this test's concern),
then the bypass-related counters (`flow.end.tcp_state` without its zeros).

    suricata -c /etc/suricata/suricata.yaml -r PCAP -k none --runmode single \
        -S bypass.rules -l OUT
    python3 make-expected.py OUT/eve.json > NAME.suricata.jsonl
"""
import json
import sys

STATS = [
    ("flow_bypassed",),
    ("flow", "end", "state"),
    ("flow", "end", "tcp_state"),
    ("flow", "total",),
]


def project(r):
    o = {"event_type": r["event_type"]}
    for k in ("pcap_cnt", "src_port", "dest_port", "tx_id"):
        if k in r:
            o[k] = r[k]
    if r["event_type"] == "alert":
        o["sid"] = r["alert"]["signature_id"]
    if r["event_type"] in ("alert", "flow") and "flow" in r:
        o["flow"] = r["flow"]
    if r["event_type"] == "flow":
        o["timestamp"] = r["timestamp"]
        o["tcp"] = r.get("tcp")
    if "http" in r:
        o["url"] = r["http"].get("url")
    if r["event_type"] == "anomaly":
        o["anomaly"] = r["anomaly"].get("event")
    return o


def main():
    recs, stats = [], None
    for line in open(sys.argv[1]):
        r = json.loads(line)
        if r["event_type"] == "stats":
            stats = r["stats"]
            continue
        recs.append(json.dumps(project(r), sort_keys=True, separators=(",", ":")))
    for o in sorted(recs):
        print(o)
    out = {}
    for path in STATS:
        v = stats
        for k in path:
            v = v[k]
        if path == ("flow", "end", "tcp_state"):
            v = {k: n for k, n in v.items() if n}
        out[".".join(path)] = v
    print(json.dumps({"stats": out}, sort_keys=True, separators=(",", ":")))


main()
