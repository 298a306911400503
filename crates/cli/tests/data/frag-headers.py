"""Writes frag-headers.pcap: IPv6 fragment headers and IP fragments whose counters
Suricata 7.0.10 counts in its own way (crates/cli/tests/decode_run.rs
`fragment_headers_count_as_suricata`; frag-headers.suricata.txt its counters)."""
import struct, sys

SRC = bytes.fromhex("20010db8000100000000000000000002")
DST = bytes.fromhex("20010db8000100000000000000000001")
ETH = bytes.fromhex("000102030405000102030406")


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack(">%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


def icmp6(payload):
    m = bytearray(b"\x80\x00\x00\x00\x00\x01\x00\x01" + payload)
    ph = SRC + DST + struct.pack(">I", len(m)) + b"\x00\x00\x00\x3a"
    struct.pack_into(">H", m, 2, csum(ph + bytes(m)))
    return bytes(m)


def fh(nxt, off=0, more=0, ident=1, res=0):
    return struct.pack(">BBHI", nxt, res, (off // 8) << 3 | more, ident)


def v6(first, body):
    ip = struct.pack(">IHBB", 0x60000000, len(body), first, 64) + SRC + DST
    return ETH + b"\x86\xdd" + ip + body


def v4(off, more, data, ident):
    h = bytearray(struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(data), ident,
                              more << 13 | off // 8, 64, 17, 0,
                              bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2])))
    struct.pack_into(">H", h, 10, csum(bytes(h)))
    return ETH + b"\x08\x00" + bytes(h) + data


echo = icmp6(bytes(range(65, 105)))  # 48 bytes
frames = []
# 20 atomic fragment headers: 1 useless, 14 duplicates counted (15 events a packet).
frames.append(v6(44, fh(44) * 19 + fh(58) + echo))
# An atomic header, then a duplicate with M=1 and reserved bits: passed over.
frames.append(v6(44, fh(44) + fh(58, 0, 1, 7, res=1) + echo))
# 0..16 M=1 then a last fragment 8..9 inside it: trimmed away, never rebuilt.
frames.append(v6(44, fh(58, 0, 1, 0x11) + echo[:16]))
frames.append(v6(44, fh(58, 8, 0, 0x11) + echo[8:9]))
# 0..16, 16..32, then last 8..20 starting before the second: rebuilt.
frames.append(v6(44, fh(58, 0, 1, 0x12) + echo[:16]))
frames.append(v6(44, fh(58, 16, 1, 0x12) + echo[16:32]))
frames.append(v6(44, fh(58, 8, 0, 0x12) + echo[8:20]))
# IPv4 teardrop: the last fragment inside the first is trimmed away.
udp = struct.pack(">HHHH", 1000, 2000, 36, 0) + b"A" * 28
frames.append(v4(0, 1, udp[:36], 9))
frames.append(v4(24, 0, udp[24:28], 9))
# Nested: the inner datagram's last fragment alone, then an outer datagram in two
# fragments carrying the inner first fragment: both rebuilt, one ICMPv6 echo.
inner_first = fh(58, 0, 1, 0x77) + echo[:16]
frames.append(v6(44, fh(58, 16, 0, 0x77) + echo[16:]))
frames.append(v6(44, fh(44, 0, 1, 0x66) + inner_first[:16]))
frames.append(v6(44, fh(44, 16, 0, 0x66) + inner_first[16:]))

out = sys.argv[1] if len(sys.argv) > 1 else "frag-headers.pcap"
with open(out, "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
    for i, d in enumerate(frames):
        f.write(struct.pack("<IIII", 1700000000 + i, 0, len(d), len(d)))
        f.write(d)
