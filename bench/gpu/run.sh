#!/usr/bin/env bash
# The one device script of issue 27 (point 6): on the device machine, with what
# bench/gpu/pack.sh put in bench/gpu/carry/, in one call of under 8 minutes:
#   1. the device: nvidia-smi;
#   2. the GPU crate's device and NVRTC tests (OSPREY_REQUIRE_GPU=1: a skip fails);
#   3. traffic generated on the device (`osprey gen`, the issue's capture);
#   4. `osprey bench gpu` (kernel-only and end-to-end AC and DFA throughput, every kernel
#      version of issue 27 point 5: thread and warp per packet, hot rows in 48/100/227 KiB
#      of shared memory, 16-bit shared rows) -> bench-gpu.json; the same kernels over the
#      generated capture's own payloads -> bench-gpu-pcap.json; both summed up per kernel
#      at the largest batch -> kernels.md;
#   5. the end-to-end table: --gpu off / auto / on at 1, 2, 4 and 16 workers, wall time,
#      alerts (each GPU run's alerts compared with --gpu off's) and the GPU counters ->
#      e2e.json, e2e.md, and e2e.png when matplotlib is there (else a message); the
#      packet time of each run (its summary's `time:`) beside the wall time.
# Everything goes to $OUT (default ./gpu-out).
#
# Usage: bench/gpu/run.sh [--dry]
#   --dry: tiny sizes and the CPU executor (--gpu cpu-sim for `on`, `--backend cpu-sim`),
#   no device tests: what can be checked on a machine without a GPU, in seconds.
# Environment: CARRY (default bench/gpu/carry), OSPREY (default $CARRY/osprey),
#   RULES (default: $CARRY/rules.gz unpacked), WORKERS (default "1 2 4 16"), BATCHES and
#   SIZES (the `bench gpu` grid, comma-separated; default 2048,65536 x 512,1514),
#   KERNELS (default every version), PCAP_KERNELS and PCAP_BATCHES (the capture's
#   payloads; default thread, hot-227k, hot16-227k at 65,536), MODES (the end-to-end runs, default
#   "off auto on"; `on-late` is `--gpu on --gpu-late cpu`, `cpu-sim-late` likewise:
#   workers that never wait for the device).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DRY=0
[ "${1:-}" = "--dry" ] && DRY=1
CARRY=${CARRY:-$ROOT/bench/gpu/carry}
OSPREY=${OSPREY:-$CARRY/osprey}
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
WORK=$(mktemp -d /tmp/osprey-gpu.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
START=$(date +%s)
log() { echo "[$(($(date +%s) - START)) s] $*" | tee -a "$OUT/run.log"; }
if [ -z "${RULES:-}" ]; then
    RULES=$WORK/rules.rules
    gzip -dc "$CARRY/rules.gz" >"$RULES" || { log "no rules: $CARRY/rules.gz"; exit 1; }
fi
if [ "$DRY" = 1 ]; then
    PACKETS=5000 FLOWS=100 WORKERS="1 2" MODES=${MODES:-off auto cpu-sim}
    BENCH=(--batch-sizes 64,512 --packet-sizes 64,1514 --seconds 0.01 --backend cpu-sim)
    PCAP_BENCH=(--batch-sizes 64,512 --seconds 0.01 --backend cpu-sim)
else
    PACKETS=2500000 FLOWS=20000 WORKERS=${WORKERS:-1 2 4 16} MODES=${MODES:-off auto on}
    # 7 kernel versions x 2 widths + 5 hot-first: 19 device set-ups; the grid kept small
    # so that the whole script stays under 8 minutes.
    BENCH=(--batch-sizes "${BATCHES:-2048,65536}"
        --packet-sizes "${SIZES:-512,1514}" --seconds 0.05)
    PCAP_BENCH=(--batch-sizes "${PCAP_BATCHES:-65536}" --seconds 0.05)
fi
KERNELS=${KERNELS:-packet-per-thread,packet-per-block-32,hot-48k,hot-100k,hot-227k,hot16-100k,hot16-227k}
PCAP_KERNELS=${PCAP_KERNELS:-packet-per-thread,hot-227k,hot16-227k}

# 1. The device.
if [ "$DRY" = 0 ]; then
    nvidia-smi >"$OUT/device.txt" 2>&1 || log "nvidia-smi failed"
fi

# 2. Device tests.
if [ "$DRY" = 0 ]; then
    for t in "$CARRY"/tests/*; do
        [ -x "$t" ] || continue
        if OSPREY_REQUIRE_GPU=1 OSPREY_REQUIRE_NVRTC=1 timeout 90 "$t" >"$OUT/test-$(basename "$t").log" 2>&1; then
            log "test $(basename "$t"): ok"
        else
            log "test $(basename "$t"): FAILED (see test-$(basename "$t").log)"
        fi
    done
fi

# 3. Traffic.
PCAP=$WORK/big.pcap
timeout 120 "$OSPREY" gen -o "$PCAP" --rules "$RULES" --flows "$FLOWS" --packets "$PACKETS" \
    --size 1514 --attack-fraction 0.02 --seed 7 >"$OUT/gen.log" 2>&1 || { log "gen failed"; exit 1; }
log "generated: $(tail -1 "$OUT/gen.log")"

# 4. Kernel and transfer throughput.
timeout 200 "$OSPREY" bench gpu --rules "$RULES" "${BENCH[@]}" --kernel "$KERNELS" >"$OUT/bench-gpu.json" 2>"$OUT/bench-gpu.log" &&
    log "bench gpu: $(python3 -c 'import json,sys; v=json.load(open(sys.argv[1])); print(v["executor"]["kind"], len(v["points"]), "points")' "$OUT/bench-gpu.json")" ||
    log "bench gpu failed (bench-gpu.log)"
timeout 120 "$OSPREY" bench gpu --rules "$RULES" --pcap "$PCAP" "${PCAP_BENCH[@]}" --kernel "$PCAP_KERNELS" \
    >"$OUT/bench-gpu-pcap.json" 2>"$OUT/bench-gpu-pcap.log" &&
    log "bench gpu over the capture's payloads: $(python3 -c 'import json,sys; v=json.load(open(sys.argv[1])); print(len(v["points"]), "points")' "$OUT/bench-gpu-pcap.json")" ||
    log "bench gpu --pcap failed (bench-gpu-pcap.log)"
# Per kernel version and table width, the largest batch: kernel-only and end-to-end Gbit/s.
python3 - "$OUT" <<'PY' || log "kernels.md failed"
import json, os, sys
out = sys.argv[1]
lines = ["| payloads | kernel | bits | state order | shared rows | shared KiB | batch | kernel Gbit/s | e2e Gbit/s | device e2e Gbit/s | matches/payload | overflowed | dispatcher host us/batch | host bytes/batch |",
         "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
for name, label in (("bench-gpu.json", "synthetic 1514 B"), ("bench-gpu-pcap.json", "capture")):
    try:
        pts = json.load(open(os.path.join(out, name)))["points"]
    except Exception:
        continue
    ac = [p for p in pts if p["kernel"] == "ac" and p["packet_size"] in (1514, 0)]
    if not ac:
        continue
    big = max(p["batch"] for p in ac)
    for p in ac:
        if p["batch"] != big:
            continue
        f = lambda v: "-" if v is None else f"{v:.1f}"
        lines.append(f"| {label} | {p['layout']} | {p['width']} | {p.get('order', 'bfs')} | {p.get('shared_rows', 0)} | "
                     f"{p.get('shared_bytes', 0) / 1024:.0f} | {p['batch']} | {f(p['kernel_gbps'])} | "
                     f"{f(p['e2e_gbps'])} | {f(p['device_e2e_gbps'])} | {p['matches_per_packet']:.1f} | {p['overflowed']} | "
                     f"{f(p.get('dispatch_host_s', 0) * 1e6)} | {p.get('dispatch_host_copy_bytes', '-')} |")
open(os.path.join(out, "kernels.md"), "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY

# 5. End to end. The set-up cache is filled first (a cold cache is paid once per rule
# set and GPU), then a short capture measures what `--gpu auto` adds to it (issue: at
# most 20 ms), median of 3 runs each.
CACHE=$WORK/gpu-cache
SMALL=$WORK/small.pcap
"$OSPREY" gen -o "$SMALL" --rules "$RULES" --flows 50 --packets 2000 --size 1514 \
    --attack-fraction 0.02 --seed 8 >/dev/null 2>&1
ON=on
[ "$DRY" = 1 ] && ON=cpu-sim
mkdir -p "$WORK/warm"
timeout 120 "$OSPREY" -r "$SMALL" -S "$RULES" -k none -l "$WORK/warm" --no-progress --gpu "$ON" \
    --gpu-setup wait --gpu-cache "$CACHE" >"$OUT/warm.log" 2>&1 || log "cache warm-up failed (warm.log)"
for mode in off auto; do
    for i in 1 2 3; do
        mkdir -p "$WORK/short-$mode-$i"
        t0=$(date +%s.%N)
        timeout 60 "$OSPREY" -r "$SMALL" -S "$RULES" -k none -l "$WORK/short-$mode-$i" --no-progress \
            --gpu "$mode" --gpu-cache "$CACHE" >/dev/null 2>&1
        t1=$(date +%s.%N)
        echo "$mode $(python3 -c "print($t1 - $t0)")"
    done
done >"$OUT/short.txt"
python3 - "$OUT" <<'PY'
import json, statistics, sys
out = sys.argv[1]
t = {}
for line in open(f"{out}/short.txt"):
    m, s = line.split()
    t.setdefault(m, []).append(float(s))
med = {m: statistics.median(v) for m, v in t.items()}
r = {"short_capture_s": med, "auto_adds_ms": round((med["auto"] - med["off"]) * 1000, 1)}
json.dump(r, open(f"{out}/short.json", "w"))
print(r)
PY
log "short capture: $(cat "$OUT/short.json")"
echo -n >"$OUT/e2e.jsonl"
for w in $WORKERS; do
    for mode in $MODES; do
        d=$WORK/e2e-$w-$mode
        mkdir -p "$d"
        t0=$(date +%s.%N)
        case $mode in
            *-late) gpu=(--gpu "${mode%-late}" --gpu-late cpu) ;;
            *) gpu=(--gpu "$mode") ;;
        esac
        timeout 120 "$OSPREY" -r "$PCAP" -S "$RULES" -k none --threads "$w" -l "$d" --no-progress \
            "${gpu[@]}" --gpu-cache "$CACHE" >"$d/out.log" 2>&1
        rc=$?
        t1=$(date +%s.%N)
        python3 - "$d" "$w" "$mode" "$rc" "$t0" "$t1" >>"$OUT/e2e.jsonl" <<'PY'
import json, sys
d, w, mode, rc, t0, t1 = sys.argv[1:]
alerts = sorted(
    (e["alert"]["signature_id"], e.get("pcap_cnt", 0))
    for e in map(json.loads, open(f"{d}/eve.json", errors="replace"))
    if e.get("event_type") == "alert") if rc == "0" else []
try:
    g = json.load(open(f"{d}/stats.json")).get("osprey", {}).get("gpu", {})
except Exception:
    g = {}
import re
m = re.findall(r"time: ([0-9.]+) s", open(f"{d}/out.log", errors="replace").read())
json.dump(alerts, open(f"{d}/alerts.json", "w"))
print(json.dumps({"workers": int(w), "gpu": mode, "rc": int(rc),
                  "wall_s": round(float(t1) - float(t0), 3), "packet_s": float(m[-1]) if m else None,
                  "alerts": len(alerts), "gpu_counters": g}))
PY
        log "workers $w --gpu $mode: rc $rc, $(tail -1 "$OUT/e2e.jsonl" | python3 -c 'import json,sys; r=json.load(sys.stdin); print(r["wall_s"], "s,", r["alerts"], "alerts")')"
    done
done

# The table (alerts compared with --gpu off at the same worker count) and the chart.
python3 - "$OUT" "$WORK" <<'PY'
import json, sys
out, work = sys.argv[1:]
rows = [json.loads(l) for l in open(f"{out}/e2e.jsonl")]
base = {r["workers"]: r for r in rows if r["gpu"] == "off"}
lines = ["| workers | --gpu | wall s | vs off | packet s | alerts | = off | GPU cycles | CPU-only decisions | GPU lost ms | gave up | setup ms | device batches | merged requests | overlap packets | result waits | wait ms | KB in | KB out | dispatcher host ms | host KB | unstaged |",
         "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
for r in rows:
    b = base.get(r["workers"])
    same = json.load(open(f"{work}/e2e-{r['workers']}-{r['gpu']}/alerts.json")) == \
        json.load(open(f"{work}/e2e-{r['workers']}-off/alerts.json")) if b else None
    r["alerts_equal_off"] = same
    r["speed_vs_off"] = round(b["wall_s"] / r["wall_s"], 3) if b and r["wall_s"] else None
    g = r["gpu_counters"]
    lines.append(f"| {r['workers']} | {r['gpu']} | {r['wall_s']} | {r['speed_vs_off']} | {r['packet_s']} | {r['alerts']} | "
                 f"{same} | {g.get('cycles_gpu', 0)} | {g.get('cost_cpu_only', 0)} | "
                 f"{g.get('cost_lost_us', 0) // 1000} | {g.get('cost_gave_up', 0)} | {g.get('setup_ms', '-')} | "
                 f"{g.get('dispatch_device_batches', 0)} | {g.get('dispatch_merged_requests', 0)} | "
                 f"{g.get('overlap_packets', 0)} | {g.get('result_waits', 0)} | {g.get('result_wait_us', 0) // 1000} | "
                 f"{g.get('dispatch_bytes_h2d', 0) // 1000} | {g.get('dispatch_bytes_d2h', 0) // 1000} | "
                 f"{g.get('dispatch_host_ns', 0) // 1000000} | {g.get('dispatch_host_copy_bytes', 0) // 1000} | "
                 f"{g.get('dispatch_unstaged_requests', 0)} |")
open(f"{out}/e2e.md", "w").write("\n".join(lines) + "\n")
json.dump(rows, open(f"{out}/e2e.json", "w"), indent=1)
print("\n".join(lines))
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    print("matplotlib not installed: no chart (e2e.md and e2e.json have the figures)")
    sys.exit(0)
fig, ax = plt.subplots(figsize=(7, 4))
for mode in sorted({r["gpu"] for r in rows}):
    pts = sorted((r["workers"], r["speed_vs_off"] or 0) for r in rows if r["gpu"] == mode)
    ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=f"--gpu {mode}")
ax.set_xlabel("workers"); ax.set_ylabel("throughput vs --gpu off"); ax.legend(); ax.grid(True)
fig.savefig(f"{out}/e2e.png", dpi=120)
print("chart: e2e.png")
PY
log "done in $(($(date +%s) - START)) s; results in $OUT"
