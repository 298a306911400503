#!/usr/bin/env python3
"""Compares the keys of Osprey's EVE alert records with Suricata's.

Alerts are matched on (sid, src_ip, src_port, dest_ip, dest_port, pcap_cnt); alerts
that occur several times with the same key (one packet completing several
transactions) are paired by `tx_id` where it is the same, else in file order. For every
matched pair, every key Suricata writes is counted, nested keys included (a dict is
walked; a list or scalar is a leaf, compared whole). A key counts as "same" when
Osprey writes it with an equal value; `flow_id` counts as same when present (Suricata
seeds it per run). Prints the share of same keys and the most frequent missing and
different keys.

With `--exclude` (by default the app-layer objects of protocols Osprey does not parse
yet: see DEFAULT_EXCLUDE) the keys inside those top-level objects, the object's own key
included, are not counted; both figures are printed. `--exclude ''` counts everything.

Usage: bench/eve_keys.py OSPREY_EVE SURICATA_EVE [--top N] [--json] [--exclude LIST]
(files may be gzip-compressed; only `event_type: alert` records are read)
"""

import argparse
import collections
import gzip
import json
import sys

PRESENT_ONLY = {"flow_id"}

# Top-level app-layer objects of protocols Osprey does not parse (or log) yet.
DEFAULT_EXCLUDE = (
    "smb,files,ftp_data,ftp,nfs,dcerpc,krb5,sip,mqtt,quic,snmp,dhcp,ssh,"
    "ike,rfb,rdp,tftp,bittorrent_dht,modbus,dnp3,enip,pgsql,http2_files"
)


def read_alerts(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                continue
            if rec.get("event_type") == "alert":
                yield rec


def match_key(rec):
    return (
        rec.get("alert", {}).get("signature_id"),
        rec.get("src_ip"),
        rec.get("src_port"),
        rec.get("dest_ip"),
        rec.get("dest_port"),
        rec.get("pcap_cnt"),
    )


def leaves(obj, prefix=""):
    """(dotted key, value) for every key of `obj`, walking nested objects."""
    for k, v in obj.items():
        path = f"{prefix}.{k}" if prefix else k
        yield path, v
        if isinstance(v, dict):
            yield from leaves(v, path)


def lookup(obj, path):
    cur = obj
    for part in path.split("."):
        if not isinstance(cur, dict) or part not in cur:
            return False, None
        cur = cur[part]
    return True, cur


def compare(osprey, suricata, exclude=frozenset()):
    by_key = collections.defaultdict(list)
    for rec in osprey:
        by_key[match_key(rec)].append(rec)
    stats = {"suricata_alerts": 0, "matched": 0, "keys": 0, "same": 0}
    missing = collections.Counter()
    different = collections.Counter()
    examples = {}
    for ref in suricata:
        stats["suricata_alerts"] += 1
        cands = by_key.get(match_key(ref))
        if not cands:
            continue
        same_tx = [i for i, c in enumerate(cands) if c.get("tx_id") == ref.get("tx_id")]
        ours = cands.pop(same_tx[0] if same_tx else 0)
        stats["matched"] += 1
        for path, want in leaves(ref):
            if path.split(".", 1)[0] in exclude:
                continue
            stats["keys"] += 1
            present, got = lookup(ours, path)
            if not present:
                missing[path] += 1
            elif isinstance(want, dict) or path in PRESENT_ONLY or got == want:
                stats["same"] += 1
            else:
                different[path] += 1
                examples.setdefault(path, (want, got))
    stats["osprey_alerts"] = sum(len(v) for v in by_key.values()) + stats["matched"]
    return stats, missing, different, examples


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("osprey")
    ap.add_argument("suricata")
    ap.add_argument("--top", type=int, default=15)
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    ap.add_argument(
        "--exclude",
        default=DEFAULT_EXCLUDE,
        help="comma-separated top-level objects not counted (default: protocols "
        "Osprey does not parse yet)",
    )
    a = ap.parse_args()
    exclude = frozenset(x.strip() for x in a.exclude.split(",") if x.strip())
    ours, refs = list(read_alerts(a.osprey)), list(read_alerts(a.suricata))
    all_stats = compare([dict(r) for r in ours], refs)[0]
    stats, missing, different, examples = compare(ours, refs, exclude)
    share = stats["same"] / stats["keys"] if stats["keys"] else 0.0
    all_share = all_stats["same"] / all_stats["keys"] if all_stats["keys"] else 0.0
    if a.json:
        out = dict(stats, share=share, missing=dict(missing), different=dict(different))
        out["all_keys"] = all_stats["keys"]
        out["all_same"] = all_stats["same"]
        out["all_share"] = all_share
        out["excluded"] = sorted(exclude)
        json.dump(out, sys.stdout, indent=1, sort_keys=True)
        print()
        return
    print(
        f"alerts: suricata {stats['suricata_alerts']}, osprey {stats['osprey_alerts']}, "
        f"matched {stats['matched']}"
    )
    print(
        f"keys Suricata writes on matched alerts: {stats['keys']}; present with the same "
        f"value in Osprey's: {stats['same']} ({100 * share:.1f}%)"
        + (f" excluding {','.join(sorted(exclude))}" if exclude else "")
    )
    if exclude:
        print(
            f"all keys, none excluded: {all_stats['keys']}; same: {all_stats['same']} "
            f"({100 * all_share:.1f}%)"
        )
    print("most frequent missing keys:")
    for k, n in missing.most_common(a.top):
        print(f"  {n:5}  {k}")
    print("most frequent different keys (suricata value / osprey value):")
    for k, n in different.most_common(a.top):
        want, got = examples[k]
        print(f"  {n:5}  {k}: {json.dumps(want)[:60]} / {json.dumps(got)[:60]}")


if __name__ == "__main__":
    main()
