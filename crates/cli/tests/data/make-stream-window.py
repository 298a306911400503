#!/usr/bin/env python3
"""Writes stream-window.pcap: crafted TCP sessions for the receive-window and
closing-state stream events (crates/cli/tests/stream_events.rs), raw bytes only.

Each scenario is one session from 10.1.0.1:<port> to 10.2.0.1:80; the comment above it
says what it exercises. Run: python3 make-stream-window.py OUT.pcap
"""

import struct
import sys

CLIENT, SERVER = bytes([10, 1, 0, 1]), bytes([10, 2, 0, 1])
SYN, ACK, FIN, RST, PSH = 0x02, 0x10, 0x01, 0x04, 0x08


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def frame(src, dst, sport, dport, seq, ack, flags, win, payload=b"", wscale=None, ts=None):
    opts = b""
    if wscale is not None:
        opts = bytes([1, 3, 3, wscale])
    if ts is not None:
        # NOP, NOP, timestamps (value, echo reply).
        opts += struct.pack("!BBBBII", 1, 1, 8, 10, ts[0] & 0xFFFFFFFF, ts[1] & 0xFFFFFFFF)
    off = (20 + len(opts)) // 4
    tcp = struct.pack("!HHIIBBHHH", sport, dport, seq & 0xFFFFFFFF, ack & 0xFFFFFFFF,
                      off << 4, flags, win, 0, 0) + opts + payload
    pseudo = src + dst + struct.pack("!BBH", 0, 6, len(tcp))
    c = csum(pseudo + tcp)
    tcp = tcp[:16] + struct.pack("!H", c) + tcp[18:]
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp), 1, 0x4000, 64, 6, 0, src, dst)
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    eth = b"\x00\x00\x00\x00\x00\x02" + b"\x00\x00\x00\x00\x00\x01" + b"\x08\x00"
    return eth + ip + tcp


class Session:
    """One session; `c(...)`/`s(...)` add a client/server packet."""

    def __init__(self, out, port):
        self.out, self.port = out, port

    def c(self, seq, ack, flags, win=1024, data=b"", wscale=None, ts=None):
        self.out.append(
            frame(CLIENT, SERVER, self.port, 80, seq, ack, flags, win, data, wscale, ts))

    def s(self, seq, ack, flags, win=1024, data=b"", wscale=None, ts=None):
        self.out.append(
            frame(SERVER, CLIENT, 80, self.port, seq, ack, flags, win, data, wscale, ts))

    def handshake(self, cw=None, sw=None, cwin=1024, swin=1024):
        self.c(1000, 0, SYN, cwin, wscale=cw)
        self.s(5000, 1001, SYN | ACK, swin, wscale=sw)
        self.c(1001, 5001, ACK, cwin)


def scenarios():
    out = []
    # 40001: no window scaling; the server advertises 100 bytes: client data past
    # last_ack + 100 is out of window, data inside it is not.
    s = Session(out, 40001)
    s.handshake(swin=100)
    s.c(1001, 5001, ACK | PSH, data=b"a" * 100)
    s.s(5001, 1101, ACK, 100)
    s.c(1101, 5001, ACK | PSH, data=b"b" * 150)
    s.c(1101, 5001, ACK | PSH, data=b"c" * 100)
    s.s(5001, 1201, ACK | FIN, 100)
    s.c(1201, 5002, ACK | FIN)
    s.s(5002, 1202, ACK)
    # 40002: both sides scale by 7: the server's 100 is 12800 bytes.
    s = Session(out, 40002)
    s.handshake(cw=7, sw=7, swin=100)
    s.s(5001, 1001, ACK, 100)
    s.c(1001, 5001, ACK | PSH, data=b"a" * 1000)
    s.c(2001, 5001, ACK | PSH, data=b"b" * 1000)
    s.c(14000, 5001, ACK | PSH, data=b"c" * 100)
    s.s(5001, 3001, ACK | FIN, 100)
    s.c(3001, 5002, ACK | FIN)
    s.s(5002, 3002, ACK)
    # 40003: only the SYN/ACK has the option: no scaling.
    s = Session(out, 40003)
    s.handshake(sw=7, swin=100)
    s.s(5001, 1001, ACK, 100)
    s.c(1001, 5001, ACK | PSH, data=b"a" * 1000)
    s.s(5001, 2001, ACK | FIN, 100)
    s.c(2001, 5002, ACK | FIN)
    s.s(5002, 2002, ACK)
    # 40004: asymmetric shifts, client 1 and server 9.
    s = Session(out, 40004)
    s.handshake(cw=1, sw=9, cwin=100, swin=100)
    s.s(5001, 1001, ACK, 100)
    s.c(1001, 5001, ACK, 100)
    s.c(1001, 5001, ACK | PSH, 100, data=b"a" * 1000)
    s.s(5001, 2001, ACK | PSH, 100, data=b"b" * 300)
    s.c(2001, 5301, ACK | PSH, 100, data=b"a" * 10000)
    s.s(5301, 12001, ACK | FIN, 100)
    s.c(12001, 5302, ACK | FIN, 100)
    s.s(5302, 12002, ACK, 100)
    # 40005: ACKs past what the other side may have sent (invalid ack), and one before
    # last_ack by more than the window.
    s = Session(out, 40005)
    s.handshake(swin=1000, cwin=1000)
    s.c(1001, 5001, ACK | PSH, 1000, data=b"a" * 10)
    s.s(5001, 1011, ACK | PSH, 1000, data=b"b" * 10)
    s.c(1011, 9000, ACK | PSH, 1000, data=b"c" * 10)
    s.s(5011, 90000, ACK, 1000)
    s.c(1011, 5011, ACK | PSH, 1000, data=b"d" * 10)
    s.s(5011, 1021, ACK, 1000)
    s.c(1021, 5011 - 3000, ACK, 1000)
    s.c(1021, 5011, ACK | FIN, 1000)
    s.s(5011, 1022, ACK | FIN, 1000)
    s.c(1022, 5012, ACK, 1000)
    # 40006: closing, client FIN first; then wrong sequence numbers and invalid acks in
    # the closing states.
    s = Session(out, 40006)
    s.handshake(swin=1000, cwin=1000)
    s.c(1001, 5001, ACK | PSH, 1000, data=b"a" * 10)
    s.s(5001, 1011, ACK, 1000)
    s.c(1011, 5001, ACK | FIN, 1000)
    s.s(7000, 1012, ACK, 1000)
    s.s(5001, 99999, ACK, 1000)
    s.c(1500, 5001, ACK, 1000)
    s.s(5001, 1012, ACK, 1000)
    s.s(8000, 1012, ACK | FIN, 1000)
    s.s(5001, 1012, ACK | FIN, 1000)
    s.c(1700, 5002, ACK, 1000)
    s.c(1012, 5002, ACK, 1000)
    # 40007: closing, server FIN first; wrong sequence numbers and acks after it.
    s = Session(out, 40007)
    s.handshake(swin=1000, cwin=1000)
    s.c(1001, 5001, ACK | PSH, 1000, data=b"a" * 10)
    s.s(5001, 1011, ACK | FIN, 1000)
    s.c(1011, 99999, ACK, 1000)
    s.c(3000, 5002, ACK, 1000)
    s.c(1011, 5002, ACK, 1000)
    s.c(9000, 5002, ACK | FIN, 1000)
    s.c(1011, 5002, ACK | FIN, 1000)
    s.s(7000, 1012, ACK, 1000)
    s.s(5002, 99999, ACK, 1000)
    s.s(5002, 1012, ACK, 1000)
    # 40008: simultaneous close (CLOSING), then wrong sequence numbers.
    s = Session(out, 40008)
    s.handshake(swin=1000, cwin=1000)
    s.c(1001, 5001, ACK | FIN, 1000)
    s.s(5001, 1001, ACK | FIN, 1000)
    s.c(3000, 5002, ACK, 1000)
    s.c(1002, 99999, ACK, 1000)
    s.c(1002, 5002, ACK, 1000)
    s.s(9000, 1002, ACK, 1000)
    s.s(5002, 1002, ACK, 1000)
    # 40009: FIN out of window and with an invalid ack in ESTABLISHED; RST with an
    # invalid ack.
    s = Session(out, 40009)
    s.handshake(swin=1000, cwin=1000)
    s.c(1001, 5001, ACK | PSH, 1000, data=b"a" * 10)
    s.c(900, 5001, ACK | FIN, 1000)
    s.c(90000, 5001, ACK | FIN, 1000)
    s.c(1011, 77777, ACK | FIN, 1000)
    s.s(5001, 88888, ACK | RST, 1000)
    s.s(5001, 1011, ACK | RST, 1000)
    # 40010: a zero window, a probe, a window update.
    s = Session(out, 40010)
    s.handshake(swin=1000, cwin=1000)
    s.c(1001, 5001, ACK | PSH, 1000, data=b"a" * 10)
    s.s(5001, 1011, ACK, 0)
    s.c(1011, 5001, ACK | PSH, 1000, data=b"z")
    s.s(5001, 1011, ACK, 0)
    s.c(1011, 5001, ACK | PSH, 1000, data=b"z")
    s.s(5001, 1011, ACK, 1000)
    s.c(1011, 5001, ACK | PSH, 1000, data=b"b" * 10)
    s.c(1021, 5001, ACK | FIN, 1000)
    s.s(5001, 1022, ACK | FIN, 1000)
    s.c(1022, 5002, ACK, 1000)
    # 40011: FIN_WAIT1 (server FIN first): client ACKs inside the window but not at its
    # next sequence number stay in FIN_WAIT1 without an event; the server's ACK past
    # its window and with an invalid ack are fin1 events.
    s = Session(out, 40011)
    s.handshake(swin=1000, cwin=1000)
    s.c(1001, 5001, ACK | PSH, 1000, data=b"a" * 10)
    s.s(5001, 1011, ACK | FIN, 1000)
    s.c(1500, 5002, ACK, 1000)
    s.c(1005, 5002, ACK, 1000)
    s.s(9000, 1011, ACK, 1000)
    s.s(5002, 99999, ACK, 1000)
    s.s(4000, 1011, ACK, 1000)
    s.c(1011, 5001, ACK, 1000)
    s.c(1011, 5002, ACK | FIN, 1000)
    s.s(5002, 1012, ACK, 1000)
    # 40012: FIN_WAIT2 and TIME_WAIT: wrong sequence numbers and invalid acks of both
    # sides; the session ends in TIME_WAIT.
    s = Session(out, 40012)
    s.handshake(swin=1000, cwin=1000)
    s.s(5001, 1001, ACK | FIN, 1000)
    s.c(1001, 5002, ACK, 1000)
    s.c(1500, 5002, ACK, 1000)
    s.c(1001, 99999, ACK, 1000)
    s.s(9000, 1001, ACK, 1000)
    s.s(5002, 99999, ACK, 1000)
    s.s(5002, 1001, ACK | PSH, 1000, data=b"x" * 5)
    s.c(1001, 5002, ACK | FIN, 1000)
    s.c(1500, 5002, ACK, 1000)
    s.c(1002, 99999, ACK, 1000)
    s.s(5500, 1002, ACK, 1000)
    s.s(5002, 1002, ACK, 1000)
    # 40013: CLOSE_WAIT: the server resends data the client acknowledged
    # (closewait_pkt_before_last_ack), then LAST_ACK.
    s = Session(out, 40013)
    s.handshake(swin=1000, cwin=1000)
    s.s(5001, 1001, ACK | PSH, 1000, data=b"a" * 10)
    s.c(1001, 5011, ACK | FIN, 1000)
    s.s(5001, 1002, ACK | PSH, 1000, data=b"a" * 5)
    s.s(5011, 1002, ACK | PSH, 1000, data=b"b" * 5)
    s.c(1002, 99999, ACK, 1000)
    s.c(1002, 5011, ACK | FIN, 1000)
    s.s(5016, 1002, ACK | FIN, 1000)
    s.s(5017, 99999, ACK, 1000)
    s.c(1500, 5017, ACK, 1000)
    s.c(1002, 5017, ACK, 1000)
    # 40014: CLOSING (the client's FIN without ACK after the server's FIN).
    s = Session(out, 40014)
    s.handshake(swin=1000, cwin=1000)
    s.s(5001, 1001, FIN | ACK, 1000)
    s.c(1001, 5001, FIN, 1000)
    s.c(1500, 5002, ACK, 1000)
    s.s(8000, 1002, ACK, 1000)
    s.s(5002, 99999, ACK, 1000)
    s.s(5002, 1002, ACK, 1000)
    s.c(1002, 5002, ACK, 1000)
    # 40015: ESTABLISHED: retransmissions up to and before what was acknowledged,
    # keep-alives, an old server ACK.
    s = Session(out, 40015)
    s.handshake(swin=1000, cwin=1000)
    s.c(1001, 5001, ACK | PSH, 1000, data=b"a" * 10)
    s.s(5001, 1011, ACK, 1000)
    s.c(1001, 5001, ACK | PSH, 1000, data=b"a" * 10)
    s.c(1001, 5001, ACK | PSH, 1000, data=b"a" * 5)
    s.c(1005, 5001, ACK, 1000)
    s.c(1010, 5001, ACK, 1000)
    s.c(1010, 5001, ACK | PSH, 1000, data=b"a")
    s.c(1005, 5001, ACK | PSH, 1000, data=b"a" * 10)
    s.s(4000, 1015, ACK, 1000)
    s.s(5001, 1015, ACK, 1000)
    s.c(1015, 5001, ACK | FIN, 1000)
    s.s(5001, 1016, ACK | FIN, 1000)
    s.c(1016, 5002, ACK, 1000)
    return out


def main(path):
    frames = scenarios()
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i, fr in enumerate(frames):
            ts = 1_700_000_000 + i
            f.write(struct.pack("<IIII", ts, 0, len(fr), len(fr)) + fr)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "stream-window.pcap")
