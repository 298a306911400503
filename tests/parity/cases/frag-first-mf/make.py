"""IPv4 fragments are inspected as packets of their IP protocol with ports 0 (Suricata
decodes no transport header in a fragment): a TCP first fragment (MF set, offset 0)
that is never completed, a lone later TCP fragment, and a UDP datagram in two fragments
that reassemble (the rebuilt datagram is inspected with its ports)."""
import os, struct, sys
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "../../tools"))
from pcapgen import csum, eth, ip4, udp, write_pcap


def frag(src, dst, proto, ident, mf, off8, body, df=False):
    fl = (0x4000 if df else 0) | (0x2000 if mf else 0) | off8
    h = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(body), ident, fl, 64, proto, 0,
                    ip4(src), ip4(dst))
    return h[:10] + struct.pack("!H", csum(h)) + h[12:] + body


tcp = struct.pack("!HHIIBBHHH", 40000, 80, 1000, 0, 5 << 4, 0x18, 65535, 0, 0) + b"GET /frag-data"
dgram = udp(5353, 53, b"frag" * 6, ip4("192.0.2.1") + ip4("198.51.100.9"))
write_pcap(os.path.join(here, "input.pcap"), [
    eth(frag("10.0.0.1", "10.0.0.2", 6, 7, True, 0, tcp)),
    eth(frag("10.0.0.1", "10.0.0.2", 6, 8, False, 3, b"later-fragment-bytes")),
    eth(frag("192.0.2.1", "198.51.100.9", 17, 9, True, 0, dgram[:16])),
    eth(frag("192.0.2.1", "198.51.100.9", 17, 9, False, 2, dgram[16:])),
])
