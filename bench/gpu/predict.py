#!/usr/bin/env python3
"""Predicted H100 kernel-only throughput of each Aho-Corasick kernel version (issue 27
point 5) from `osprey bench gpu --profile-states` JSON, by the model written out in
bench/RESULTS.md ("GPU kernel tuning: the state profile and each version's prediction").

Usage: bench/gpu/predict.py PROFILE.json [BATCH,...]  (payloads per batch, default
2048,16384,65536; the other columns are for the last)

Per source and kernel: the lookups that leave shared memory (`1 - share`) are 32-byte
L2 sectors (the profiled working sets, 0.2-4.2 MB, fit the 50 MB L2: DRAM is touched
once); a warp step waits for its slowest lane, so the step latency is the L2 latency in
the share `g` of steps with a lookup outside shared memory, else a shared-memory access.
Kernel time = max(latency chain, L2 bandwidth, shared-memory bandwidth, instruction issue).
"""
import json
import sys

SMS, CLOCK = 132, 1.755e9           # H100 SXM5 SMs, sustained clock (Hz)
L2_NS, SHARED_NS = 150.0, 17.0      # L2 hit ~260 cycles, shared memory ~30 cycles
ALU_NS = 23.0                       # the step's dependent ALU chain: ~8 instructions x ~5 cycles
L2_BW = 5.5e12                      # bytes/s, L2 to SMs
CONFLICT = 4                        # shared-memory wavefronts per warp lookup (32 random rows:
                                    # the bank is set by the byte, ~4-way conflicts)
INSTR = {"thread": 12, "hot": 18, "hot16": 22}   # instructions per lookup (PTX count, rough)

def predict(lookups, steps, share, g, instr):
    """Seconds for `lookups` in warps of `steps` dependent steps each."""
    lat = steps * (g * L2_NS + (1 - g) * SHARED_NS + ALU_NS) * 1e-9
    bw = lookups * (1 - share) * 32 / L2_BW
    issue = lookups * instr / 32 / (SMS * 4 * CLOCK)
    shared = lookups * share / 32 * CONFLICT / (SMS * CLOCK)
    return max(lat, bw, issue, shared), lat, bw, max(issue, shared)

def main():
    prof = json.load(open(sys.argv[1]))
    batches = [int(b) for b in (sys.argv[2] if len(sys.argv) > 2 else "2048,16384,65536").split(",")]
    batch = batches[-1]
    print("| payloads | kernel | shared rows | lookups in shared | warp steps to L2 | "
          "L2 MB/batch | latency ms | L2 bw ms | issue/shared ms | predicted Gbit/s at "
          + " / ".join(f"{b:,}" for b in batches) + " |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for src in prof["sources"]:
        mean = src["mean_payload"]
        lookups = batch * mean
        # Steps of a warp: its longest payload (measured: warp steps per warp).
        steps = src["warp_steps"] / -(-src["packets"] // 32)
        name = src["source"].split("/")[-1].split(" ")[0]
        versions = [("packet-per-thread (all L2)", 0, 0.0, 1.0, "thread")]
        for b in src["budgets"]:
            if b["shared_kib"] == 228:
                kind = "hot" if b["entry_bits"] == 32 else "hot16"
                versions.append((f"{kind}-227k, shallowest", b["rows"],
                                 b["shallowest_share"], b["warp_steps_global_share"], kind))
                versions.append((f"{kind}-227k, hot-first", b["rows"],
                                 b["hottest_share_second_half"],
                                 b.get("hottest_warp_steps_global_share", 1.0), kind))
        for label, rows, share, g, kind in versions:
            t, lat, bw, issue = predict(lookups, steps, share, g, INSTR[kind])
            rates = []
            for n in batches:
                tn = predict(n * mean, steps, share, g, INSTR[kind])[0]
                rates.append(f"{n * mean * 8 / tn / 1e9:.0f}")
            print(f"| {name} | {label} | {rows} | {share:.1%} | {g:.1%} | "
                  f"{lookups * (1 - share) * 32 / 1e6:.0f} | {lat * 1e3:.3f} | {bw * 1e3:.3f} | "
                  f"{issue * 1e3:.3f} | {' / '.join(rates)} |")

if __name__ == "__main__":
    main()
