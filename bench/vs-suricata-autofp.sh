#!/usr/bin/env bash
# Osprey with 2 workers vs Suricata 7.0.x with 2 packet threads (`--runmode autofp`:
# Suricata refuses `workers` for pcap files) on the same pcap and the same ET Open rules
# (every file of ../shared/rules/et-open, as `-S`), checksums off (`-k none`).
#
# Usage: bench/vs-suricata-autofp.sh [RUNS]       (default 3; the runs alternate engines)
# Environment: OSPREY (default target/release/osprey), PCAP (default
#              ../shared/pcaps/sv-ether.pcap), SHARED (default ../shared).
#
# Reports each engine's own packet-processing time (Suricata: `time elapsed` of `-v`,
# which excludes its rule loading; Osprey: `time:` of its summary, likewise), the
# packet-thread count Suricata created (`W:`), and the alert records in eve.json.
# Suricata needs ../shared/tools/install-suricata.sh first.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SHARED=${SHARED:-$ROOT/../shared}
PCAP=${PCAP:-$SHARED/pcaps/sv-ether.pcap}
OSPREY=${OSPREY:-$ROOT/target/release/osprey}
RUNS=${1:-3}
WORK=$(mktemp -d /tmp/osprey-vs-autofp.XXXXXX)
cat "$SHARED"/rules/et-open/*.rules >"$WORK/et.rules"
command -v suricata >/dev/null || { echo "suricata not installed" >&2; exit 1; }
for i in $(seq "$RUNS"); do
    rm -rf "$WORK/s" "$WORK/o"
    mkdir -p "$WORK/s" "$WORK/o"
    s=$(suricata -c /etc/suricata/suricata.yaml -r "$PCAP" -S "$WORK/et.rules" -k none \
        --runmode autofp -l "$WORK/s" -v 2>&1)
    st=$(grep -oE 'time elapsed [0-9.]+' <<<"$s" | grep -oE '[0-9.]+$')
    sw=$(grep -oE 'W: [0-9]+' <<<"$s" | head -1)
    sa=$(grep -c '"event_type":"alert"' "$WORK/s/eve.json" || true)
    o=$("$OSPREY" -r "$PCAP" -S "$WORK/et.rules" -k none --threads 2 -l "$WORK/o" 2>&1)
    ot=$(grep -oE 'time: [0-9.]+' <<<"$o" | grep -oE '[0-9.]+$')
    oa=$(grep -c '"event_type":"alert"' "$WORK/o/eve.json" || true)
    ratio=$(python3 -c "print(f'{$st/$ot:.2f}')")
    echo "run $i: suricata autofp ($sw) ${st} s, $sa alerts | osprey --threads 2 ${ot} s, $oa alerts | osprey/suricata throughput ${ratio}x | load $(cut -d' ' -f1 /proc/loadavg)"
done
rm -rf "$WORK"
