"""Merging the units' alert files into one EVE file, and the equality of alerts the
hunt is held to.

Two alerts are the same when their rule (``sid``, ``gid``, ``rev``), packet time, addresses,
ports, protocol and ``pcap_cnt`` are: a unit reads the link's whole input and keeps
the frames of its bucket with their numbers, so ``pcap_cnt`` is the packet's number in
the link's concatenated files, as in one ``osprey -r`` over them. ``flow_id`` is left
out (a per-process hash seed), and so is ``pcap_filename`` (the file that carried the
packet: the same in both, but absent from some configurations).
"""

from __future__ import annotations

import json
import os
from collections import Counter
from typing import Iterable, List, Sequence, Tuple


def alert_key(rec: dict) -> Tuple:
    """What makes two alerts the same (see the module's documentation)."""
    a = rec.get("alert", {})
    return (
        a.get("gid"),
        a.get("signature_id"),
        a.get("rev"),
        rec.get("timestamp"),
        rec.get("src_ip"),
        rec.get("src_port"),
        rec.get("dest_ip"),
        rec.get("dest_port"),
        rec.get("proto"),
        rec.get("pcap_cnt"),
    )


def read_alerts(paths: Iterable[str]) -> List[dict]:
    """The alert records of EVE files."""
    out = []
    for path in paths:
        with open(path) as f:
            for line in f:
                if line.strip():
                    rec = json.loads(line)
                    if rec.get("event_type") == "alert":
                        out.append(rec)
    return out


def alert_counter(records: Iterable[dict]) -> Counter:
    """The multiset of :func:`alert_key` of records."""
    return Counter(alert_key(r) for r in records)


def merge(unit_files: Sequence[Tuple[int, str]], output: str) -> int:
    """Writes the alerts of ``unit_files`` (link order, path) to ``output`` in time order
    (then link, then ``pcap_cnt``), through a temporary file and a rename; every unit
    file is read once. Returns the number of alerts."""
    rows = []
    for link_order, path in unit_files:
        with open(path) as f:
            for line in f:
                if not line.strip():
                    continue
                rec = json.loads(line)
                key = (rec.get("timestamp", ""), link_order, rec.get("pcap_cnt") or 0)
                rows.append((key, line if line.endswith("\n") else line + "\n"))
    rows.sort(key=lambda r: r[0])
    tmp = f"{output}.tmp"
    with open(tmp, "w") as f:
        f.writelines(line for _, line in rows)
    os.replace(tmp, output)
    return len(rows)
