"""`byte_test` and `byte_jump` with two endiannesses (`little,big`) or two string bases
(`string,dec,hex`), which Suricata 7.0.10 accepts: the last one given wins. Three UDP
datagrams: a 4-byte binary 2, the text "10" with markers where a jump of 10 (`D`) and 16
(`H`) lands, and the text "10" followed by filler only."""
import os, sys
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "../../tools"))
from pcapgen import eth, ipv4_udp, write_pcap

payloads = [
    b"\x00\x00\x00\x02AAxx",
    b"10" + b"a" * 10 + b"D" + b"a" * 5 + b"H" + b"a" * 6,
    b"10" + b"z" * 30,
]
write_pcap(os.path.join(here, "input.pcap"), [
    eth(ipv4_udp("192.0.2.1", "198.51.100.9", 5000 + i, 9000, p, ident=i + 1))
    for i, p in enumerate(payloads)
])
