#!/usr/bin/env bash
# Osprey vs Suricata 7.0.x on the same ET Open rules and the same pcap, one thread each.
#
# Usage: bench/vs-suricata.sh [RUNS]            (default 3 runs of each engine)
# Environment: OSPREY (binary; default target/release/osprey, built when missing),
#              PCAP (default ../shared/pcaps/sv-ether.pcap), SHARED (default ../shared),
#              WORK (scratch folder; default a new one under /tmp).
#
# For every run it reports:
#   load        wall seconds from process start until the engine says it is ready
#               (Suricata: the 'Engine started' / 'Starting file run' console line of `-v`;
#               Osprey: its 'rules loaded' line), i.e. config + rule parsing + matcher build;
#   load CPU    CPU seconds the process had used at that moment (/proc/PID/stat);
#   processing  the engine's own packet-processing time (Suricata: 'time elapsed';
#               Osprey: 'time:' of its summary);
#   proc CPU    CPU seconds after the ready line until exit (processing + shutdown);
#   max RSS     peak resident set size (wait4 rusage, the figure `/usr/bin/time -v` prints);
#   alerts      alert records in eve.json.
# Suricata runs with `--runmode single`, /etc/suricata/suricata.yaml and the corpus'
# alert-only EVE output (../shared/corpus/alert-only-outputs.yaml); Osprey with
# `--runmode single` (one pipeline). A Suricata run killed by a signal (7.0.10 segfaults in
# its defragmentation in about a third of runs on sv-ether.pcap) is retried, up to 5 times.
# The CPU columns are the steadier figures on a shared machine.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SHARED=${SHARED:-$ROOT/../shared}
PCAP=${PCAP:-$SHARED/pcaps/sv-ether.pcap}
RUNS=${1:-3}
OSPREY=${OSPREY:-$ROOT/target/release/osprey}
WORK=${WORK:-$(mktemp -d /tmp/osprey-vs-suricata.XXXXXX)}
mkdir -p "$WORK"

if ! command -v suricata >/dev/null 2>&1; then
    echo "suricata not found: installing it with $SHARED/tools/install-suricata.sh" >&2
    if [ "$(id -u)" = 0 ]; then
        bash "$SHARED/tools/install-suricata.sh"
    else
        sudo bash "$SHARED/tools/install-suricata.sh"
    fi
fi
if [ ! -x "$OSPREY" ]; then
    (cd "$ROOT" && cargo build --release -p osprey)
fi
cat "$SHARED"/rules/et-open/emerging-*.rules >"$WORK/et-all.rules"
echo "suricata: $(suricata -V 2>&1 | head -1)" >&2
echo "osprey:   $OSPREY" >&2
echo "rules:    $(grep -c '^alert\|^drop\|^pass\|^reject' "$WORK/et-all.rules") rules ($WORK/et-all.rules)" >&2
echo "pcap:     $PCAP" >&2
echo "work:     $WORK" >&2

WORK="$WORK" PCAP="$PCAP" RUNS="$RUNS" OSPREY="$OSPREY" SHARED="$SHARED" python3 - <<'PY'
import os, re, subprocess, sys, time, json

work, pcap, runs = os.environ["WORK"], os.environ["PCAP"], int(os.environ["RUNS"])
osprey, shared = os.environ["OSPREY"], os.environ["SHARED"]
rules = os.path.join(work, "et-all.rules")
tick = os.sysconf("SC_CLK_TCK")


def cpu_of(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / tick
    except (OSError, IndexError, ValueError):
        return None


def run(cmd, ready_re, elapsed_re, log):
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=work)
    ready = ready_cpu = elapsed = None
    with open(log, "wb") as out:
        for line in p.stdout:
            out.write(line)
            text = line.decode("utf-8", "replace")
            if ready is None and re.search(ready_re, text):
                ready = time.monotonic() - t0
                ready_cpu = cpu_of(p.pid)
            m = re.search(elapsed_re, text)
            if m:
                elapsed = float(m.group(1))
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    wall = time.monotonic() - t0
    cpu = ru.ru_utime + ru.ru_stime
    return {
        "rc": p.returncode,
        "load": ready,
        "load_cpu": ready_cpu,
        "processing": elapsed,
        "proc_cpu": None if ready_cpu is None else cpu - ready_cpu,
        "wall": wall,
        "cpu": cpu,
        "rss_mib": ru.ru_maxrss / 1024,
    }


def alerts(path):
    n = 0
    try:
        with open(path) as f:
            for line in f:
                if '"event_type":"alert"' in line.replace(" ", ""):
                    n += 1
    except OSError:
        return None
    return n


rows = []
for i in range(runs):
    out = os.path.join(work, f"osprey-{i}")
    os.makedirs(out, exist_ok=True)
    r = run([osprey, "-r", pcap, "-S", rules, "-l", out, "-k", "none", "--runmode", "single",
             "--no-progress"], r"rules loaded", r"^packets: .* time: ([0-9.]+) s",
            os.path.join(out, "console.log"))
    r["alerts"] = alerts(os.path.join(out, "eve.json"))
    rows.append(("osprey", i, 1, r))
    for attempt in range(1, 6):
        out = os.path.join(work, f"suricata-{i}-{attempt}")
        os.makedirs(out, exist_ok=True)
        r = run(["suricata", "-c", "/etc/suricata/suricata.yaml", "--include",
                 os.path.join(shared, "corpus", "alert-only-outputs.yaml"),
                 "--set", "unix-command.enabled=no", "-k", "none", "-v", "-l", out,
                 "-S", rules, "-r", pcap, "--runmode", "single"],
                r"Engine started|Starting file run", r"time elapsed ([0-9.]+)s",
                os.path.join(out, "console.log"))
        r["alerts"] = alerts(os.path.join(out, "eve.json"))
        rows.append(("suricata", i, attempt, r))
        if r["rc"] >= 0:
            break
        print(f"suricata run {i} attempt {attempt}: killed by signal {-r['rc']}, retrying",
              file=sys.stderr)

fmt = lambda v, d=2: "-" if v is None else f"{v:.{d}f}"
print("| engine | run | rc | load s | load CPU s | processing s | proc CPU s | wall s | max RSS MiB | alerts |")
print("|---|---|---|---|---|---|---|---|---|---|")
for eng, i, att, r in rows:
    print(f"| {eng} | {i}.{att} | {r['rc']} | {fmt(r['load'])} | {fmt(r['load_cpu'])} | "
          f"{fmt(r['processing'], 3)} | {fmt(r['proc_cpu'])} | {fmt(r['wall'])} | "
          f"{fmt(r['rss_mib'], 1)} | {r['alerts']} |")


def med(eng, key):
    v = sorted(r[key] for e, _, _, r in rows if e == eng and r["rc"] == 0 and r[key] is not None)
    return v[len(v) // 2] if v else None


print()
print("| median of successful runs | load s | load CPU s | processing s | proc CPU s | max RSS MiB |")
print("|---|---|---|---|---|---|")
for eng in ("osprey", "suricata"):
    print(f"| {eng} | {fmt(med(eng, 'load'))} | {fmt(med(eng, 'load_cpu'))} | "
          f"{fmt(med(eng, 'processing'), 3)} | {fmt(med(eng, 'proc_cpu'))} | {fmt(med(eng, 'rss_mib'), 1)} |")
o, s = med("osprey", "load_cpu"), med("suricata", "load_cpu")
if o and s:
    print(f"\nload CPU: osprey/suricata = {o / s:.2f} (target <= 0.25)")
o, s = med("osprey", "processing"), med("suricata", "processing")
if o and s:
    print(f"processing: suricata/osprey = {s / o:.2f}x (target >= 1.5)")
o, s = med("osprey", "proc_cpu"), med("suricata", "proc_cpu")
if o and s:
    print(f"processing CPU: suricata/osprey = {s / o:.2f}x (steadier on a shared machine)")
o, s = med("osprey", "rss_mib"), med("suricata", "rss_mib")
if o and s:
    print(f"max RSS: osprey/suricata = {o / s:.2f} (target <= 1)")
with open(os.path.join(work, "results.json"), "w") as f:
    json.dump([{"engine": e, "run": i, "attempt": a, **r} for e, i, a, r in rows], f, indent=1)
PY
