#!/usr/bin/env python3
"""Writes replace.pcap: the traffic of crates/cli/tests/keywords_replace.rs, raw bytes
only. One TCP session from 10.3.0.1:40000 to 10.3.0.2:8080: a request with two
`hello`s, `abc` and `def` cut across segments, two segments sent before their ACK, a
retransmission of one with the same bytes, a reply; then two UDP datagrams from
10.3.0.1:1234 to 10.3.0.2:5555. Checksums are valid. Run: python3 make-replace.py OUT
"""

import struct
import sys

C, S = bytes([10, 3, 0, 1]), bytes([10, 3, 0, 2])
SYN, ACK, FIN, PSH = 0x02, 0x10, 0x01, 0x08


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def ip4(src, dst, proto, payload, ident):
    h = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), ident, 0, 64, proto, 0, src, dst)
    return h[:10] + struct.pack("!H", csum(h)) + h[12:] + payload


def tcp(src, dst, sp, dp, seq, ack, flags, data=b""):
    h = struct.pack("!HHIIBBHHH", sp, dp, seq, ack, 5 << 4, flags, 65535, 0, 0)
    ph = src + dst + struct.pack("!BBH", 0, 6, len(h) + len(data))
    h = h[:16] + struct.pack("!H", csum(ph + h + data)) + h[18:]
    return ip4(src, dst, 6, h + data, 1)


def udp(src, dst, sp, dp, data):
    h = struct.pack("!HHHH", sp, dp, 8 + len(data), 0)
    ph = src + dst + struct.pack("!BBH", 0, 17, len(h) + len(data))
    return ip4(src, dst, 17, h[:6] + struct.pack("!H", csum(ph + h + data)) + data, 2)


def main(out):
    sp, dp = 40000, 8080
    c, s = 1001, 5001
    pkts = [tcp(C, S, sp, dp, c - 1, 0, SYN), tcp(S, C, dp, sp, s - 1, c, SYN | ACK),
            tcp(C, S, sp, dp, c, s, ACK)]

    def cdata(data, acked=True):
        nonlocal c
        pkts.append(tcp(C, S, sp, dp, c, s, PSH | ACK, data))
        c += len(data)
        if acked:
            pkts.append(tcp(S, C, dp, sp, s, c, ACK))

    cdata(b"GET /hello world hello again\r\n")
    cdata(b"abc")
    # Two segments before the server's ACK: the second is inspected inline unacked.
    cdata(b"def and abcdef ", acked=False)
    cdata(b"hello there\r\n")
    # The same segment again (a plain retransmission), acknowledged once more.
    pkts.append(tcp(C, S, sp, dp, c - 13, s, PSH | ACK, b"hello there\r\n"))
    pkts.append(tcp(S, C, dp, sp, s, c, ACK))
    reply = b"HTTP/1.0 200 OK\r\n\r\nhello back"
    pkts.append(tcp(S, C, dp, sp, s, c, PSH | ACK, reply))
    s += len(reply)
    pkts.append(tcp(C, S, sp, dp, c, s, ACK))
    pkts += [tcp(C, S, sp, dp, c, s, FIN | ACK), tcp(S, C, dp, sp, s, c + 1, FIN | ACK),
             tcp(C, S, sp, dp, c + 1, s + 1, ACK)]
    pkts.append(udp(C, S, 1234, 5555, b"xxhelloyy world"))
    pkts.append(udp(C, S, 1234, 5555, b"nothing here yy"))
    eth = b"\x00\x11\x22\x33\x44\x55\x66\x77\x88\x99\xaa\xbb\x08\x00"
    with open(out, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i, p in enumerate(pkts):
            fr = eth + p
            f.write(struct.pack("<IIII", 1700000000 + i, 0, len(fr), len(fr)))
            f.write(fr)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "replace.pcap")
