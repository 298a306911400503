#!/usr/bin/env python3
"""Writes the cases byte-jump-N: byte_jump with every option over payloads built to land
inside, at the end of and past the buffer. Each jump J gets one rule per byte value v of
the payloads, `byte_jump:J; byte_test:1,=,v,0,relative;`, and one `byte_jump:J;
isdataat:!1,relative;` (landed at the very end), so an alert's sid says where the cursor
landed: sid = 100000 + 100 * J's index + the index of v (99: at the end). Relative jumps
start after a "M" content at 0. A packet matches at most one rule per jump: the jumps are
split into cases of 12 so that no packet reaches Suricata's 15 alerts a packet."""
import os, sys
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
from pcapgen import eth, ipv4_udp, write_pcap

TAIL = b"abcdefghijklmnopqrst"
PAYLOADS = [
    b"M\x00\x04" + TAIL,         # 2-byte big endian 4
    b"M\x04\x00" + TAIL,         # little endian 4
    b"M0012" + TAIL,             # text 12 (dec), 18 (hex), 10 (oct)
    b"M 7xz" + TAIL,             # text: leading space, stops at a non-digit
    b"M-3zz" + TAIL,             # text with a minus sign
    b"M0x1F" + TAIL,             # hex text with 0x
    b"M\xff\xff" + TAIL,         # far past the end
    b"M\x00\x00" + TAIL,         # zero
    b"MZZZZ" + TAIL,             # no digit
    b"M\x00",                    # too short to read 2 bytes at 1
    b"M\x00\x02xy",              # lands exactly at the end
    b"M\x00\x01xy",              # lands on the last byte
    b"M\x12\x34" + TAIL,         # a value that is no offset
    b"M+9zz" + TAIL,             # text with a plus sign
]

JUMPS = [
    "2,1", "2,1,big", "2,1,little", "1,1", "1,2", "3,1", "4,1", "8,1",
    "2,0,relative", "2,0,relative,little", "2,1,relative", "1,-1,relative", "2,-2,relative",
    "2,1,multiplier 2", "2,1,multiplier 3", "2,1,align", "1,2,align", "2,1,multiplier 3,align",
    "2,1,post_offset 3", "2,1,post_offset -3", "2,1,post_offset -100", "2,1,post_offset 100",
    "2,1,from_beginning", "2,1,from_beginning,post_offset -1", "1,2,from_beginning",
    "1,1,from_end", "1,2,from_end,post_offset -10", "2,1,from_end,post_offset -100",
    "0,0,from_end,post_offset -3", "2,1,from_end,post_offset -3",
    "4,1,string,dec", "4,1,string,hex", "4,1,string,oct", "2,1,string,dec", "3,1,string,dec",
    "4,0,relative,string,dec", "4,1,string,dec,multiplier 2", "4,1,string,dec,from_beginning",
    "4,1,string,hex,post_offset -2", "23,1,string,dec", "4,1,string,dec,align",
    "2,1,bitmask 0x00ff", "2,1,little,bitmask 0xff00",
    "0,5", "0,5,relative", "0,30", "0,0,relative,post_offset -1",
    "1,3,relative", "2,1,relative,post_offset -5", "2,1,relative,from_beginning",
    "2,1,dce", "0,4,relative", "0,3,relative", "0,0,from_end", "8,1,little",
    "2,1,string,dec,post_offset -4", "2,1,post_offset -65535", "2,1,post_offset -65536",
]
CHUNK = 12

TOML = """# Made by tests/parity/tools/make_byte_jump.py; expected.jsonl by tests/parity/tools/expect.py
# (Suricata 7.0.10, stock configuration).
about = "byte_jump options {first} to {last} of the generator's list"
keywords = ["byte_jump", "byte_test", "content", "isdataat", "msg", "sid"]
protocols = ["udp"]
test_args = []
simulate_ips = false
"""

values = sorted(set(b for p in PAYLOADS for b in p))
assert len(values) < 99
frames = [eth(ipv4_udp("10.0.0.1", "10.0.0.2", 30000 + i, 7000, p, ident=i + 1))
          for i, p in enumerate(PAYLOADS)]
for n, lo in enumerate(range(0, len(JUMPS), CHUNK)):
    rules = []
    for j in range(lo, min(lo + CHUNK, len(JUMPS))):
        spec = JUMPS[j]
        pre = 'content:"M"; depth:1; ' if "relative" in spec else ""
        base = 100000 + 100 * j
        rules.append(f'alert udp any any -> any any (msg:"byte_jump {spec} lands at the end"; '
                     f'{pre}byte_jump:{spec}; isdataat:!1,relative; sid:{base + 99};)')
        for i, v in enumerate(values):
            rules.append(f'alert udp any any -> any any ({pre}byte_jump:{spec}; '
                         f'byte_test:1,=,{v},0,relative; sid:{base + i};)')
    d = os.path.join(here, "..", "cases", f"byte-jump-{n + 1}")
    os.makedirs(d, exist_ok=True)
    open(os.path.join(d, "test.rules"), "w").write("\n".join(rules) + "\n")
    write_pcap(os.path.join(d, "input.pcap"), frames)
    last = min(lo + CHUNK, len(JUMPS)) - 1
    open(os.path.join(d, "case.toml"), "w").write(TOML.format(first=lo, last=last))
