#!/usr/bin/env bash
# The CPU cost of the offload path without a GPU (issue 27 point 2; bench/RESULTS.md,
# "One feeder per GPU"): a capture run with `--gpu off`, `auto`, `cpu-sim` (the measured
# policy) and `cpu-sim --gpu-policy always` at each worker count, each run's user+system
# CPU seconds and wall time (GNU time), its alerts compared with `off`'s, and the
# dispatcher's counters. The GPU set-up cache is warmed first (`--gpu-setup wait`).
# Usage: bench/gpu/cpu_cost.sh OSPREY RULES PCAP WORKDIR ["1 2 4"] [ROUNDS]
# Output: one line per run on stdout: mode workers round cpu_s wall_s alerts same
#   cycles_gpu setup_pending gpu_batches device_batches merged overlap waits
set -u
B=$1; RULES=$2; PCAP=$3; W=$4; WORKERS=${5:-"1 2 4"}; ROUNDS=${6:-1}
mkdir -p "$W"
CACHE=$W/cache
mkdir -p "$W/warm"
"$B" -r "$PCAP" -S "$RULES" -k none -l "$W/warm" --no-progress --gpu cpu-sim \
    --gpu-setup wait --gpu-cache "$CACHE" >"$W/warm.log" 2>&1
count() { grep -c '"event_type":"alert"' "$1/eve.json" 2>/dev/null || echo 0; }
sorted() { python3 - "$1/eve.json" <<'PY'
import hashlib, json, sys
v = []
for l in open(sys.argv[1]):
    e = json.loads(l)
    if e.get("event_type") == "alert":
        v.append((e["alert"]["signature_id"], e.get("pcap_cnt", 0), e["src_ip"], e["dest_ip"]))
print(len(v), hashlib.sha256(repr(sorted(v)).encode()).hexdigest()[:16])
PY
}
gpu() { python3 - "$1/stats.json" "$2" <<'PY'
import json, sys
try:
    s = json.load(open(sys.argv[1]))
    g = s.get("osprey", {}).get("gpu", {})
except Exception:
    g = {}
print(" ".join(str(g.get(k, 0)) for k in sys.argv[2].split(",")))
PY
}
for r in $(seq "$ROUNDS"); do
  for n in $WORKERS; do
    ref=""
    for m in off auto cpu-sim always; do
      case $m in
        always) args=(--gpu cpu-sim --gpu-policy always) ;;
        *) args=(--gpu "$m") ;;
      esac
      d=$W/run-$m-$n-$r; rm -rf "$d"; mkdir -p "$d"
      /usr/bin/time -f "%U %S %e" -o "$d/time" "$B" -r "$PCAP" -S "$RULES" -k none -l "$d" \
          --no-progress --threads "$n" --gpu-cache "$CACHE" "${args[@]}" >"$d/log" 2>&1
      read -r u s e <"$d/time"
      a=$(sorted "$d")
      [ "$m" = off ] && ref=$a
      same=$([ "$a" = "$ref" ] && echo yes || echo NO)
      c=$(gpu "$d" cycles_gpu,setup_pending,batches,dispatch_device_batches,dispatch_merged_requests,overlap_packets,result_waits)
      echo "$m $n $r $(python3 -c "print(round($u + $s, 2))") $e ${a%% *} $same $c"
    done
  done
done
