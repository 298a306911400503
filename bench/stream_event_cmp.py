#!/usr/bin/env python3
"""Compares the EVE `anomaly` records of type `stream` of two runs, per event.

Usage: bench/stream_event_cmp.py SURICATA_EVE OSPREY_EVE [EVENT]

Prints, per event name, the records of each run and how many fall on the same packet
(`pcap_cnt`) in both; with EVENT, the packets of that event only one run has. Make the
runs with `-S crates/cli/tests/data/stream-events.rules -k none --runmode single` and a
configuration whose eve-log has `anomaly: types: stream: yes` (Suricata's stock
`suricata.yaml` with `# stream: no` turned on, for both).
"""

import collections
import json
import sys


def records(path):
    out = collections.Counter()
    with open(path) as f:
        for line in f:
            try:
                r = json.loads(line)
            except ValueError:
                continue
            a = r.get("anomaly") or {}
            if r.get("event_type") == "anomaly" and a.get("type") == "stream":
                out[(a["event"].removeprefix("stream."), r.get("pcap_cnt", "-"))] += 1
    return out


def main():
    s, o = records(sys.argv[1]), records(sys.argv[2])
    print("%-40s %9s %9s %9s" % ("event", "suricata", "osprey", "same pkt"))
    for e in sorted({k[0] for k in s} | {k[0] for k in o}):
        se = collections.Counter({k: v for k, v in s.items() if k[0] == e})
        oe = collections.Counter({k: v for k, v in o.items() if k[0] == e})
        print("%-40s %9d %9d %9d" % (e, sum(se.values()), sum(oe.values()), sum((se & oe).values())))
    if len(sys.argv) > 3:
        e = sys.argv[3]
        se = collections.Counter({k: v for k, v in s.items() if k[0] == e})
        oe = collections.Counter({k: v for k, v in o.items() if k[0] == e})
        print("suricata only:", sorted(k[1] for k in se - oe))
        print("osprey only:", sorted(k[1] for k in oe - se))


if __name__ == "__main__":
    main()
