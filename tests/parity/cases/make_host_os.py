"""Builds host-os-windows: python3 make_host_os.py.

IPv4 fragments and TCP segments that overlap in the shapes where target-based
reassembly policies disagree (a new piece that starts before the old one and ends
inside it, a duplicate at the same offset, a full cover, a piece that starts inside
the old one and ends after it). The stock suricata.yaml's `host-os-policy` makes
every IPv4 host `windows`: the rules name both outcomes, Suricata's alerts say
which bytes it kept."""
import struct
from pcaplib import Pcap, TcpConn, csum, ip4

RULES = """alert udp any any -> 10.0.0.1 any (msg:"S1 windows: old kept"; content:"xxxxxxxxBBBBBBBBCCCCCCCC"; sid:1;)
alert udp any any -> 10.0.0.1 any (msg:"S1 bsd: new wins"; content:"xxxxxxxxyyyyyyyyCCCCCCCC"; sid:2;)
alert udp any any -> 10.0.0.2 any (msg:"S2 first copy"; content:"AAAAAAAABBBBBBBBCCCCCCCC"; sid:3;)
alert udp any any -> 10.0.0.2 any (msg:"S2 second copy"; content:"AAAAAAAAzzzzzzzzCCCCCCCC"; sid:4;)
alert udp any any -> 10.0.0.3 any (msg:"S3 full cover new"; content:"xxxxxxxxyyyyyyyywwwwwwww"; sid:5;)
alert udp any any -> 10.0.0.3 any (msg:"S3 full cover old"; content:"xxxxxxxxBBBBBBBBwwwwwwww"; sid:6;)
alert udp any any -> 10.0.0.4 any (msg:"S4 old kept"; content:"AAAAAAAABBBBBBBBrrrrrrrr"; sid:7;)
alert udp any any -> 10.0.0.4 any (msg:"S4 new ends after"; content:"AAAAAAAAqqqqqqqqrrrrrrrr"; sid:8;)
alert tcp any any -> 10.0.1.1 9999 (msg:"tcp windows: old kept"; content:"NNNNOOOOOOOO"; sid:9;)
alert tcp any any -> 10.0.1.1 9999 (msg:"tcp bsd: new wins"; content:"NNNNNNNNOOOO"; sid:10;)
"""

ETH = b'\x00\x01\x02\x03\x04\x05\x00\x01\x02\x03\x04\x06\x08\x00'


def frag(p, src, dst, ident, off, more, data, proto=17):
    """One IPv4 fragment: `off` in bytes (a multiple of 8)."""
    fl = (off // 8) | (0x2000 if more else 0)
    h = struct.pack('!BBHHHBBH4s4s', 0x45, 0, 20 + len(data), ident, fl, 64, proto, 0,
                    ip4(src), ip4(dst))
    h = h[:10] + struct.pack('!H', csum(h)) + h[12:]
    p.add(ETH + h + data)


def udp_head(payload_len, sp=5000, dp=6000):
    # Checksum 0: none (RFC 768), so the rewritten bytes need no fix-up.
    return struct.pack('!HHHH', sp, dp, 8 + payload_len, 0)


p = Pcap()
src = '10.9.9.9'
A, B, C = b'A' * 8, b'B' * 8, b'C' * 8
# Payload = A B C (24 bytes) after the 8-byte UDP header: offsets 8, 16, 24.
head = udp_head(24)
# S1: old [16,32) "B C"; new [8,24) "x y" starts before, ends inside.
frag(p, src, '10.0.0.1', 101, 16, False, B + C)
frag(p, src, '10.0.0.1', 101, 8, True, b'x' * 8 + b'y' * 8)
frag(p, src, '10.0.0.1', 101, 0, True, head)
# S2: a duplicate of [16,24) with other bytes after the original.
frag(p, src, '10.0.0.2', 102, 0, True, head + A)
frag(p, src, '10.0.0.2', 102, 16, True, B)
frag(p, src, '10.0.0.2', 102, 16, True, b'z' * 8)
frag(p, src, '10.0.0.2', 102, 24, False, C)
# S3: old [16,24) "B"; new [8,32) covers it.
frag(p, src, '10.0.0.3', 103, 16, True, B)
frag(p, src, '10.0.0.3', 103, 8, False, b'x' * 8 + b'y' * 8 + b'w' * 8)
frag(p, src, '10.0.0.3', 103, 0, True, head)
# S4: old [8,24) "A B"; new [16,32) starts inside, ends after.
frag(p, src, '10.0.0.4', 104, 8, True, A + B)
frag(p, src, '10.0.0.4', 104, 16, False, b'q' * 8 + b'r' * 8)
frag(p, src, '10.0.0.4', 104, 0, True, head)

# TCP: old segment [4,12) "O" held out of order, then new [0,8) "N".
c = TcpConn(p, '10.9.9.9', 40000, '10.0.1.1', 9999)
base = c.cs
p.tcp('10.9.9.9', 40000, '10.0.1.1', 9999, base + 4, c.ss, 0x18, b'O' * 8)
p.tcp('10.9.9.9', 40000, '10.0.1.1', 9999, base, c.ss, 0x18, b'N' * 8)
c.cs = base + 12
p.tcp('10.0.1.1', 9999, '10.9.9.9', 40000, c.ss, c.cs, 0x10)
c.send(b'tail')
c.close()

# host-os-windows/suricata.yaml (the stock host-os-policy section) is kept by hand.
p.write('host-os-windows/input.pcap')
with open('host-os-windows/test.rules', 'w') as f:
    f.write(RULES)
