#!/usr/bin/env python3
"""Osprey vs Suricata on generated traffic (Kargus Figures 12 and 13 style).

Generates traffic with `osprey gen` (HTTP flows with handshake and teardown, attack
flows built from ET Open rules), then measures:

  1. throughput vs frame size (64..1514 B) at 0/25/50/100 % attack flows, Osprey with
     1 and 2 threads and each matcher, Suricata 7 (single and autofp runmodes);
  2. throughput vs number of rules (1k, 5k, 10k, all ET Open);
  3. throughput vs number of concurrent flows.

Osprey is timed by `osprey bench engine` (capture in memory, rules loaded once, median
of --runs). Suricata reads the same pcap from the page cache (`-r`, `-k none`); its time
is the wall time minus the wall time of the same command on a one-packet capture (rule
loading and start-up), median of --runs. Throughput counts wire bytes: frame + 24 B
(FCS, preamble, inter-frame gap) per packet, as the papers do; captured-byte figures are
in the JSON.

Writes bench/report/{results.json,RESULTS-table.md,*.png}. Run bench/install-deps.sh
first (Suricata from bookworm-backports, matplotlib). `--quick` uses small sizes
suited to a shared 2-core machine.
"""

import argparse
import glob
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WIRE_OVERHEAD = 24


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw)


def et_rules(shared):
    files = sorted(glob.glob(os.path.join(shared, "rules/et-open/emerging-*.rules")))
    if not files:
        sys.exit(f"no ET Open rules under {shared}/rules/et-open")
    lines = []
    for f in files:
        with open(f, encoding="utf-8", errors="replace") as fh:
            lines += [l for l in fh if l.startswith("alert ")]
    return lines


def write_rules(lines, n, out):
    path = os.path.join(out, f"rules-{n if n else 'all'}.rules")
    with open(path, "w") as fh:
        fh.writelines(lines[:n] if n else lines)
    return path


def gen(osprey, out, rules, size, attack, packets, flows, seed=1):
    name = f"gen-s{size}-a{int(attack * 100)}-f{flows}-p{packets}.pcap"
    path = os.path.join(out, name)
    if not os.path.exists(path):
        cmd = [osprey, "gen", "-o", path, "--size", str(size), "--packets", str(packets),
               "--flows", str(flows), "--seed", str(seed)]
        if attack > 0:
            cmd += ["--rules", rules, "--attack-fraction", str(attack)]
        sh(cmd)
    return path


def pcap_stats(path):
    """(packets, captured bytes) of a classic pcap."""
    import struct
    n = b = 0
    with open(path, "rb") as fh:
        fh.read(24)
        while True:
            h = fh.read(16)
            if len(h) < 16:
                break
            incl = struct.unpack("<I", h[8:12])[0]
            fh.seek(incl, 1)
            n += 1
            b += incl
    return n, b


def osprey_bench(osprey, pcaps, rules, threads, mpm, runs):
    cmd = [osprey, "bench", "engine", "--pcap", *pcaps, "--rules", rules,
           "--threads", str(threads), "--runs", str(runs), "--json"]
    if mpm:
        cmd += ["--mpm", mpm]
    out = json.loads(sh(cmd).stdout)
    return out if isinstance(out, list) else [out]


def one_packet_pcap(src, dst):
    with open(src, "rb") as fh, open(dst, "wb") as out:
        out.write(fh.read(24))
        h = fh.read(16)
        import struct
        incl = struct.unpack("<I", h[8:12])[0]
        out.write(h + fh.read(incl))


_BASE = {}


def _suricata_once(p, rules, runmode, workdir):
    """(wall s, cpu s, alerts) of one Suricata run over capture p."""
    d = tempfile.mkdtemp(dir=workdir)
    t = time.perf_counter()
    proc = subprocess.Popen(["suricata", "-r", p, "-S", rules, "-l", d, "-k", "none",
                             "--runmode", runmode],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(proc.pid, 0)
    el = time.perf_counter() - t
    if status != 0:
        raise subprocess.CalledProcessError(status, "suricata")
    alerts = 0
    try:
        with open(os.path.join(d, "eve.json")) as fh:
            alerts = sum(1 for l in fh if '"event_type":"alert"' in l)
    except OSError:
        pass
    shutil.rmtree(d, ignore_errors=True)
    return el, ru.ru_utime + ru.ru_stime, alerts


def suricata_time(pcap, rules, runmode, runs, workdir):
    """Median (wall, cpu) seconds Suricata spends on the packets: the same command on a
    one-packet capture (rule loading, start-up) is subtracted. Also the alerts."""
    key = (rules, runmode)
    if key not in _BASE:
        small = os.path.join(workdir, "one.pcap")
        one_packet_pcap(pcap, small)
        b = [_suricata_once(small, rules, runmode, workdir) for _ in range(runs)]
        _BASE[key] = (statistics.median(x[0] for x in b), statistics.median(x[1] for x in b))
    bw, bc = _BASE[key]
    full = [_suricata_once(pcap, rules, runmode, workdir) for _ in range(runs)]
    wall = statistics.median(x[0] for x in full) - bw
    cpu = statistics.median(x[1] for x in full) - bc
    return wall, cpu, full[0][2]


def rate(packets, nbytes, secs):
    return {
        "gbit_per_s": nbytes * 8 / secs / 1e9,
        "wire_gbit_per_s": (nbytes + WIRE_OVERHEAD * packets) * 8 / secs / 1e9,
        "mpps": packets / secs / 1e6,
    }


def chart(rows, x, series_key, title, path, xlabel):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4.2))
    series = {}
    for r in rows:
        if r.get("unmeasured"):
            continue
        series.setdefault(r[series_key], []).append((r[x], r["wire_gbit_per_s"]))
    for name, pts in sorted(series.items()):
        pts.sort()
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=name)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("Gbit/s (wire: frame + 24 B)")
    ax.set_title(title)
    if x == "flows":
        ax.set_xscale("log")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--osprey", default=os.path.join(ROOT, "target/release/osprey"))
    ap.add_argument("--shared", default=os.path.join(ROOT, "../shared"))
    ap.add_argument("--out", default=os.path.join(ROOT, "bench/report"))
    ap.add_argument("--quick", action="store_true", help="small sizes (shared 2-core machine)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--no-suricata", action="store_true")
    ap.add_argument("--matchers", default="ac-full,ac-compact,dfc,spatch,vpatch")
    ap.add_argument("--sizes", default="64,128,256,512,1024,1514")
    ap.add_argument("--attacks", default="0,0.25,0.5,1")
    ap.add_argument("--suricata-runmodes", default="single,autofp")
    ap.add_argument("--suricata-runs", type=int, default=3)
    ap.add_argument("--suricata-sizes", default="", help="frame sizes Suricata runs on (default: all)")
    ap.add_argument("--flows", default="", help="concurrent flow counts (default 1k..1M, 1k..100k with --quick)")
    ap.add_argument("--packets", type=int, default=0)
    ap.add_argument("--sweep-rules", type=int, default=0,
                    help="first N ET rules for the size and flow sweeps (default: all)")
    ap.add_argument("--rule-counts", default="1000,5000,10000,0", help="rules sweep (0: all)")
    ap.add_argument("--flow-size", type=int, default=512, help="frame size of the flow sweep")
    ap.add_argument("--table-only", metavar="RESULTS_JSON",
                    help="print the markdown table of an earlier run and exit")
    ap.add_argument("--suricata-max-rules", type=int, default=0,
                    help="skip Suricata for rule sets larger than this (its rule loading is slow)")
    a = ap.parse_args()
    if a.table_only:
        with open(a.table_only) as fh:
            res = json.load(fh)
        draw(res, os.path.dirname(os.path.abspath(a.table_only)), res["meta"].get("flow_size", 512))
        print(markdown(res))
        return

    os.makedirs(a.out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="osprey-report-")
    sizes = [int(s) for s in a.sizes.split(",")]
    attacks = [float(x) for x in a.attacks.split(",")]
    packets = a.packets or (20_000 if a.quick else 200_000)
    flow_counts = [1_000, 10_000, 100_000] if a.quick else [1_000, 10_000, 100_000, 1_000_000]
    if a.flows:
        flow_counts = [int(x) for x in a.flows.split(",")]
    suri_sizes = {int(x) for x in a.suricata_sizes.split(",")} if a.suricata_sizes else set(sizes)
    rule_counts = [int(x) for x in a.rule_counts.split(",")]
    matchers = [m for m in a.matchers.split(",") if m]
    suricata = not a.no_suricata and shutil.which("suricata")
    lines = et_rules(a.shared)
    all_rules = write_rules(lines, a.sweep_rules, work)
    results = {"size": [], "rules": [], "flows": [], "meta": {"sweep_rules": a.sweep_rules or len(lines)}}
    if suricata:
        results["meta"]["suricata"] = sh(["suricata", "-V"]).stdout.strip()
    results["meta"]["packets_per_pcap"] = packets
    results["meta"]["rules_all"] = len(lines)

    def osprey_rows(pcaps, rules, extra):
        rows = []
        for threads in (1, 2):
            for mpm in matchers if extra.get("all_matchers") else [None]:
                try:
                    reps = osprey_bench(a.osprey, [p for p, _ in pcaps], rules, threads, mpm, a.runs)
                except subprocess.CalledProcessError as e:
                    print(f"osprey --mpm {mpm}: {e.stderr.strip()[:200]}", file=sys.stderr)
                    continue
                for (p, tags), r in zip(pcaps, reps):
                    rows.append({**tags, "engine": f"osprey {threads}T {mpm or 'default'}",
                                 "gbit_per_s": r["gbit_per_s"], "wire_gbit_per_s": r["wire_gbit_per_s"],
                                 "mpps": r["mpps"], "alerts": r["alerts"],
                                 "wire_gbit_per_cpu_s": r.get("wire_gbit_per_cpu_s"),
                                 "latency_p99_us": (r.get("latency") or {}).get("p99_us"),
                                 "peak_rss_mib": (r.get("peak_rss_kib") or 0) / 1024})
        return rows

    def suricata_rows(pcaps, rules, nrules):
        rows = []
        if not suricata or (a.suricata_max_rules and nrules > a.suricata_max_rules):
            return rows
        for runmode in a.suricata_runmodes.split(","):
            for p, tags in pcaps:
                n, b = pcap_stats(p)
                try:
                    t, cpu, alerts = suricata_time(p, rules, runmode, a.suricata_runs, work)
                except subprocess.CalledProcessError as e:
                    print(f"suricata: {e}", file=sys.stderr)
                    continue
                # Start-up varies from run to run: a difference below 50 ms of wall or
                # 100 ms of CPU time is noise, not a measurement.
                if t < 0.05 or cpu < 0.1:
                    rows.append({**tags, "engine": f"suricata {runmode}", "unmeasured": True,
                                 "wall_s": t, "cpu_s": cpu, "alerts": alerts})
                    continue
                rows.append({**tags, "engine": f"suricata {runmode}", **rate(n, b, t), "alerts": alerts,
                             "wire_gbit_per_cpu_s": (b + WIRE_OVERHEAD * n) * 8 / cpu / 1e9})
        return rows

    # 1. frame size x attack share, all ET rules.
    pcaps = [(gen(a.osprey, work, all_rules, s, f, packets, 1000), {"size": s, "attack": f})
             for f in attacks for s in sizes]
    zero = [x for x in pcaps if x[1]["attack"] == 0]
    rest = [x for x in pcaps if x[1]["attack"] != 0]
    results["size"] += osprey_rows(zero, all_rules, {"all_matchers": True})
    results["size"] += osprey_rows(rest, all_rules, {})
    nsweep = results["meta"]["sweep_rules"]
    results["size"] += suricata_rows([x for x in pcaps if x[1]["size"] in suri_sizes], all_rules, nsweep)
    print("size sweep done", file=sys.stderr)

    # 2. number of rules, 512-byte frames, 25 % attacks.
    p = gen(a.osprey, work, all_rules, 512, 0.25, packets, 1000)
    for n in rule_counts:
        rp = write_rules(lines, n, work)
        tags = {"rules": n or len(lines)}
        results["rules"] += osprey_rows([(p, tags)], rp, {})
        results["rules"] += suricata_rows([(p, tags)], rp, tags["rules"])
    print("rules sweep done", file=sys.stderr)

    # 3. concurrent flows, no attacks (each flow is about 12 packets).
    fp = [(gen(a.osprey, work, all_rules, a.flow_size, 0, max(packets, f * 12), f), {"flows": f})
          for f in flow_counts]
    results["flows"] += osprey_rows(fp, all_rules, {})
    results["flows"] += suricata_rows(fp, all_rules, nsweep)

    results["meta"]["flow_size"] = a.flow_size
    with open(os.path.join(a.out, "results.json"), "w") as fh:
        json.dump(results, fh, indent=1)
    draw(results, a.out, a.flow_size)
    table = markdown(results)
    with open(os.path.join(a.out, "RESULTS-table.md"), "w") as fh:
        fh.write(table)
    print(table)
    shutil.rmtree(work, ignore_errors=True)


def draw(results, out, flow_size):
    try:
        nrules = results["meta"]["sweep_rules"]
        for f in sorted({r["attack"] for r in results["size"]}):
            rows = [r for r in results["size"] if r["attack"] == f]
            chart(rows, "size", "engine", f"Throughput vs frame size, {int(f * 100)} % attack flows, {nrules} rules",
                  os.path.join(out, f"size-attack{int(f * 100)}.png"), "frame size (B)")
        chart(results["rules"], "rules", "engine", "Throughput vs rules (512 B, 25 % attack)",
              os.path.join(out, "rules.png"), "rules")
        chart(results["flows"], "flows", "engine", f"Throughput vs concurrent flows ({flow_size} B)",
              os.path.join(out, "flows.png"), "concurrent flows")
    except ImportError:
        print("matplotlib missing: no charts (run bench/install-deps.sh)", file=sys.stderr)


def cell(r):
    if r.get("unmeasured"):
        return "n/m"
    c = r.get("wire_gbit_per_cpu_s")
    return f"{r['wire_gbit_per_s']:.3f} ({c:.3f})" if c else f"{r['wire_gbit_per_s']:.3f}"


def markdown(res):
    out = []
    meta = res["meta"]
    out.append(f"Cells: wire Gbit/s by wall clock (frame + 24 B per packet), and in parentheses wire Gbit/s "
               f"per CPU second (all threads), the fairer figure on a shared machine; "
               f"{meta['packets_per_pcap']} packets per capture; {meta.get('suricata', 'Suricata not run')} "
               f"(n/m: its packet time was within the noise of its start-up time); "
               f"{meta.get('rules_all')} ET Open rules in 'all'.\n")
    for f in sorted({r["attack"] for r in res["size"]}):
        rows = [r for r in res["size"] if r["attack"] == f]
        sizes = sorted({r["size"] for r in rows})
        engines = sorted({r["engine"] for r in rows})
        out.append(f"\n### Frame size, {int(f * 100)} % attack flows, {meta['sweep_rules']} ET Open rules\n")
        out.append("| engine | " + " | ".join(f"{s} B" for s in sizes) + " |")
        out.append("|---|" + "---:|" * len(sizes))
        for e in engines:
            cells = []
            for s in sizes:
                m = [r for r in rows if r["engine"] == e and r["size"] == s]
                cells.append(cell(m[0]) if m else "")
            out.append(f"| {e} | " + " | ".join(cells) + " |")
    for key, label in (("rules", "Rules (512 B frames, 25 % attack flows)"),
                       ("flows", "Concurrent flows (no attacks)")):
        rows = res[key]
        if not rows:
            continue
        xs = sorted({r[key] for r in rows})
        engines = sorted({r["engine"] for r in rows})
        out.append(f"\n### {label}\n")
        out.append(f"| engine | " + " | ".join(str(x) for x in xs) + " |")
        out.append("|---|" + "---:|" * len(xs))
        for e in engines:
            cells = []
            for x in xs:
                m = [r for r in rows if r["engine"] == e and r[key] == x]
                cells.append(cell(m[0]) if m else "")
            out.append(f"| {e} | " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    main()
