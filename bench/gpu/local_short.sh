#!/usr/bin/env bash
# What `--gpu auto` and a background `cpu-sim` set-up add to a short capture, on a
# machine without a GPU (issue 27 point 1; bench/RESULTS.md, "GPU offload: the first
# H100 run"). The cache is warmed first; then N rounds of off / auto / cpu-sim,
# interleaved; the median wall time of each.
# Usage: bench/gpu/local_short.sh OSPREY RULES WORKDIR [N]
#   (the capture: OSPREY gen -o WORKDIR/small.pcap --rules RULES --flows 50
#    --packets 2000 --size 1514 --attack-fraction 0.02 --seed 8, made when absent)
set -u
B=$1; RULES=$2; W=$3; N=${4:-5}
mkdir -p "$W"
[ -f "$W/small.pcap" ] || "$B" gen -o "$W/small.pcap" --rules "$RULES" --flows 50 --packets 2000 \
    --size 1514 --attack-fraction 0.02 --seed 8 >/dev/null 2>&1
CACHE=$W/cache
mkdir -p "$W/o"
"$B" -r "$W/small.pcap" -S "$RULES" -k none -l "$W/o" --no-progress --gpu cpu-sim \
    --gpu-setup wait --gpu-cache "$CACHE" >"$W/warm.log" 2>&1
for _ in $(seq "$N"); do for m in off auto cpu-sim; do
    rm -rf "$W/o"; mkdir -p "$W/o"
    t0=$(date +%s.%N)
    "$B" -r "$W/small.pcap" -S "$RULES" -k none -l "$W/o" --no-progress --gpu $m \
        --gpu-cache "$CACHE" >"$W/run-$m.log" 2>&1
    t1=$(date +%s.%N)
    echo "$m $(python3 -c "print($t1 - $t0)")"
done; done >"$W/times.txt"
python3 - "$W/times.txt" <<'PY'
import statistics, sys
t = {}
for line in open(sys.argv[1]):
    m, s = line.split()
    t.setdefault(m, []).append(float(s))
med = {m: statistics.median(v) for m, v in t.items()}
print({m: round(v, 3) for m, v in med.items()},
      "auto-off ms", round((med["auto"] - med["off"]) * 1000, 1),
      "cpu-sim-off ms", round((med["cpu-sim"] - med["off"]) * 1000, 1))
PY
