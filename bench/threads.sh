#!/usr/bin/env bash
# Osprey with 1 worker, then 2 workers, in interleaved pairs, on the same pcap and the
# same ET Open rules (every file of ../shared/rules/et-open, as `-S`), checksums off
# (`-k none`): issue 9's "throughput 1 -> 2 worker threads".
#
# Usage: bench/threads.sh [PAIRS]       (default 3)
# Environment: OSPREY (default target/release/osprey), PCAP (default
#              ../shared/pcaps/sv-ether.pcap), SHARED (default ../shared), N (the second
#              worker count, default 2).
#
# Reports Osprey's own processing time (`time:` of its summary, which excludes rule
# loading) for each run, the speedup of the pair, the alert records in eve.json (they
# must be equal) and the load average when the pair ended.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SHARED=${SHARED:-$ROOT/../shared}
PCAP=${PCAP:-$SHARED/pcaps/sv-ether.pcap}
OSPREY=${OSPREY:-$ROOT/target/release/osprey}
N=${N:-2}
PAIRS=${1:-3}
WORK=$(mktemp -d /tmp/osprey-threads.XXXXXX)
cat "$SHARED"/rules/et-open/*.rules >"$WORK/et.rules"
run() {
    rm -rf "$WORK/o$1"
    mkdir -p "$WORK/o$1"
    o=$("$OSPREY" -r "$PCAP" -S "$WORK/et.rules" -k none --threads "$1" -l "$WORK/o$1" \
        --no-progress 2>&1)
    t=$(grep -oE 'time: [0-9.]+' <<<"$o" | grep -oE '[0-9.]+$')
    a=$(grep -c '"event_type":"alert"' "$WORK/o$1/eve.json" || true)
    echo "$t $a"
}
for i in $(seq "$PAIRS"); do
    read -r t1 a1 < <(run 1)
    read -r tn an < <(run "$N")
    ratio=$(python3 -c "print(f'{$t1/$tn:.2f}')")
    echo "pair $i: 1 worker ${t1} s, $a1 alerts | $N workers ${tn} s, $an alerts | speedup ${ratio}x | load $(cut -d' ' -f1 /proc/loadavg)"
done
rm -rf "$WORK"
