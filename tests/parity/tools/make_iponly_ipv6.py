#!/usr/bin/env python3
"""Writes the cases iponly-ipv6-{src,dst,both} and addr-ipv6-udp-src: rules whose only
condition is an address expression (IPv6 addresses, CIDRs, ranges, lists, negations,
IPv4 mixed in) over one UDP packet from each source below plus one two-way flow.
`alert ip` rules are Suricata's IP-only rules; `alert udp` ones go through the packet
engine. One case per rule kind keeps every packet under Suricata's 15 alerts a packet."""
import os, sys
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
from pcapgen import eth, ipv4_udp, ipv6_udp, write_pcap

DST6 = "2001:db8:ffff::99"
DST4 = "198.51.100.9"
SRC6 = ["2001:db8::1", "2001:db8::2", "2001:db8::3", "2001:db8::5", "2001:db8::6",
        "2001:db8::10", "2001:db8::15", "2001:db8::21", "2001:db8::ffff", "2001:db8::1:0",
        "2001:db8:0:1::1", "2001:db8:1::1", "2001:db9::1", "fe80::1", "::1",
        "::ffff:10.0.0.1", "8000::1", "ffff::1"]
SRC4 = ["10.0.0.1", "10.0.0.2", "192.0.2.1"]

ADDRS = [
    "2001:db8::1", "2001:DB8:0:0:0:0:0:1", "2001:db8::/32", "2001:db8::/64", "2001:db8::2/127",
    "[2001:db8::1,2001:db8::3]", "!2001:db8::1", "[2001:db8::/32,!2001:db8::1]",
    "2001:db8::1-2001:db8::5", "[2001:db8::1-2001:db8::5]", "![2001:db8::1-2001:db8::5]",
    "[!2001:db8::1-2001:db8::5]", "2001:db8::ffff-2001:db8::1:0",
    "[2001:db8::1-2001:db8::ff,!2001:db8::10-2001:db8::20]",
    "[2001:db8::/32,![2001:db8::1,2001:db8::2]]", "![2001:db8::/32,10.0.0.0/8]",
    "[2001:db8::/48,!2001:db8::/64]", "[2001:db8::/48,!2001:db8::/64,2001:db8::1]",
    "::/0", "::/1", "8000::/1", "fe80::/10", "[::1,::2]", "::ffff:10.0.0.1", "::ffff:0:0/96",
    "[10.0.0.0/8,2001:db8::/32]", "!10.0.0.1", "[!10.0.0.1]", "!2001:db8::/32",
    "[!2001:db8::/32,!10.0.0.0/8]", "2001:db8::-2001:db8::ffff:ffff", "[2001:db8::5-2001:db8::5]",
    "[2001:db8::/33,2001:db8:8000::/33]", "![2001:db8::1,!2001:db8::/32]",
    "[2001:db8::/32,!2001:db8::/32]", "[2001:db8::1/128,2001:db8::2/128]", "!::/0",
    "[!2001:db8::1,!2001:db8::2]", "[2001:db8::/32,!2001:db8::/33,2001:db8::1]",
]

KINDS = {
    "iponly-ipv6-src": ("ip", "{a} any -> any any", 1),
    "addr-ipv6-udp-src": ("udp", "{a} any -> any any", 1001),
    "iponly-ipv6-dst": ("ip", "any any -> {a} any", 2001),
    "iponly-ipv6-both": ("ip", "{a} any <> any any", 3001),
}
# (name, first and last index into ADDRS): the two-way rules match twice as often.
CHUNKS = {"iponly-ipv6-both": (0, 14), "iponly-ipv6-both-b": (14, 28),
          "iponly-ipv6-both-c": (28, len(ADDRS))}

frames = []
for i, s in enumerate(SRC6):
    frames.append(eth(ipv6_udp(s, DST6, 40000 + i, 9000, b"v6")))
for i, s in enumerate(SRC4):
    frames.append(eth(ipv4_udp(s, DST4, 41000 + i, 9000, b"v4", ident=i + 1)))
# A flow with a reply and a second request: IP-only rules look at each direction once.
frames.append(eth(ipv6_udp(DST6, "2001:db8::3", 9000, 42000, b"q")))
frames.append(eth(ipv6_udp("2001:db8::3", DST6, 42000, 9000, b"r")))
frames.append(eth(ipv6_udp(DST6, "2001:db8::3", 9000, 42000, b"q2")))

TOML = """# Made by tests/parity/tools/make_iponly_ipv6.py; expected.jsonl by tests/parity/tools/expect.py
# (Suricata 7.0.10, stock configuration).
about = "{about}"
keywords = ["msg", "sid"]
protocols = ["{proto}"]
test_args = []
simulate_ips = false
"""

CASES = [(n, k) for n, k in KINDS.items()]
CASES += [(n, KINDS["iponly-ipv6-both"]) for n in ("iponly-ipv6-both-b", "iponly-ipv6-both-c")]
for name, (proto, hdr, sid0) in CASES:
    lo, hi = CHUNKS.get(name, (0, len(ADDRS)))
    d = os.path.join(here, "..", "cases", name)
    os.makedirs(d, exist_ok=True)
    rules = [f'alert {proto} {hdr.format(a=a)} (msg:"{name} {a}"; sid:{sid0 + i};)'
             for i, a in enumerate(ADDRS) if lo <= i < hi]
    open(os.path.join(d, "test.rules"), "w").write("\n".join(rules) + "\n")
    write_pcap(os.path.join(d, "input.pcap"), frames)
    about = f"{proto} rules with IPv6 address expressions as {hdr.format(a='ADDR')}"
    open(os.path.join(d, "case.toml"), "w").write(TOML.format(about=about, proto=proto))
