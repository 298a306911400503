"""Rules whose only conditions are the header (addresses, ports) or `ip_proto` are IP-only
in Suricata 7.0.10 (its engine analysis says `ip_only`): they are checked on the first
packet of each flow direction only (the SYN and the SYN/ACK of a TCP flow, the first
datagram each way of a UDP flow), ports included; `ttl` makes a rule per-packet. One
TCP conversation (handshake, request, response, FIN) and a two-way UDP exchange."""
import os, sys
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "../../tools"))
from pcapw import Conv, write
from pcapgen import eth, ipv4_udp

c = Conv()
c.pkt('c', 'S'); c.pkt('s', 'SA'); c.pkt('c', 'A')
c.pkt('c', 'PA', b"GET / HTTP/1.0\r\n\r\n"); c.pkt('s', 'A')
c.pkt('s', 'PA', b"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nhi"); c.pkt('c', 'A')
c.pkt('c', 'FA'); c.pkt('s', 'FA'); c.pkt('c', 'A')
frames = c.frames + [
    eth(ipv4_udp("192.0.2.1", "198.51.100.9", 5000, 53, b"query-1", ident=1)),
    eth(ipv4_udp("198.51.100.9", "192.0.2.1", 53, 5000, b"reply-1", ident=2)),
    eth(ipv4_udp("192.0.2.1", "198.51.100.9", 5000, 53, b"query-2", ident=3)),
    eth(ipv4_udp("198.51.100.9", "192.0.2.1", 53, 5000, b"reply-2", ident=4)),
]
write(os.path.join(here, "input.pcap"), frames)
