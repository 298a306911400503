"""Builds host-os-defrag and host-os-stream: python3 make_host_os_all.py.

Every `host-os-policy` name on every overlap shape. Each case has its own
suricata.yaml giving each name a /16 (10.N.0.0/16, name N of NAMES), 10.0.0.0/8 to
windows (10.99.x.x falls back to it: the longest prefix wins) and nothing to 11.x.x.x
(the default, bsd). Per host, eight shapes of an old piece and a new piece that
overlap (units: 8 bytes for fragments, 4 for TCP segments): the rules name both
outcomes of each shape (sid base + 2*shape + 1 when the new bytes win)."""
import struct
from pcaplib import Pcap, csum, ip4

NAMES = ["bsd", "bsd-right", "old-linux", "linux", "old-solaris", "solaris", "hpux10",
         "hpux11", "irix", "macos", "vista", "windows2k3", "windows"]
# Stream hosts: the names whose stream behaviour differs, plus the fallbacks.
STREAM = ["bsd", "old-linux", "linux", "solaris", "hpux11", "vista", "windows"]
# shape: (old units, new units)
SHAPES = {1: ((2, 4), (1, 3)), 2: ((2, 4), (2, 4)), 3: ((2, 4), (2, 5)),
          4: ((2, 4), (3, 5)), 5: ((2, 4), (1, 5)), 6: ((2, 5), (3, 4)),
          7: ((2, 4), (1, 4)), 8: ((2, 4), (3, 4))}
END = 6
ETH = b'\x00\x01\x02\x03\x04\x05\x00\x01\x02\x03\x04\x06\x08\x00'


def yaml():
    lines = ["%YAML 1.1", "---", "outputs:", "  - eve-log:", "      enabled: yes",
             "      filetype: regular", "      filename: eve.json", "      types:",
             "        - alert", "host-os-policy:"]
    for i, n in enumerate(NAMES):
        nets = ["10.%d.0.0/16" % (i + 1)]
        if n == "windows":
            nets.insert(0, "10.0.0.0/8")
        lines.append("  %s: [%s]" % (n, ", ".join(nets)))
    return "\n".join(lines) + "\n"


def outcome(o, n, unit, new_wins):
    b = bytearray(b'F' * (END * unit))
    for i in range(n[0] * unit, n[1] * unit):
        b[i] = ord('N')
    for i in range(o[0] * unit, o[1] * unit):
        b[i] = ord('O')
    if new_wins:
        for i in range(max(o[0], n[0]) * unit, min(o[1], n[1]) * unit):
            b[i] = ord('N')
    return bytes(b)


def frag(p, src, dst, ident, off, more, data):
    fl = (off // 8) | (0x2000 if more else 0)
    h = struct.pack('!BBHHHBBH4s4s', 0x45, 0, 20 + len(data), ident, fl, 64, 17, 0,
                    ip4(src), ip4(dst))
    p.add(ETH + h[:10] + struct.pack('!H', csum(h)) + h[12:] + data)


def hosts(names):
    """(third octet base, second octet) per host group: each name, then fallbacks."""
    return [("10.%d" % (NAMES.index(n) + 1)) for n in names] + ["10.99", "11.0"]


def defrag_case():
    p, ident = Pcap(), 0
    for net in hosts(NAMES):
        for k, (o, n) in SHAPES.items():
            hdr = struct.pack('!HHHH', 5000, 6000 + k, END * 8, 0)
            ident += 1
            dst = "%s.0.%d" % (net, k)
            frag(p, '10.250.0.1', dst, ident, o[0] * 8, True, b'O' * ((o[1] - o[0]) * 8))
            frag(p, '10.250.0.1', dst, ident, n[0] * 8, True, b'N' * ((n[1] - n[0]) * 8))
            lo, hi = min(o[0], n[0]), max(o[1], n[1])
            frag(p, '10.250.0.1', dst, ident, 0, True, hdr + b'F' * ((lo - 1) * 8))
            frag(p, '10.250.0.1', dst, ident, hi * 8, False, b'F' * ((END - hi) * 8))
    rules = []
    for k, (o, n) in SHAPES.items():
        for w in (0, 1):
            rules.append('alert udp any any -> any %d (msg:"frag shape %d %s"; content:"%s"; '
                         'sid:%d;)' % (6000 + k, k, "new" if w else "old",
                                       outcome(o, n, 8, w)[8:].decode(), 100 + 2 * k + w))
    return p, rules


def stream_case():
    p = Pcap()
    for net in hosts(STREAM):
        for k, (o, n) in SHAPES.items():
            cli, srv, cp, sp = '10.250.0.1', "%s.1.%d" % (net, k), 40000 + k, 8000 + k
            cs, ss, u = 1000, 5000, 4
            p.tcp(cli, cp, srv, sp, cs, 0, 0x02)
            p.tcp(srv, sp, cli, cp, ss, cs + 1, 0x12)
            cs += 1
            ss += 1
            p.tcp(cli, cp, srv, sp, cs, ss, 0x10)
            p.tcp(cli, cp, srv, sp, cs + o[0] * u, ss, 0x18, b'O' * ((o[1] - o[0]) * u))
            p.tcp(cli, cp, srv, sp, cs + n[0] * u, ss, 0x18, b'N' * ((n[1] - n[0]) * u))
            lo, hi = min(o[0], n[0]), max(o[1], n[1])
            p.tcp(cli, cp, srv, sp, cs, ss, 0x18, b'F' * (lo * u))
            p.tcp(cli, cp, srv, sp, cs + hi * u, ss, 0x18, b'F' * ((END - hi) * u))
            p.tcp(srv, sp, cli, cp, ss, cs + END * u, 0x10)
    rules = []
    for k, (o, n) in SHAPES.items():
        for w in (0, 1):
            rules.append('alert tcp any any -> any %d (msg:"tcp shape %d %s"; content:"%s"; '
                         'sid:%d;)' % (8000 + k, k, "new" if w else "old",
                                       outcome(o, n, 4, w).decode(), 200 + 2 * k + w))
    return p, rules


for name, make in [("host-os-defrag", defrag_case), ("host-os-stream", stream_case)]:
    import os
    os.makedirs(name, exist_ok=True)
    p, rules = make()
    p.write(name + "/input.pcap")
    with open(name + "/test.rules", "w") as f:
        f.write("\n".join(rules) + "\n")
    with open(name + "/suricata.yaml", "w") as f:
        f.write(yaml())
    print(name, len(p.pk), "packets")
