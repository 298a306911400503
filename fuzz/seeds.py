#!/usr/bin/env python3
"""Builds the fuzz corpora from the repository's own test data. Run from the repository
root; the seeds are checked in and replayed (with mutations) by the crates'
`corpus_replay` tests.

- fuzz/corpus/app_flow/: each TCP or UDP flow of crates/cli/tests/data/*.pcap as one seed
  in the layout `app::fuzzing::drive` reads ([protocol index][transport][dir, len,
  bytes]...), with the protocol its port says.
- fuzz/corpus/frame/: distinct frames of those captures (one per link/IP protocol/port
  pair) in the layout of `wire::fuzzing::decode_frame` ([link][flags] frame).
- fuzz/corpus/rules/: the rules written in detect's, rules' and the binary's tests, each with a payload
  it is meant to inspect, in the layout of `detect::fuzzing::drive` (rule NUL payload)."""
import glob, os, re, struct, hashlib

REG = open('crates/app/src/registry.rs').read()
ORDER = re.findall(r'ProtocolDef \{ proto: (\w+),', REG)
PORTS = {21: 'Ftp', 25: 'Smtp', 53: 'Dns', 69: 'Tftp', 80: 'Http', 88: 'Krb5', 135: 'Dcerpc',
         139: 'Smb', 161: 'Snmp', 162: 'Snmp', 443: 'Tls', 445: 'Smb', 67: 'Dhcp', 68: 'Dhcp',
         1883: 'Mqtt', 2049: 'Nfs', 5060: 'Sip', 22: 'Ssh', 502: 'Modbus', 44818: 'Enip'}
# Ports whose protocol depends on the transport.
UDP_PORTS = {443: 'Quic', 500: 'Ike', 4500: 'Ike'}
MAX_SEED = 8192

def frames(path):
    b = open(path, 'rb').read()
    if len(b) < 24 or b[:4] not in (b'\xd4\xc3\xb2\xa1', b'\x4d\x3c\xb2\xa1'):
        return
    link = struct.unpack('<I', b[20:24])[0]
    at = 24
    while at + 16 <= len(b):
        n = struct.unpack('<I', b[at + 8:at + 12])[0]
        yield link, b[at + 16:at + 16 + n]
        at += 16 + n

def l4(link, f):
    if link != 1 or len(f) < 14:
        return None
    et, off = struct.unpack('!H', f[12:14])[0], 14
    while et == 0x8100 and len(f) >= off + 4:
        et, off = struct.unpack('!H', f[off + 2:off + 4])[0], off + 4
    if et == 0x0800 and len(f) >= off + 20:
        ihl = (f[off] & 15) * 4
        proto, src, dst = f[off + 9], f[off + 12:off + 16], f[off + 16:off + 20]
        p = off + ihl
    elif et == 0x86dd and len(f) >= off + 40:
        proto, src, dst = f[off + 6], f[off + 8:off + 24], f[off + 24:off + 40]
        p = off + 40
    else:
        return None
    if proto == 6 and len(f) >= p + 20:
        sp, dp = struct.unpack('!HH', f[p:p + 4])
        return 'tcp', src, sp, dst, dp, f[p + (f[p + 12] >> 4) * 4:]
    if proto == 17 and len(f) >= p + 8:
        sp, dp = struct.unpack('!HH', f[p:p + 4])
        return 'udp', src, sp, dst, dp, f[p + 8:]
    return None

flows = {}
for path in sorted(glob.glob('crates/cli/tests/data/*.pcap') + glob.glob('crates/cli/tests/data/*/*/*.pcap')):
    for link, f in frames(path):
        r = l4(link, f)
        if not r or not r[5]:
            continue
        t, src, sp, dst, dp, payload = r
        key = (t, min((src, sp), (dst, dp)), max((src, sp), (dst, dp)))
        fl = flows.setdefault(key, {'client': (src, sp), 'transport': t, 'chunks': []})
        d = 0 if (src, sp) == fl['client'] else 1
        fl['chunks'].append((d, payload))

out = 'fuzz/corpus/app_flow'
os.makedirs(out, exist_ok=True)
n = 0
for key, fl in flows.items():
    ports = [key[1][1], key[2][1]]
    table = {**PORTS, **UDP_PORTS} if fl['transport'] == 'udp' else PORTS
    name = next((table[p] for p in ports if p in table), None)
    if name not in ORDER:
        continue
    seed = bytearray([ORDER.index(name), 1 if fl['transport'] == 'udp' else 0])
    for d, payload in fl['chunks']:
        for i in range(0, len(payload), 255):
            c = payload[i:i + 255]
            if len(seed) + 2 + len(c) > MAX_SEED:
                break
            seed += bytes([d, len(c)]) + c
    digest = hashlib.sha1(seed).hexdigest()[:16]
    open(f'{out}/{name.lower()}-{digest}', 'wb').write(seed)
    n += 1
print(n, 'seeds')

# Frames: one per (ethertype, IP protocol, lower port) of the captures, Ethernet only.
out = 'fuzz/corpus/frame'
os.makedirs(out, exist_ok=True)
seen = set()
for path in sorted(glob.glob('crates/cli/tests/data/*.pcap') + glob.glob('crates/cli/tests/data/*/*/*.pcap')):
    for link, f in frames(path):
        if link != 1 or len(f) < 14:
            continue
        r = l4(link, f)
        kind = (f[12:14], r[0] if r else None, min(r[2], r[4]) if r else None)
        if kind in seen:
            continue
        seen.add(kind)
        seed = bytes([0, 0]) + f[:1600]
        open(f'{out}/{hashlib.sha1(seed).hexdigest()[:16]}', 'wb').write(seed)
print(len(seen), 'frame seeds')

# Rules: the rule texts of detect's tests, each with a payload.
out = 'fuzz/corpus/rules'
os.makedirs(out, exist_ok=True)
PAYLOADS = [b'GET /index.html?a=1 HTTP/1.1\r\nHost: example.com\r\nUser-Agent: x\r\n\r\n',
            b'\x00\x01\x02\x03abcdefghijklmnop' * 4, b'USER anonymous\r\nPASS a@b\r\n']
rules = set()
for path in sorted(glob.glob('crates/detect/tests/*.rs') + glob.glob('crates/cli/tests/*.rs')
                   + ['crates/rules/src/parser_tests.rs', 'crates/rules/src/keywords/tests.rs']):
    text = open(path).read()
    for m in re.finditer(r'((?:alert|drop|pass|reject) (?:tcp|udp|ip|icmp|http|dns|tls)[^\n]*?sid:\s*\d+;\s*\))', text):
        rule = m.group(1).replace('\\"', '"')
        if '{' in rule or len(rule) > 2000:
            continue
        rules.add(rule)
for i, rule in enumerate(sorted(rules)):
    seed = rule.encode() + b'\0' + PAYLOADS[i % len(PAYLOADS)]
    open(f'{out}/{hashlib.sha1(seed).hexdigest()[:16]}', 'wb').write(seed)
print(len(rules), 'rule seeds')
