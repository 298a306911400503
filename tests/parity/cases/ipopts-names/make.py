"""ipopts: one IPv4/UDP packet per option layout (valid, malformed, duplicated, after
EOL, unknown types) and one IPv6 packet; test.rules asks for every option name."""
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../tools"))
from pcapgen import eth, ipv4_udp, ipv6_udp, write_pcap

A4 = bytes([10, 0, 0, 9])
LAYOUTS = [
    bytes([7, 7, 4]) + A4,                      # rr
    bytes([68, 8, 5, 0, 0, 0, 0, 0]),           # ts
    bytes([130, 11]) + bytes(9),                # sec
    bytes([133, 3, 1]),                         # esec
    bytes([131, 7, 4]) + A4,                    # lsrr
    bytes([137, 7, 4]) + A4,                    # ssrr
    bytes([136, 4, 0, 1]),                      # satid
    bytes([1, 1, 1, 1]),                        # nop only
    bytes([0, 0, 0, 0]),                        # eol only
    bytes([1, 7, 7, 4]) + A4,                   # nop then rr
    bytes([0, 7, 7, 4]) + A4,                   # rr after eol
    bytes([153, 4, 0, 0]),                      # unknown type
    bytes([7, 40, 4, 0]),                       # length past the options
    bytes([7, 1, 4, 0]),                        # length 1
    bytes([7, 7, 4]) + A4 + bytes([7, 7, 4]) + A4,  # rr twice
    bytes([68, 8, 1, 0, 0, 0, 0, 0]),           # ts, bad pointer
    bytes([68, 4, 5, 0]),                       # ts too short
    bytes([7, 7, 2]) + A4,                      # rr, bad pointer
    bytes([7, 2, 1, 1]),                        # rr, length 2
    bytes([130, 4, 0, 0]),                      # sec, wrong length
    bytes([136, 5, 0, 1, 1]),                   # satid, wrong length
    bytes([133, 2, 1, 1]),                      # esec, length 2
    bytes([1, 1, 1, 7]),                        # trailing byte of a multi-byte option
    bytes([25, 8, 0, 0, 0, 0, 0, 0]),           # quick-start
    bytes([148, 4, 0, 0]),                      # router alert
    bytes([134, 10, 0, 0, 0, 1, 0, 0, 0, 0]),   # cipso
    bytes([7, 7, 4]) + A4 + bytes([68, 8, 5, 0, 0, 0, 0, 0]) + bytes([136, 4, 0, 1]) + bytes([1, 0]),
    b"",                                        # no options
    bytes([7, 7, 5]) + A4,                      # rr, pointer not on an address
    bytes([7, 7, 8]) + A4,                      # rr, full (pointer = length + 1)
    bytes([7, 7, 12]) + A4,                     # rr, pointer past the option
    bytes([131, 3, 4, 1]),                      # lsrr, no room for an address
    bytes([137, 7, 3]) + A4,                    # ssrr, pointer too small
    bytes([68, 12, 5, 1]) + bytes(8),           # ts, address+timestamp records
    bytes([68, 12, 9, 1]) + bytes(8),           # ts, flag 1, pointer inside a record
    bytes([68, 12, 9, 0]) + bytes(8),           # ts, flag 0, second slot
    bytes([68, 12, 13, 3]) + bytes(8),          # ts, flag 3, full
    bytes([68, 12, 14, 0]) + bytes(8),          # ts, pointer past the option
    bytes([130, 2, 1, 1]),                      # sec, length 2
    bytes([133, 3, 0, 1]),                      # esec, length 3
    bytes([7, 7, 2]) + A4 + bytes([7, 7, 4]) + A4,  # bad rr, then a good one
    bytes([136, 4, 0, 1, 136, 5, 0, 1, 1]),     # satid, then a bad one
    bytes([68, 8, 5, 0, 0, 0, 0, 0, 1, 1, 1, 1]),  # ts then nops, no padding
]

frames = []
for i, o in enumerate(LAYOUTS):
    frames.append(eth(ipv4_udp("10.0.0.1", "10.0.0.2", 10000 + i, 53, b"payload", o, ident=i + 1)))
frames.append(eth(ipv6_udp("2001:db8::1", "2001:db8::2", 20000, 53, b"payload")))
write_pcap(os.path.join(os.path.dirname(os.path.abspath(__file__)), "input.pcap"), frames)
