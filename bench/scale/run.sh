#!/usr/bin/env bash
# Issue 29 point 5: scaling on a lent 16-core device in one call. Osprey with 1, 2, 4, 8
# and 16 workers (default readers: `--readers` unset) and Suricata 7.0.10 autofp on
# generated 1514-byte and IMIX traffic with ET Open, checksums off, `--gpu off` (the CPU
# alone: a lent machine has a GPU, and `--gpu auto` would use it); a table to $OUT.
#
# Two steps:
#   bench/scale/run.sh prepare      on the CPU machine: copies into bench/scale/carry/
#                                   (git-ignored) Suricata's binary, every shared library
#                                   `ldd` names, its ld-linux loader, suricata.yaml,
#                                   classification.config, reference.config and the ET
#                                   Open rules; then build osprey (release) and carry
#                                   both: run(carry: [bench/scale/carry,
#                                   target/release/osprey], command: bench/scale/run.sh)
#   bench/scale/run.sh [run]        on the device: generates the traffic with `osprey
#                                   gen` (the issue's seeds), runs everything, writes
#                                   $OUT/scale.md (the table), $OUT/scale.tsv and logs.
#
# Environment: OSPREY (target/release/osprey), CARRY (bench/scale/carry), OUT
# (default /tmp/osprey-scale), WORKERS ("1 2 4 8 16"), PACKETS (2500000), RUNS (1),
# SURICATA_THREADS (16: Suricata's packet threads, through threading.detect-thread-ratio;
# 0 leaves Suricata's default), TRAFFIC ("1514 imix"), READERS
# (empty: Osprey's default; a number: `--readers N` for every run). Packet time is what
# each engine reports for its packets (Osprey: `time:` of its summary; Suricata: `time
# elapsed` of `-v`); both exclude rule loading.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CARRY=${CARRY:-$ROOT/bench/scale/carry}
OSPREY=${OSPREY:-$ROOT/target/release/osprey}
OUT=${OUT:-/tmp/osprey-scale}
WORKERS=${WORKERS:-1 2 4 8 16}
PACKETS=${PACKETS:-2500000}
RUNS=${RUNS:-1}
SURICATA_THREADS=${SURICATA_THREADS:-16}
TRAFFIC=${TRAFFIC:-1514 imix}
READERS=${READERS:-}

prepare() {
    local bin lib
    bin=$(command -v suricata) || { echo "suricata not installed" >&2; exit 1; }
    rm -rf "$CARRY"
    mkdir -p "$CARRY/lib" "$CARRY/etc"
    cp -L "$bin" "$CARRY/suricata"
    # Every library the binary loads, and the loader itself (ldd prints it by path).
    ldd "$bin" | grep -oE '/[^ ]+\.so[^ ]*' | sort -u | while read -r lib; do
        cp -L "$lib" "$CARRY/lib/"
    done
    cp -L /lib64/ld-linux-x86-64.so.2 "$CARRY/lib/ld-linux-x86-64.so.2"
    for f in suricata.yaml classification.config reference.config threshold.config; do
        [ -e "/etc/suricata/$f" ] && cp -L "/etc/suricata/$f" "$CARRY/etc/"
    done
    local rules=${RULES:-/tmp/etdir/suricata.rules}
    if [ ! -e "$rules" ]; then
        rules=$(mktemp)
        cat "$ROOT"/../shared/rules/et-open/*.rules >"$rules"
    fi
    gzip -c "$rules" >"$CARRY/et.rules.gz"
    du -sh "$CARRY"
}

# Suricata from the carried files, self-contained: its own loader and libraries.
suricata_run() {
    "$CARRY/lib/ld-linux-x86-64.so.2" --library-path "$CARRY/lib" "$CARRY/suricata" "$@"
}

# One Osprey run: prints "seconds alerts".
osprey_run() { # pcap workers dir
    local o t a
    rm -rf "$3" && mkdir -p "$3"
    o=$("$OSPREY" -c "$CARRY/etc/suricata.yaml" -r "$1" -S "$WORK/et.rules" -k none \
        --threads "$2" ${READERS:+--readers "$READERS"} -l "$3" --no-progress --gpu off 2>&1) \
        || { echo "$o" >&2; return 1; }
    echo "$o" >"$3/osprey.log"
    t=$(grep -oE 'time: [0-9.]+' <<<"$o" | tail -1 | grep -oE '[0-9.]+$')
    a=$(grep -c '"event_type":"alert"' "$3/eve.json" || true)
    echo "$t $a"
}

suricata_one() { # pcap dir
    local s t a w extra=()
    rm -rf "$2" && mkdir -p "$2"
    if [ "$SURICATA_THREADS" != 0 ]; then
        # Suricata makes cores x ratio packet threads.
        local ratio
        ratio=$(python3 -c "print($SURICATA_THREADS / $(nproc))")
        extra=(--set "threading.detect-thread-ratio=$ratio" --set "max-pending-packets=1024")
    fi
    s=$(cd "$CARRY/etc" && suricata_run -c "$CARRY/etc/suricata.yaml" -r "$1" \
        -S "$WORK/et.rules" -k none --runmode autofp -l "$2" -v \
        --set classification-file="$CARRY/etc/classification.config" \
        --set reference-config-file="$CARRY/etc/reference.config" \
        --set threshold-file="$CARRY/etc/threshold.config" "${extra[@]}" 2>&1) \
        || { echo "$s" >&2; return 1; }
    echo "$s" >"$2/suricata.log"
    t=$(grep -oE 'time elapsed [0-9.]+' <<<"$s" | grep -oE '[0-9.]+$')
    w=$(grep -oE 'W: [0-9]+' <<<"$s" | head -1 | grep -oE '[0-9]+$' || echo "?")
    a=$(grep -c '"event_type":"alert"' "$2/eve.json" || true)
    echo "$t $a $w"
}

run_all() {
    [ -x "$OSPREY" ] || { echo "no osprey binary at $OSPREY" >&2; exit 1; }
    [ -x "$CARRY/suricata" ] || echo "no carried suricata at $CARRY (run prepare): Osprey only" >&2
    mkdir -p "$OUT"
    WORK=$(mktemp -d "${TMPDIR:-/tmp}/osprey-scale.XXXXXX")
    trap 'rm -rf "$WORK"' EXIT
    gunzip -c "$CARRY/et.rules.gz" >"$WORK/et.rules"
    local cores
    cores=$(nproc)
    printf 'traffic\tengine\tworkers\tseconds\tmpps\tgbps\tspeedup\talerts\n' >"$OUT/scale.tsv"
    for traffic in $TRAFFIC; do
        local seed=7 pcap="$WORK/gen-$traffic.pcap"
        [ "$traffic" = imix ] && seed=8
        "$OSPREY" gen --rules "$WORK/et.rules" --flows 2000 --packets "$PACKETS" \
            --size "$traffic" --attack-fraction 0.02 --seed "$seed" -o "$pcap" \
            >"$OUT/gen-$traffic.log" 2>&1
        local pkts bytes one=""
        read -r pkts bytes < <(python3 - "$pcap" <<'EOF'
import struct, sys
b = open(sys.argv[1], 'rb').read()
n = at = 0
total = 0
at = 24
while at + 16 <= len(b):
    caplen, wire = struct.unpack_from('<II', b, at + 8)
    total += wire
    n += 1
    at += 16 + caplen
print(n, total)
EOF
)
        for w in $WORKERS; do
            for r in $(seq "$RUNS"); do
                read -r t a < <(osprey_run "$pcap" "$w" "$WORK/o")
                [ -z "$one" ] && one=$t
                python3 - "$traffic" "$w" "$t" "$a" "$pkts" "$bytes" "$one" >>"$OUT/scale.tsv" <<'EOF'
import sys
tr, w, t, a, p, b, one = sys.argv[1:]
t, p, b, one = float(t), int(p), int(b), float(one)
print(f"{tr}\tosprey\t{w}\t{t:.3f}\t{p/t/1e6:.2f}\t{b*8/t/1e9:.2f}\t{one/t:.2f}\t{a}")
EOF
                cp "$WORK/o/osprey.log" "$OUT/osprey-$traffic-w$w-r$r.log"
            done
        done
        if [ -x "$CARRY/suricata" ]; then
            read -r t a sw < <(suricata_one "$pcap" "$WORK/s")
            cp "$WORK/s/suricata.log" "$OUT/suricata-$traffic.log"
            python3 - "$traffic" "$sw" "$t" "$a" "$pkts" "$bytes" "$one" >>"$OUT/scale.tsv" <<'EOF'
import sys
tr, w, t, a, p, b, one = sys.argv[1:]
t, p, b, one = float(t), int(p), int(b), float(one)
print(f"{tr}\tsuricata-autofp\t{w}\t{t:.3f}\t{p/t/1e6:.2f}\t{b*8/t/1e9:.2f}\t{one/t:.2f}\t{a}")
EOF
        fi
        rm -f "$pcap" "${pcap%.pcap}".expected.jsonl "${pcap%.pcap}".unsynthesized.txt
    done
    {
        echo "Scaling on $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')),"
        echo "$PACKETS packets per capture, ET Open, -k none; readers: ${READERS:-default}."
        echo "speedup: the 1-worker Osprey time of the same traffic over this row's time."
        echo
        echo "| traffic | engine | workers | packet time (s) | Mpps | Gbit/s | speedup | alerts |"
        echo "|---|---|---:|---:|---:|---:|---:|---:|"
        tail -n +2 "$OUT/scale.tsv" | while IFS=$'\t' read -r tr e w t m g s a; do
            echo "| $tr | $e | $w | $t | $m | $g | $s | $a |"
        done
    } >"$OUT/scale.md"
    cat "$OUT/scale.md"
    echo "cores: $cores"
}

case "${1:-run}" in
prepare) prepare ;;
run) run_all ;;
*) echo "usage: $0 [prepare|run]" >&2; exit 2 ;;
esac
