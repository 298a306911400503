#!/usr/bin/env bash
# The large differential batch (issue 28): CASES generated cases (default 100,000) with a
# new seed each run unless SEED is set: one rule file, one capture, Suricata 7.0.10 run
# twice (a crashing run is retried; cases where the two runs disagree are set aside) and
# Osprey once; every difference is reported by class, the first case of each class is
# written as a minimized corpus-style folder under WORK/cases/, and the summary goes to
# WORK/summary.txt and WORK/summary.json. The CI batch (5,000 cases, seed 28) is
# `cargo test -p osprey --test difftest`.
#
# Usage: bench/difftest.sh [CASES]
# Environment: OSPREY (binary; default target/release/osprey, built when missing),
#              SEED (default: new each run, printed), WORK (default a new folder under /tmp),
#              MINIMIZE (case folders written at most; default 60).
# Exit status: 0 when every difference is listed in tests/parity/KNOWN_DIFFERENCES.md,
# 1 when one is not, 2 on a run error.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CASES=${1:-100000}
OSPREY=${OSPREY:-$ROOT/target/release/osprey}
WORK=${WORK:-$(mktemp -d /tmp/osprey-difftest.XXXXXX)}
MINIMIZE=${MINIMIZE:-60}
SEED=${SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}

command -v suricata >/dev/null || { echo "suricata is not installed" >&2; exit 2; }
if [ ! -x "$OSPREY" ]; then
  (cd "$ROOT" && nice -n 10 cargo build --release -p osprey)
fi
(cd "$ROOT" && nice -n 10 cargo build -q -p difftest)
echo "difftest: $CASES cases, seed $SEED, osprey $OSPREY, work $WORK" >&2
start=$(date +%s)
set +e
"$ROOT/target/debug/difftest" --osprey "$OSPREY" --cases "$CASES" --seed "$SEED" \
  --out "$WORK" --known "$ROOT/tests/parity/KNOWN_DIFFERENCES.md" --minimize "$MINIMIZE"
rc=$?
set -e
echo "wall: $(( $(date +%s) - start )) s; reproduce: SEED=$SEED OSPREY=$OSPREY bench/difftest.sh $CASES" >&2
exit $rc
