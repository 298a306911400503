#!/usr/bin/env bash
# Catastrophic-backtracking regexes against Suricata (issue 30 point 1): one capture of
# UDP payloads `a`x1400 + `b` (100 packets) and one of a 30 KB payload, three rules
# around `pcre:"/(a+)+$/R"`, timed side by side.
# Usage: bench/redos.sh [OSPREY_BINARY]   (Suricata from PATH; results in bench/RESULTS.md)
set -euo pipefail
osprey=${1:-target/release/osprey}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 - "$dir" <<'PY'
import struct, sys
d = sys.argv[1]
def csum(b):
    if len(b) % 2: b += b'\0'
    s = sum(struct.unpack('!%dH' % (len(b) // 2), b)); s = (s >> 16) + (s & 0xffff); s += s >> 16
    return (~s) & 0xffff
def frame(payload):
    udp = struct.pack('!HHHH', 1234, 5555, 8 + len(payload), 0) + payload
    ip = struct.pack('!BBHHHBBH4s4s', 0x45, 0, 20 + len(udp), 1, 0, 64, 17, 0, bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2]))
    ip = ip[:10] + struct.pack('!H', csum(ip)) + ip[12:]
    return b'\0\x11\x22\x33\x44\x55\x66\x77\x88\x99\xaa\xbb\x08\x00' + ip + udp
def write(name, payloads):
    with open(f'{d}/{name}', 'wb') as f:
        f.write(struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for i, p in enumerate(payloads):
            fr = frame(p)
            f.write(struct.pack('<IIII', 1000 + i, 0, len(fr), len(fr)) + fr)
write('small.pcap', [b'a' * 1400 + b'b'] * 100)
write('big.pcap', [b'a' * 30000 + b'b'])
open(f'{d}/r.rules', 'w').write(
    'alert udp any any -> any any (msg:"pos"; content:"a"; pcre:"/(a+)+$/R"; sid:1;)\n'
    'alert udp any any -> any any (msg:"neg"; content:"a"; pcre:!"/(a+)+$/R"; sid:2;)\n'
    'alert udp any any -> any any (msg:"cheap"; content:"a"; pcre:"/a+b$/R"; sid:3;)\n')
PY
for cap in small big; do
  for who in osprey suricata; do
    mkdir -p "$dir/$who-$cap"
    if [ "$who" = osprey ]; then cmd=("$osprey"); else cmd=(suricata -c /etc/suricata/suricata.yaml --runmode single); fi
    /usr/bin/time -o "$dir/time" -f "%U %S" "${cmd[@]}" -r "$dir/$cap.pcap" -S "$dir/r.rules" -k none -l "$dir/$who-$cap" >/dev/null 2>&1
    t=$(tail -1 "$dir/time")
    alerts=$(wc -l < "$dir/$who-$cap/fast.log")
    printf '%-5s %-8s cpu %5.2f s  alerts %s\n' "$cap" "$who" "$(echo "$t" | awk '{print $1+$2}')" "$alerts"
  done
done
