"""`string,hex` numbers written `0x` with no hex digit after the prefix, read by
`byte_test`, `byte_jump` and `byte_extract`: C's `strtoull` (Suricata's reading) takes
the `0` alone (value 0, one byte consumed), so the rules see 0. One UDP datagram per
payload shape."""
import os, sys
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "../../tools"))
from pcapgen import eth, ipv4_udp, write_pcap

payloads = [b"0xQQ-after", b"0x", b"0x0e-after", b" 0xg", b"x0x1", b"0X;;;;"]
write_pcap(os.path.join(here, "input.pcap"), [
    eth(ipv4_udp("192.0.2.1", "198.51.100.9", 5000 + i, 9000, p, ident=i + 1))
    for i, p in enumerate(payloads)
])
