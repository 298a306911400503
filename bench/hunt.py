#!/usr/bin/env python3
"""Retro-hunt benchmark (issue 31): `osprey hunt` on a local Dask cluster of 1, 2 and 4
worker processes against plain `osprey -r` on the same files, with one osprey process
per unit (`--mode process`, every unit loads the rules) and one persistent osprey per
worker (`--mode socket`, rules loaded once per worker).

    python3 bench/hunt.py [--osprey BIN] [--links 4] [--packets 60000] [--rules FILE]
                          [--workers 1,2,4] [--modes process,socket] [--buckets B]

Generates an archive of LINKS links (`osprey gen`, split into files of 5,000 packets),
runs `osprey -r` over each link's files in order (one process, single runmode: the
work with no engine around it), then the hunt with each worker count, and prints a
Markdown table: wall time, throughput, units, the CPU seconds of the units' osprey
processes and of the whole hunt (client, scheduler, workers, osprey: the difference is
the engine's cost), the sum of the units' rule-load times. The alerts of every hunt are
checked against the plain runs'. "osprey starts" counts the osprey processes that loaded
the rules.
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))

from osprey_hunt import merge, split  # noqa: E402

GEN_RULES = (
    'alert http $HOME_NET any -> $EXTERNAL_NET any (msg:"uri"; flow:established,to_server; '
    'http.uri; content:"/gate.php?id="; pcre:"/id=\\d{4}$/"; sid:1000001; rev:1;)\n'
    'alert tcp $EXTERNAL_NET any -> $HOME_NET 4444 (msg:"raw"; flow:established,to_server; '
    'content:"|de ad be ef|"; depth:4; content:"shell"; distance:2; within:5; sid:1000002; rev:1;)\n'
)


def cpu():
    u = resource.getrusage(resource.RUSAGE_CHILDREN)
    return u.ru_utime + u.ru_stime


def run(cmd, **kw):
    t, c = time.monotonic(), cpu()
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{r.stdout}\n{r.stderr}")
    return time.monotonic() - t, cpu() - c


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--osprey", default=os.path.join(HERE, "..", "target", "release", "osprey"))
    p.add_argument("--links", type=int, default=4)
    p.add_argument("--packets", type=int, default=60000)
    p.add_argument("--rules", help="extra rule file hunted as well (e.g. ET Open)")
    p.add_argument("--workers", default="1,2,4")
    p.add_argument("--modes", default="process,socket")
    p.add_argument("--buckets", type=int, default=0, help="buckets per link (default: "
                   "the hunt's, about two units per worker)")
    p.add_argument("--dir")
    a = p.parse_args()
    osprey = os.path.abspath(a.osprey)
    d = a.dir or tempfile.mkdtemp(prefix="osprey-hunt-bench-")
    os.makedirs(d, exist_ok=True)
    gen_rules = os.path.join(d, "gen.rules")
    with open(gen_rules, "w") as f:
        f.write(GEN_RULES)
    rules = gen_rules
    if a.rules:
        rules = os.path.join(d, "hunt.rules")
        with open(rules, "w") as f:
            f.write(GEN_RULES + open(a.rules).read())
    archive = os.path.join(d, "archive")
    reference = []
    plain, plain_cpu = 0.0, 0.0
    for i in range(a.links):
        link = f"link{i}"
        pcap = os.path.join(d, f"{link}.pcap")
        run([osprey, "gen", "-o", pcap, "--rules", gen_rules, "--packets", str(a.packets),
             "--flows", "200", "--size", "imix", "--attack-fraction", "0.2",
             "--seed", str(11 + i)])
        files = split.split(pcap, os.path.join(archive, link), 5000, link)
        os.remove(pcap)
        lst = os.path.join(d, f"{link}.list")
        with open(lst, "w") as f:
            f.writelines(x + "\n" for x in files)
        log = os.path.join(d, f"plain-{link}")
        os.makedirs(log, exist_ok=True)
        secs, c = run([osprey, "-r", lst, "--pcap-file-list", "-S", rules, "-l", log, "-k",
                       "none", "--runmode", "single", "--eve-types", "alert", "--no-progress"])
        plain += secs
        plain_cpu += c
        reference.append(os.path.join(log, "eve.json"))
    size = sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(archive) for f in fs)
    want = merge.alert_counter(merge.read_alerts(reference))
    rows = [("plain `osprey -r`, links one after another", 1, a.links, a.links, plain,
             plain_cpu, None, None, sum(want.values()))]
    env = dict(os.environ, PYTHONPATH=os.path.join(HERE, "..", "python"))
    for w in [int(x) for x in a.workers.split(",")]:
        for mode in a.modes.split(","):
            out = os.path.join(d, f"hunt-{mode}-{w}.json")
            summ = os.path.join(d, f"hunt-{mode}-{w}.summary.json")
            cmd = [sys.executable, "-m", "osprey_hunt", archive, "-S", rules, "-o", out,
                   "--local", str(w), "--osprey", osprey, "--osprey-args", "-k none",
                   "--summary", summ, "--mode", mode]
            if a.buckets:
                cmd += ["--buckets", str(a.buckets)]
            secs, total_cpu = run(cmd, env=env)
            s = json.load(open(summ))
            got = merge.alert_counter(merge.read_alerts([out]))
            if got != want:
                raise SystemExit(f"{mode}, {w} workers: alerts differ from the plain runs")
            rows.append((f"`osprey hunt --local {w} --mode {mode}`", w, s["units"],
                         s["osprey_starts"], secs, s["osprey_cpu_seconds"], total_cpu,
                         s["rule_load_seconds"], sum(got.values())))
    print(f"archive: {a.links} links, {size / 1e6:.1f} MB, files of 5,000 packets; "
          f"rules: {rules}; machine: {os.cpu_count()} CPUs")
    print("| run | workers | units | osprey starts | wall s | MB/s | osprey CPU s | "
          "all CPU s | rule load s (sum) | wall vs plain | alerts |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name, w, units, starts, secs, ocpu, acpu, load_s, n in rows:
        acs = f"{acpu:.1f}" if acpu is not None else "-"
        ls = f"{load_s:.1f}" if load_s is not None else "-"
        print(f"| {name} | {w} | {units} | {starts} | {secs:.1f} | {size / 1e6 / secs:.1f} "
              f"| {ocpu:.1f} | {acs} | {ls} | {secs / plain:.2f}x | {n} |")
    print(f"load average after: {os.getloadavg()[0]:.1f}")

if __name__ == "__main__":
    main()
