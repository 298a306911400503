#!/usr/bin/env bash
# Everything a lent GPU machine should run, in one call (issues 27 and 29): the GPU
# offload script (bench/gpu/run.sh) and the scaling script (bench/scale/run.sh), from one
# compressed carry.
#
#   bench/device.sh pack [RULES]   on the CPU machine: builds the release binary and the
#                                  GPU crate's test binaries (bench/gpu/pack.sh), copies
#                                  Suricata self-contained (bench/scale/run.sh prepare) and
#                                  libmagic's database, and packs them into
#                                  .carry/all.tar.xz (git-ignored, about 16 MB; the device
#                                  tool's limit is 64 MiB with the working tree).
#   bench/device.sh run            on the device, as run(carry: [".carry"], command:
#                                  "bash bench/device.sh run", timeout_s: 590): unpacks,
#                                  supplies the shared libraries the device lacks (libpcap,
#                                  libdbus: copied from Suricata's carried set, never its
#                                  libc), runs both scripts with time limits (GT, ST
#                                  seconds) and leaves results.tgz, e2e.md, scale.md and
#                                  bench-gpu.json in $OUT.
#
# Environment for run: BATCHES, SIZES (the `bench gpu` grid), WORKERS (GPU e2e),
# SCALE_WORKERS, TRAFFIC (scaling), GT (default 300), ST (default 260).
# RULES for pack: default /tmp/et-all.rules (made from ../shared/rules/et-open/emerging-*.rules
# when missing).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)

pack() {
    local rules=${1:-/tmp/et-all.rules} stage
    [ -e "$rules" ] || cat "$ROOT"/../shared/rules/et-open/emerging-*.rules >"$rules"
    bash "$ROOT/bench/gpu/pack.sh" "$rules" || exit 1
    RULES=$rules bash "$ROOT/bench/scale/run.sh" prepare || exit 1
    stage=$(mktemp -d)
    mkdir -p "$stage/gpu/tests" "$stage/scale"
    cp "$ROOT"/bench/gpu/carry/osprey "$ROOT"/bench/gpu/carry/rules.gz "$stage/gpu/"
    # The CPU executor's test runs in CI; the device runs the device and NVRTC tests.
    for t in device ptx; do cp "$ROOT/bench/gpu/carry/tests/$t" "$stage/gpu/tests/"; done
    cp -r "$ROOT"/bench/scale/carry/{suricata,lib,etc} "$stage/scale/"
    ln "$stage/gpu/rules.gz" "$stage/scale/et.rules.gz"
    cp -L /usr/share/misc/magic.mgc "$stage/magic.mgc"
    mkdir -p "$ROOT/.carry"
    tar -C "$stage" -cf - . | xz -T0 -6 >"$ROOT/.carry/all.tar.xz"
    rm -rf "$stage"
    du -h "$ROOT/.carry/all.tar.xz"
}

run() {
    local t0 c=/tmp/osprey-carry g=/tmp/out-gpu s=/tmp/out-scale i l
    t0=$(date +%s)
    OUT=${OUT:-$PWD/device-out}
    mkdir -p "$c" "$OUT" && tar -xJf "$ROOT/.carry/all.tar.xz" -C "$c" || exit 1
    export MAGIC=$c/magic.mgc LD_LIBRARY_PATH=$c/osplib
    mkdir -p "$c/osplib"
    for i in 1 2 3 4; do
        for l in $(ldd "$c/gpu/osprey" | awk '/not found/{print $1}'); do
            cp -L "$c/scale/lib/$l" "$c/osplib/"
        done
    done
    echo "libraries supplied: $(ls "$c/osplib" | tr '\n' ' ')"
    ldd "$c/gpu/osprey" | grep "not found"
    echo "$(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
    nvidia-smi -L
    "$c/gpu/osprey" --version
    rm -rf "$g" "$s" && mkdir -p "$g" "$s"
    (cd "$ROOT" && CARRY=$c/gpu OUT=$g BATCHES=${BATCHES:-2048,16384,65536} \
        SIZES=${SIZES:-64,512,1514} timeout "${GT:-300}" bash bench/gpu/run.sh) 2>&1 | tail -30
    echo "=== GPU part done at $(($(date +%s) - t0)) s"
    (cd "$ROOT" && CARRY=$c/scale OSPREY=$c/gpu/osprey OUT=$s WORKERS=${SCALE_WORKERS:-1 2 4 8 16} \
        timeout "${ST:-260}" bash bench/scale/run.sh run) 2>&1 | tail -20
    echo "=== scaling part done at $(($(date +%s) - t0)) s"
    tar -C /tmp -czf "$OUT/results.tgz" out-gpu out-scale
    cp "$g/e2e.md" "$g/bench-gpu.json" "$s/scale.md" "$OUT/" 2>/dev/null
    echo "=== total $(($(date +%s) - t0)) s"
}

case "${1:-}" in
pack) shift; pack "$@" ;;
run) run ;;
*) echo "usage: $0 pack [RULES] | run" >&2; exit 2 ;;
esac
