"""Teredo (IPv6 in UDP) on ports other than 3544. With no `decoder.teredo.ports`
configured Suricata 7.0.10 looks for Teredo on every UDP port (this case's own
suricata.yaml has no `decoder:` section; bug-5464-verdict-03 of the open corpus); with
`--set decoder.teredo.ports=7000` only on 7000 (../teredo-ports-set, the same capture
with the stock configuration). Three datagrams, each carrying an IPv6/UDP packet, on
ports 5000, 7000 and 3544."""
import os, sys
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "../../tools"))
from pcapgen import eth, ipv4_udp, ipv6_udp, write_pcap

frames = []
for i, port in enumerate([5000, 7000, 3544]):
    inner = ipv6_udp("2001:db8::1", "2001:db8::2", 40000 + i, 9999, b"inner-%d" % port)
    frames.append(eth(ipv4_udp("192.0.2.1", "198.51.100.9", port, port, inner, ident=i + 1)))
for d in [here, os.path.join(here, "../teredo-ports-set")]:
    write_pcap(os.path.join(d, "input.pcap"), frames)
