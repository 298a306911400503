#!/usr/bin/env bash
# Prepare what bench/gpu/run.sh carries to the device machine (issue 27, point 6): a
# release binary, the GPU crate's test binaries (release) and the rules, compressed,
# under bench/gpu/carry/ (git-ignored; pass it as the device tool's `carry`). Checks the
# 64 MiB carry limit.
#
# Usage: bench/gpu/pack.sh [RULES]     (default /tmp/et-all.rules)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
RULES=${1:-/tmp/et-all.rules}
CARRY=$ROOT/bench/gpu/carry
rm -rf "$CARRY"
mkdir -p "$CARRY/tests"
cd "$ROOT"
nice -n 10 cargo build --release -p osprey
strip -o "$CARRY/osprey" target/release/osprey
# The GPU crate's integration tests (device.rs needs a GPU; ptx.rs needs NVRTC).
for t in $(nice -n 10 cargo test --release -p gpu --tests --no-run --message-format=json 2>/dev/null |
    python3 -c 'import json,sys
for l in sys.stdin:
    m=json.loads(l)
    if m.get("reason")=="compiler-artifact" and m.get("executable") and m["target"]["kind"]==["test"]:
        print(m["target"]["name"]+"="+m["executable"])'); do
    strip -o "$CARRY/tests/${t%%=*}" "${t#*=}"
done
gzip -9c "$RULES" >"$CARRY/rules.gz"
size=$(du -sb "$CARRY" | cut -f1)
echo "carry: $((size / 1048576)) MiB in $CARRY"
[ "$size" -le $((64 * 1048576)) ] || { echo "over the 64 MiB carry limit" >&2; exit 1; }
