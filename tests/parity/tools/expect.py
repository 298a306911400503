#!/usr/bin/env python3
"""Writes a case folder's expected.jsonl from Suricata 7.0.10's run on it.

usage: expect.py CASE_DIR...
Runs `suricata -c /etc/suricata/suricata.yaml -k none --runmode single -r input.pcap
-S test.rules -l TMP` twice in the case folder (the two runs must agree, else it stops),
and keeps the alert fields the corpus compares (as ../../shared/corpus/README.md says).
"""
import json, os, subprocess, sys, tempfile

FIELDS = ["signature_id", "src_ip", "src_port", "dest_ip", "dest_port", "proto", "pcap_cnt",
          "app_proto"]


def run(case):
    with tempfile.TemporaryDirectory() as out:
        subprocess.run(["suricata", "-c", "/etc/suricata/suricata.yaml", "-k", "none",
                        "--runmode", "single", "-r", "input.pcap", "-S", "test.rules",
                        "-l", out], cwd=case, check=True, capture_output=True)
        rows = []
        for line in open(os.path.join(out, "eve.json")):
            o = json.loads(line)
            if o.get("event_type") != "alert":
                continue
            o["signature_id"] = o["alert"]["signature_id"]
            rows.append(json.dumps({k: o[k] for k in FIELDS if k in o}))
        return rows


for case in sys.argv[1:]:
    a, b = run(case), run(case)
    if a != b:
        sys.exit(f"{case}: two Suricata runs disagree")
    with open(os.path.join(case, "expected.jsonl"), "w") as f:
        f.write("".join(r + "\n" for r in a))
    print(f"{case}: {len(a)} alerts")
