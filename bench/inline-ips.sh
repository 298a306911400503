#!/usr/bin/env bash
# Throughput of Osprey's live inline IPS (--af-packet-ips) against passive capture (-i)
# and the kernel alone, with iperf3 TCP through three network namespaces:
#
#   client (c0) ── veth ── (b0) bridge namespace (b1) ── veth ── (s0) server
#
#   kernel   b0 and b1 joined by a Linux bridge, no Osprey: what the path can carry;
#   passive  the same Linux bridge, Osprey reading b0 passively (-i b0): the traffic does
#            not wait for Osprey, which may drop from its ring (capture.kernel_drops);
#   inline   no Linux bridge: Osprey forwards between b0 and b1 (--af-packet-ips b0:b1),
#            each frame after its verdict.
#
# Besides the throughput iperf3 measures: the median time of a one-byte TCP request and
# its echo (200 exchanges on one connection, TCP_NODELAY), and the packets Osprey inspected per second
# (decoder.pkts / SECONDS) are reported: passively Osprey inspects what it can and the
# kernel ring drops the rest; inline, nothing passes uninspected, so the traffic slows to
# Osprey's inspection rate. On veth the receiving end's TCP stack runs in the sender's
# context, so the inline worker's send() also pays for the server's receive path.
#
# Offloads are off on every interface (as an inline bridge needs), so every mode moves
# MTU-sized frames. Modes run interleaved, ROUNDS times each; the median is reported.
#
# Usage: bench/inline-ips.sh [ROUNDS] [SECONDS]     (default 3 rounds of 10 s)
# Environment: OSPREY (binary; default target/release/osprey), RULES (rule file; default
#              ET Open, every emerging-*.rules of ../shared/rules/et-open), THREADS (Osprey
#              workers, default 1). Needs root, iproute2, ethtool, iperf3, python3.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SHARED=${SHARED:-$ROOT/../shared}
ROUNDS=${1:-3}
SECS=${2:-10}
THREADS=${THREADS:-1}
OSPREY=${OSPREY:-$ROOT/target/release/osprey}
WORK=$(mktemp -d /tmp/osprey-inline.XXXXXX)
if [ -z "${RULES:-}" ]; then
  RULES=$WORK/et-all.rules
  cat "$SHARED"/rules/et-open/emerging-*.rules > "$RULES"
fi
for tool in ip ethtool iperf3 python3; do
  command -v $tool >/dev/null || { echo "$tool is needed" >&2; exit 1; }
done
[ -x "$OSPREY" ] || { echo "no binary at $OSPREY (cargo build --release -p osprey)" >&2; exit 1; }

S=$$
C=oib-c-$S; B=oib-b-$S; V=oib-s-$S
cleanup() {
  [ -n "${OPID:-}" ] && kill -INT "$OPID" 2>/dev/null || true
  ip netns pids "$V" 2>/dev/null | xargs -r kill 2>/dev/null || true
  ip netns del $C 2>/dev/null || true; ip netns del $B 2>/dev/null || true
  ip netns del $V 2>/dev/null || true
}
trap cleanup EXIT
ip netns add $C; ip netns add $B; ip netns add $V
ip link add c0 netns $C type veth peer name b0 netns $B
ip link add s0 netns $V type veth peer name b1 netns $B
ip -n $C addr add 10.214.0.1/24 dev c0
ip -n $V addr add 10.214.0.2/24 dev s0
for x in "$C c0" "$B b0" "$B b1" "$V s0"; do
  set -- $x
  ip -n "$1" link set "$2" up
  ip netns exec "$1" ethtool -K "$2" tx off rx off gro off gso off tso off >/dev/null
done
ip -n $C link set lo up; ip -n $V link set lo up
ip netns exec $V iperf3 -s -D >/dev/null
# Echo server for the request/response latency (one byte each way, TCP_NODELAY).
ip netns exec $V python3 -c '
import socket
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("10.214.0.2", 7007)); s.listen(4)
while True:
    c, _ = s.accept(); c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    while (d := c.recv(64)):
        c.sendall(d)
    c.close()
' >/dev/null 2>&1 &

bridge_up() {
  ip -n $B link add br0 type bridge
  ip -n $B link set b0 master br0; ip -n $B link set b1 master br0
  ip -n $B link set br0 up
}
bridge_down() { ip -n $B link del br0 2>/dev/null || true; }

start_osprey() { # args...
  local log=$WORK/osprey.err
  : > "$log"
  ip netns exec $B "$OSPREY" "$@" -S "$RULES" -l "$WORK/out" -k none --threads "$THREADS" \
    --no-progress --gpu off > "$WORK/osprey.out" 2> "$log" &
  OPID=$!
  for _ in $(seq 600); do
    grep -q "capturing on" "$log" && break
    sleep 0.1
  done
  sleep 1
}
stop_osprey() {
  kill -INT "$OPID"; wait "$OPID" || true; OPID=
}

iperf() { # prints Gbit/s received by the server
  ip netns exec $C iperf3 -c 10.214.0.2 -t "$SECS" -J 2>/dev/null |
    python3 -c 'import json,sys; d=json.load(sys.stdin); print("%.3f" % (d["end"]["sum_received"]["bits_per_second"]/1e9))'
}

rr() { # median request/response time in ms over 200 exchanges
  ip netns exec $C python3 -c '
import socket, time
c = socket.create_connection(("10.214.0.2", 7007), timeout=3)
c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
ts = []
for _ in range(200):
    t = time.perf_counter(); c.sendall(b"x"); c.recv(64); ts.append(time.perf_counter() - t)
print("%.3f" % (sorted(ts)[100] * 1e3))'
}

stat() { # stats.json counter by dotted path
  python3 - "$WORK/out/stats.json" "$1" <<'EOF'
import json, sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."):
    v = v.get(k, {}) if isinstance(v, dict) else {}
print(v if isinstance(v, int) else 0)
EOF
}

mkdir -p "$WORK/out"
declare -A R P L
echo "rules: $(grep -c '^alert\|^drop\|^reject\|^pass' "$RULES") lines of $RULES; $ROUNDS rounds x $SECS s; Osprey $THREADS worker(s); load: $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq "$ROUNDS"); do
  bridge_up
  R[kernel]+="$(iperf) "
  L[kernel]+="$(rr) "
  start_osprey -i b0
  g=$(iperf); L[passive]+="$(rr) "; stop_osprey
  R[passive]+="$g "
  P[passive]+="$(python3 -c "print('%.1f' % ($(stat decoder.pkts)/$SECS/1e3))") "
  echo "round $r passive: decoder.pkts=$(stat decoder.pkts) capture.kernel_packets=$(stat capture.kernel_packets) capture.kernel_drops=$(stat capture.kernel_drops)"
  bridge_down
  start_osprey --af-packet-ips b0:b1
  g=$(iperf); L[inline]+="$(rr) "; stop_osprey
  R[inline]+="$g "
  P[inline]+="$(python3 -c "print('%.1f' % ($(stat decoder.pkts)/$SECS/1e3))") "
  echo "round $r inline: decoder.pkts=$(stat decoder.pkts) osprey.inline.forwarded=$(stat osprey.inline.forwarded) capture.kernel_drops=$(stat capture.kernel_drops) osprey.inline.forward_errors=$(stat osprey.inline.forward_errors) ips.blocked=$(stat ips.blocked)"
done
median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
k=$(echo "${R[kernel]}" | median); p=$(echo "${R[passive]}" | median); i=$(echo "${R[inline]}" | median)
echo "| mode | Gbit/s (runs) | median | vs kernel | packets inspected, kpps (runs) | request/response ms (runs) |"
echo "|---|---|---|---|---|---|"
for m in kernel passive inline; do
  med=$(echo "${R[$m]}" | median)
  echo "| $m | ${R[$m]}| $med | $(python3 -c "print('%.2f' % ($med/$k))") | ${P[$m]:--} | ${L[$m]}|"
done
echo "inline / passive: $(python3 -c "print('%.2f' % ($i/$p))")"
