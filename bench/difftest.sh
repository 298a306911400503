#!/usr/bin/env bash
# The large differential batch (issue 28): CASES generated cases (default 100,000) with a
# new seed each run unless SEED is set, run as batches of CHUNK cases (default 10,000;
# batch k has seed SEED+k): per batch one rule file and one capture, Suricata 7.0.10 run
# twice (a crashing run is retried; cases where the two runs disagree are set aside) and
# Osprey once. Batches, not one file of 100,000 rules: rules without a fast pattern are
# checked on every packet by both engines, so one batch costs rules x packets and ten
# batches of 10,000 cost a tenth of one of 100,000. Every difference is reported by class,
# the first case of each class is written as a minimized corpus-style folder under
# WORK/<seed>/cases/, and the totals go to WORK/summary.txt. The CI batch (5,000 cases,
# seed 28) is `cargo test -p osprey --test difftest`.
#
# Usage: bench/difftest.sh [CASES]
# Environment: OSPREY (binary; default target/release/osprey, built when missing),
#              SEED (default: new each run, printed), CHUNK (cases a batch),
#              WORK (default a new folder under /tmp), MINIMIZE (case folders a batch, 20),
#              FAMILIES (comma-separated families to draw from, e.g. frag,tcpseg,encap,dns,http,httpbuf,tls
#              for the traffic families; default all).
# Exit status: 0 when every difference is listed in tests/parity/KNOWN_DIFFERENCES.md,
# 1 when one is not, 2 on a run error.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CASES=${1:-100000}
CHUNK=${CHUNK:-10000}
OSPREY=${OSPREY:-$ROOT/target/release/osprey}
WORK=${WORK:-$(mktemp -d /tmp/osprey-difftest.XXXXXX)}
MINIMIZE=${MINIMIZE:-20}
FAMILIES=${FAMILIES:-}
SEED=${SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}

command -v suricata >/dev/null || { echo "suricata is not installed" >&2; exit 2; }
if [ ! -x "$OSPREY" ]; then
  (cd "$ROOT" && nice -n 10 cargo build --release -p osprey)
fi
(cd "$ROOT" && nice -n 10 cargo build -q -p difftest)
mkdir -p "$WORK"
echo "difftest: $CASES cases in batches of $CHUNK, seed $SEED, osprey $OSPREY, work $WORK" >&2
start=$(date +%s)
rc=0
left=$CASES
k=0
while [ "$left" -gt 0 ]; do
  n=$(( left < CHUNK ? left : CHUNK ))
  s=$(( SEED + k ))
  set +e
  "$ROOT/target/debug/difftest" --osprey "$OSPREY" --cases "$n" --seed "$s" \
    --out "$WORK/$s" --known "$ROOT/tests/parity/KNOWN_DIFFERENCES.md" --minimize "$MINIMIZE" \
    ${FAMILIES:+--families "$FAMILIES"} > "$WORK/$s.txt"
  r=$?
  set -e
  [ "$r" -gt "$rc" ] && rc=$r
  head -1 "$WORK/$s.txt" >&2
  rm -f "$WORK/$s/batch.pcap" "$WORK/$s"/*/eve.json
  left=$(( left - n ))
  k=$(( k + 1 ))
done
python3 - "$WORK" > "$WORK/summary.txt" <<'PY'
import json, os, sys, collections
w = sys.argv[1]
tot = collections.Counter()
classes = collections.Counter()
first = {}
for d in sorted(os.listdir(w)):
    p = os.path.join(w, d, "summary.json")
    if not os.path.isfile(p):
        continue
    s = json.load(open(p))
    for k in ("cases", "suricata_rejected", "unstable", "compared", "suricata_alerted",
              "agreed", "differences", "unexplained"):
        tot[k] += s[k]
    for c in s["classes"]:
        key = (c["template"], c["kind"], c["known"])
        classes[key] += c["cases"]
        first.setdefault(key, f'seed {s["seed"]} case {c["first_case"]}')
acc = sum(n for (t, k, _), n in classes.items() if k.startswith("osprey-"))
pct = 100.0 * tot["agreed"] / max(tot["compared"], 1)
print(f'{tot["cases"]} cases: Suricata refused {tot["suricata_rejected"]} rules '
      f'({acc} acceptance differences); {tot["unstable"]} unstable between Suricata runs; '
      f'{tot["compared"]} compared ({tot["suricata_alerted"]} with Suricata alerts): '
      f'{tot["agreed"]} agree ({pct:.2f}%); {tot["differences"]} differences, '
      f'{tot["unexplained"]} not known')
for (t, k, known), n in sorted(classes.items()):
    print(f'  {t} {k}: {n} ({first[(t, k, known)]}){" [known]" if known else ""}')
PY
cat "$WORK/summary.txt"
echo "wall: $(( $(date +%s) - start )) s; reproduce: SEED=$SEED OSPREY=$OSPREY bench/difftest.sh $CASES" >&2
exit $rc
