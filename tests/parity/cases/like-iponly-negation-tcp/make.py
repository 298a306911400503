"""Address-only TCP rules with a negated address (`!x`, `[net,![a,b]]`) are not IP-only
in Suricata 7.0.10 (engine analysis: `like_ip_only`): they are checked on every packet,
and, having no packet keyword that refuses a pseudo-packet, also on the end-of-flow
pseudo-packets (no `pcap_cnt`). Two conversations: one closed after a request and a
response, one left open at the end of the capture (a pseudo-packet each way). (A session
closed after data of an undetected protocol gets pseudo-packets in Suricata that Osprey
does not make: tests/parity/KNOWN_DIFFERENCES.md, dt-28-94.)"""
import os, sys
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "../../tools"))
from pcapw import Conv, write

frames = []
b = Conv(cip='10.0.0.1', sip='10.0.0.3', cport=40002, sport=80)
b.pkt('c', 'S'); b.pkt('s', 'SA'); b.pkt('c', 'A')
b.pkt('c', 'PA', b"GET / HTTP/1.0\r\n\r\n"); b.pkt('s', 'A')
b.pkt('s', 'PA', b"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nhi"); b.pkt('c', 'A')
b.pkt('c', 'FA'); b.pkt('s', 'FA'); b.pkt('c', 'A')
frames += b.frames
c = Conv(cip='10.0.0.1', sip='10.0.0.4', cport=40003, sport=7001)
c.pkt('c', 'S'); c.pkt('s', 'SA'); c.pkt('c', 'A'); c.pkt('c', 'PA', b"xyz")
c.pkt('s', 'A'); c.pkt('s', 'PA', b"uvw"); c.pkt('c', 'A')
frames += c.frames
write(os.path.join(here, "input.pcap"), frames)
