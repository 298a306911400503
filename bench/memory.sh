#!/usr/bin/env bash
# Issue 26: many concurrent TCP conversations. Generates the issue's two workloads with
# `osprey gen` (ET Open's emerging-*.rules; 1514-byte frames; 2 % attack conversations):
#   c20k:  --flows 20000  --packets 600000   (746,987 packets, 1,217 expected alerts)
#   c100k: --flows 100000 --packets 300000   (about 1.24 M packets)
# runs Osprey with 1, 2 and 4 workers (default settings: the stock suricata.yaml) and
# Suricata once in the single runmode on each, and prints, per run: the expected alerts
# found (signature and packet number as `gen` predicts them), all alerts, the segments
# refused by the reassembly memcap (`tcp.segment_memcap_drop`), `memcap_pressure_max`
# and the peak RSS as /usr/bin/time reports it. Then the curve of Osprey's peak RSS
# (1 worker) against the number of concurrent conversations (`--flows`, 1k..200k;
# smaller frames so that the captures stay small: 13 packets a conversation).
#
# Usage: bench/memory.sh [WORKDIR]           (default /tmp/osprey-memory; kept, reused)
# Environment: OSPREY (default target/release/osprey), RULES (default: every
#   ../shared/rules/et-open/emerging-*.rules in one file), SURICATA (default suricata;
#   empty: skip it), CONFIG (default /etc/suricata/suricata.yaml), WORKERS (default
#   "1 2 4"), CURVE (default "1000 10000 50000 100000 200000"; empty: no curve),
#   CURVE_SURICATA (1: Suricata on the curve's captures too), CURVE_SIZE (default 256),
#   WORKLOADS (default "c20k c100k": the tables to make).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SHARED=${SHARED:-$ROOT/../shared}
OSPREY=${OSPREY:-$ROOT/target/release/osprey}
SURICATA=${SURICATA-suricata}
CONFIG=${CONFIG:-/etc/suricata/suricata.yaml}
WORKERS=${WORKERS:-1 2 4}
CURVE=${CURVE-1000 10000 50000 100000 200000}
CURVE_SIZE=${CURVE_SIZE:-256}
WORKLOADS=${WORKLOADS:-c20k c100k}
WORK=${1:-/tmp/osprey-memory}
mkdir -p "$WORK"
if [ -z "${RULES:-}" ]; then
    RULES=$WORK/et-all.rules
    [ -s "$RULES" ] || cat "$SHARED"/rules/et-open/emerging-*.rules >"$RULES"
fi

# gen NAME ARGS...: the capture NAME.pcap (and NAME.expected.jsonl), once.
gen() {
    local name=$1
    shift
    [ -s "$WORK/$name.pcap" ] ||
        "$OSPREY" gen -o "$WORK/$name.pcap" --rules "$RULES" --seed 7 "$@" 2>&1 | tail -1 >&2
}

# report LABEL DIR: one table row from DIR's eve.json, stats and time.txt.
report() {
    python3 - "$1" "$2" "$3" <<'EOF'
import json, os, re, sys
label, d, expected = sys.argv[1], sys.argv[2], sys.argv[3]
exp = set()
if os.path.exists(expected):
    for l in open(expected):
        e = json.loads(l)
        exp.add((e["signature_id"], e["pcap_cnt"]))
got, n, stats = set(), 0, None
for l in open(os.path.join(d, "eve.json"), errors="replace"):
    try:
        r = json.loads(l)
    except ValueError:
        continue
    if r.get("event_type") == "alert":
        n += 1
        got.add((r["alert"]["signature_id"], r.get("pcap_cnt")))
    elif r.get("event_type") == "stats":
        stats = r["stats"]
if os.path.exists(os.path.join(d, "stats.json")):
    stats = json.load(open(os.path.join(d, "stats.json")))
stats = stats or {}
drops = stats.get("tcp", {}).get("segment_memcap_drop", "-")
pressure = stats.get("memcap_pressure_max", "-")
rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", open(os.path.join(d, "time.txt")).read())
rss = f"{int(rss.group(1)) / 1024 / 1024:.2f} GB" if rss else "-"
drops = f"{drops:,}" if isinstance(drops, int) else drops
print(f"| {label} | {len(exp & got):,} / {len(exp):,} | {n:,} | {drops} | {pressure} | {rss} |")
EOF
}

# osprey_run NAME THREADS: Osprey on NAME.pcap, one table row.
osprey_run() {
    local d=$WORK/$1.osprey$2
    rm -rf "$d" && mkdir -p "$d"
    /usr/bin/time -v -o "$d/time.txt" "$OSPREY" -c "$CONFIG" -r "$WORK/$1.pcap" -S "$RULES" \
        -k none --threads "$2" -l "$d" --no-progress >/dev/null 2>&1
    report "Osprey, $2 worker(s)" "$d" "$WORK/$1.expected.jsonl"
}

# suricata_run NAME: Suricata (single runmode) on NAME.pcap, one table row.
suricata_run() {
    local d=$WORK/$1.suricata
    rm -rf "$d" && mkdir -p "$d"
    /usr/bin/time -v -o "$d/time.txt" "$SURICATA" -c "$CONFIG" -r "$WORK/$1.pcap" -S "$RULES" \
        -k none --runmode single -l "$d" >/dev/null 2>&1
    report "Suricata 7, single" "$d" "$WORK/$1.expected.jsonl"
}

header() {
    echo
    echo "$1"
    echo
    echo "| run | expected alerts found | alerts | tcp.segment_memcap_drop | memcap_pressure_max | peak RSS |"
    echo "|---|---|---|---|---|---|"
}

for w in $WORKLOADS; do
    case $w in
    c20k) gen c20k --flows 20000 --packets 600000 --size 1514 --attack-fraction 0.02 ;;
    c100k) gen c100k --flows 100000 --packets 300000 --size 1514 --attack-fraction 0.02 ;;
    esac
done
for w in $WORKLOADS; do
    header "$w: $(python3 -c "import os;print(f'{os.path.getsize(\"$WORK/$w.pcap\")/1e6:.0f} MB')")"
    for t in $WORKERS; do osprey_run "$w" "$t"; done
    [ -z "$SURICATA" ] || suricata_run "$w"
done

if [ -n "$CURVE" ]; then
    echo
    echo "Peak RSS against concurrent conversations (--size $CURVE_SIZE, 13 packets each)"
    echo
    echo "| concurrent flows | packets | Osprey, 1 worker | Suricata 7, single |"
    echo "|---|---|---|---|"
    for n in $CURVE; do
        name=curve$n
        gen "$name" --flows "$n" --packets "$n" --size "$CURVE_SIZE" --attack-fraction 0.02
        row=$(osprey_run "$name" 1 | awk -F'|' '{print $7}')
        srow=" - "
        if [ -n "$SURICATA" ] && [ "${CURVE_SURICATA:-0}" = 1 ]; then
            srow=$(suricata_run "$name" | awk -F'|' '{print $7}')
        fi
        pkts=$(grep -oE '"pkts": [0-9]+' "$WORK/$name.osprey1/stats.json" | head -1 | grep -oE '[0-9]+$')
        echo "| $n | $pkts |$row|$srow|"
        rm -f "$WORK/$name.pcap" # keep the disk: the curve's captures are cheap to make
    done
fi
