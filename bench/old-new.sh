#!/usr/bin/env bash
# Interleaved old/new engine benchmark: does a change slow packet processing down?
#
#   bench/old-new.sh OLD_OSPREY NEW_OSPREY [PAIRS] [RUNS]
#
# Runs `osprey bench engine --pcap ../shared/pcaps/sv-ether.pcap --rules <ET Open
# emerging-*.rules> --threads 1 --runs RUNS --json` with OLD then NEW, PAIRS times
# (default 5, RUNS default 3), and prints each pair's median processing time, the ratio
# new/old, and the median of the ratios. Both binaries see the same machine state within
# a pair, so the ratio is the figure to quote (the machines are shared and noisy).
set -euo pipefail
old=${1:?old osprey binary}
new=${2:?new osprey binary}
pairs=${3:-5}
runs=${4:-3}
here=$(cd "$(dirname "$0")/.." && pwd)
shared=${OSPREY_SHARED:-$here/../shared}
pcap=$shared/pcaps/sv-ether.pcap
rules=("$shared"/rules/et-open/emerging-*.rules)
median() { python3 -c 'import json,sys; print(json.load(sys.stdin)["median_s"])'; }
ratios=()
for i in $(seq 1 "$pairs"); do
  o=$("$old" bench engine --pcap "$pcap" --rules "${rules[@]}" --threads 1 --runs "$runs" --json 2>/dev/null | median)
  n=$("$new" bench engine --pcap "$pcap" --rules "${rules[@]}" --threads 1 --runs "$runs" --json 2>/dev/null | median)
  r=$(python3 -c "print(f'{$n/$o:.3f}')")
  ratios+=("$r")
  echo "pair $i: old ${o}s new ${n}s new/old ${r}x"
done
python3 -c "import statistics,sys; print('median new/old:', f'{statistics.median(map(float, sys.argv[1:])):.3f}x')" "${ratios[@]}"
