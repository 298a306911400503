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
    paws(out)
    bad_window_updates(out)
    retransmissions(out)
    four_way_handshakes(out)
    shutdown_syns(out)
    return out


def shutdown_syns(out):
    """Sessions 40037-40039: shutdown_syn_resend, a SYN again once a side closed."""
    # 40037: FIN_WAIT1 (the server's FIN): the client's SYN, with its ISN and another,
    # and the server's SYN/ACK again.
    s = Session(out, 40037)
    s.handshake(swin=1000, cwin=1000)
    s.s(5001, 1001, ACK | FIN, 1000)
    s.c(1000, 0, SYN, 1000)
    s.c(7777, 0, SYN, 1000)
    s.s(5000, 1001, SYN | ACK, 1000)
    s.c(1001, 5002, ACK | FIN, 1000)
    s.s(5002, 1002, ACK, 1000)
    # 40038: CLOSE_WAIT (the client's FIN): the client's SYN with its ISN.
    s = Session(out, 40038)
    s.handshake(swin=1000, cwin=1000)
    s.c(1001, 5001, ACK | FIN, 1000)
    s.c(1000, 0, SYN, 1000)
    s.s(5001, 1002, ACK | FIN, 1000)
    s.c(1002, 5002, ACK, 1000)
    # 40039: TIME_WAIT: the client's SYN with its ISN.
    s = Session(out, 40039)
    s.handshake(swin=1000, cwin=1000)
    s.s(5001, 1001, ACK | FIN, 1000)
    s.c(1001, 5002, ACK | FIN, 1000)
    s.c(1000, 0, SYN, 1000)
    s.s(5002, 1002, ACK, 1000)


def four_way_handshakes(out):
    """Sessions 40033-40036: SYN, the server's SYN, the client's SYN/ACK, the server's
    ACK, each with its wrong variants refused first."""
    def syns(port):
        s = Session(out, port)
        s.c(1000, 0, SYN)
        s.s(3000, 0, SYN)
        return s

    def rest(s):
        s.c(1001, 3001, ACK | PSH, data=b"x" * 5)
        s.s(3001, 1006, ACK | FIN)
        s.c(1006, 3002, ACK | FIN)
        s.s(3002, 1007, ACK)

    # 40033: the client's SYN/ACK acknowledges something else than the server's SYN,
    # then repeats another SYN; the right one follows.
    s = syns(40033)
    s.c(1000, 3005, SYN | ACK)
    s.c(1007, 3001, SYN | ACK)
    s.c(1000, 3001, SYN | ACK)
    s.s(3001, 1001, ACK)
    rest(s)
    # 40034: the server's ACK with wrong sequence numbers (the SYN's own: no event).
    s = syns(40034)
    s.c(1000, 3001, SYN | ACK)
    s.s(3009, 1001, ACK)
    s.s(2999, 1001, ACK)
    s.s(3000, 1001, ACK)
    s.s(3001, 1001, ACK)
    rest(s)
    # 40035: the server's ACK acknowledges more than the client's SYN; an older
    # acknowledgement completes the handshake.
    s = syns(40035)
    s.c(1000, 3001, SYN | ACK)
    s.s(3001, 1002, ACK)
    s.s(3001, 1500, ACK)
    s.s(3001, 900, ACK)
    rest(s)
    # 40036: no anomaly.
    s = syns(40036)
    s.c(1000, 3001, SYN | ACK)
    s.s(3001, 1001, ACK)
    rest(s)


def retransmissions(out):
    """Session 40031: pkt_retransmission, raised once a side closed."""
    s = Session(out, 40031)
    s.handshake(swin=1000, cwin=1000)
    s.c(1001, 5001, ACK | PSH, 1000, data=b"a" * 10)
    s.c(1001, 5001, ACK | PSH, 1000, data=b"a" * 10)
    s.c(1011, 5001, ACK | FIN, 1000)
    s.c(1001, 5001, ACK | PSH, 1000, data=b"a" * 10)
    s.s(5001, 1012, ACK | PSH, 1000, data=b"b" * 10)
    s.s(5001, 1012, ACK | PSH, 1000, data=b"b" * 10)
    s.s(5005, 1012, ACK | PSH, 1000, data=b"b" * 6)
    s.s(5005, 1012, ACK | PSH, 1000, data=b"b" * 10)
    s.s(5005, 1012, ACK, 1000)
    s.c(1012, 5015, ACK, 1000)
    s.s(5015, 1012, ACK | FIN, 1000)
    s.c(1012, 5016, ACK, 1000)


def ts_handshake(s, cts=100, sts=500, ack_ts=None):
    """A handshake whose SYN and SYN/ACK carry timestamps (None: no option)."""
    s.c(1000, 0, SYN, ts=None if cts is None else (cts, 0))
    s.s(5000, 1001, SYN | ACK, ts=None if sts is None else (sts, cts or 0))
    s.c(1001, 5001, ACK, ts=(ack_ts if ack_ts is not None else (cts or 0) + 1, sts or 0))


def paws(out):
    """Sessions 40016-40023 and 40030: TCP timestamps (PAWS, pkt_invalid_timestamp)."""
    # 40016: a value before the sender's last is refused (data, a pure ACK, a RST,
    # the value 0); a packet without the option is not checked.
    s = Session(out, 40016)
    ts_handshake(s)
    s.c(1001, 5001, ACK | PSH, data=b"a" * 10, ts=(102, 500))
    s.c(1011, 5001, ACK | PSH, data=b"b" * 10, ts=(50, 500))
    s.c(1011, 5001, ACK | PSH, data=b"c" * 10)
    s.c(1021, 5001, ACK | PSH, data=b"d" * 10, ts=(0, 500))
    s.c(1021, 5001, ACK | PSH, data=b"e" * 10, ts=(102, 500))
    s.s(5001, 1031, ACK, ts=(501, 102))
    s.s(5001, 1031, ACK, ts=(400, 102))
    s.s(5001, 1031, ACK | RST, ts=(300, 102))
    s.c(1031, 5001, ACK | FIN, ts=(103, 501))
    s.s(5001, 1032, ACK | FIN, ts=(502, 103))
    s.c(1032, 5002, ACK, ts=(104, 502))
    # 40017: the SYN/ACK without the option: timestamps are not checked.
    s = Session(out, 40017)
    ts_handshake(s, sts=None)
    s.c(1001, 5001, ACK | PSH, data=b"a" * 10, ts=(102, 0))
    s.c(1011, 5001, ACK | PSH, data=b"b" * 10, ts=(50, 0))
    s.s(5001, 1021, ACK | FIN)
    s.c(1021, 5002, ACK | FIN, ts=(40, 0))
    s.s(5002, 1022, ACK)
    # 40018: 32-bit serial order (a value 2^31 + 10 ahead is before); a data packet's
    # value never becomes the last one, so 150 after 200 passes and 60 does not.
    s = Session(out, 40018)
    ts_handshake(s)
    s.c(1001, 5001, ACK | PSH, data=b"a" * 10, ts=(102, 500))
    s.c(1011, 5001, ACK | PSH, data=b"b" * 10, ts=(102 + 2**31 + 10, 500))
    s.c(1011, 5001, ACK | PSH, data=b"c" * 10, ts=(200, 500))
    s.c(1021, 5001, ACK | PSH, data=b"d" * 10, ts=(150, 500))
    s.c(1031, 5001, ACK | PSH, data=b"e" * 10, ts=(60, 500))
    s.c(1031, 5001, ACK | PSH, data=b"f" * 10, ts=(201, 500))
    s.s(5001, 1041, ACK | FIN, ts=(501, 201))
    s.c(1041, 5002, ACK | FIN, ts=(202, 501))
    s.s(5002, 1042, ACK, ts=(502, 202))
    # 40019: packets without payload (pure ACKs, a FIN) move the last value.
    s = Session(out, 40019)
    ts_handshake(s)
    s.c(1001, 5001, ACK | PSH, data=b"a" * 10, ts=(200, 500))
    s.c(1011, 5001, ACK, ts=(150, 500))
    s.c(1011, 5001, ACK, ts=(140, 500))
    s.c(1011, 5001, ACK | FIN, ts=(300, 500))
    s.c(1012, 5001, ACK, ts=(250, 500))
    s.s(5001, 1012, ACK | FIN, ts=(501, 300))
    s.c(1012, 5002, ACK, ts=(301, 501))
    # 40020: the SYN says 0: the handshake's ACK sets the client's value (then 5 after
    # 20 is refused); the server is checked from its SYN/ACK's value.
    s = Session(out, 40020)
    ts_handshake(s, cts=0, ack_ts=10)
    s.c(1001, 5001, ACK, ts=(20, 500))
    s.c(1001, 5001, ACK, ts=(5, 500))
    s.s(5001, 1001, ACK, ts=(600, 20))
    s.s(5001, 1001, ACK, ts=(550, 20))
    s.c(1001, 5001, ACK | FIN, ts=(21, 600))
    s.s(5001, 1002, ACK | FIN, ts=(601, 21))
    s.c(1002, 5002, ACK, ts=(22, 601))
    # 40021: the SYN/ACK says 0: the server is not checked, the client is.
    s = Session(out, 40021)
    ts_handshake(s, sts=0)
    s.c(1001, 5001, ACK, ts=(120, 0))
    s.c(1001, 5001, ACK, ts=(110, 0))
    s.s(5001, 1001, ACK, ts=(5, 120))
    s.s(5001, 1001, ACK, ts=(4, 120))
    s.c(1001, 5001, ACK | FIN, ts=(121, 5))
    s.s(5001, 1002, ACK | FIN, ts=(6, 121))
    s.c(1002, 5002, ACK, ts=(122, 6))
    # 40022: the handshake's ACK before the SYN's value is refused, and so is the data
    # after it; the server's ACK then completes the handshake (IDS mode).
    s = Session(out, 40022)
    ts_handshake(s, ack_ts=50)
    s.c(1001, 5001, ACK | PSH, data=b"a" * 10, ts=(60, 500))
    s.s(5001, 1001, ACK, ts=(501, 100))
    s.c(1001, 5001, ACK | PSH, data=b"b" * 10, ts=(101, 501))
    s.s(5001, 1011, ACK | FIN, ts=(502, 101))
    s.c(1011, 5002, ACK | FIN, ts=(102, 502))
    s.s(5002, 1012, ACK, ts=(503, 102))
    # 40023: a SYN/ACK with the option and an echo reply answering a SYN without the
    # option is refused, and so are the server's later packets with them: the session
    # stays in SYN_SENT.
    s = Session(out, 40023)
    s.c(1000, 0, SYN)
    s.s(5000, 1001, SYN | ACK, ts=(500, 100))
    s.c(1001, 5001, ACK)
    s.c(1001, 5001, ACK | PSH, data=b"a" * 10)
    s.s(5001, 1011, ACK | PSH, data=b"b" * 10, ts=(501, 100))
    s.c(1011, 5011, ACK | FIN)
    s.s(5011, 1012, ACK | FIN, ts=(502, 100))
    s.c(1012, 5012, ACK)
    # 40030: the same with an echo reply of 0: taken, and no timestamps are checked.
    s = Session(out, 40030)
    s.c(1000, 0, SYN)
    s.s(5000, 1001, SYN | ACK, ts=(500, 0))
    s.c(1001, 5001, ACK, ts=(10, 500))
    s.c(1001, 5001, ACK, ts=(5, 500))
    s.s(5001, 1001, ACK, ts=(600, 10))
    s.s(5001, 1001, ACK, ts=(550, 10))
    s.c(1001, 5001, ACK | FIN)
    s.s(5001, 1002, ACK | FIN)
    s.c(1002, 5002, ACK)


def bad_window_updates(out):
    """Sessions 40024-40029 and 40032: pkt_bad_window_update. After the handshake each side sends
    10 bytes; the server may then send up to 6001 (last ACK 5001 + window 1000)."""
    def session(port):
        s = Session(out, port)
        s.handshake(swin=1000, cwin=1000)
        s.c(1001, 5001, ACK | PSH, 1000, data=b"a" * 10)
        s.s(5001, 1011, ACK | PSH, 1000, data=b"b" * 10)
        return s

    def close(s, c, sv):
        s.c(c, sv, ACK | FIN, 1000)
        s.s(sv, c + 1, ACK | FIN, 1000)
        s.c(c + 1, sv + 1, ACK, 1000)

    # 40024: client packets ahead of its next sequence number, acknowledging server
    # data never sent, whose window ends before 6001 (with data too); a FIN is not one.
    s = session(40024)
    s.c(1500, 5100, ACK, 100)
    s.c(1500, 5100, ACK | PSH, 100, data=b"x" * 5)
    s.c(1500, 5012, ACK, 988)
    close(s, 1011, 5011)
    s = session(40032)
    s.c(1500, 5100, ACK | FIN, 100)
    # 40025: the window ends at 6001 exactly: no event.
    s = session(40025)
    s.c(1500, 5012, ACK, 989)
    close(s, 1500, 5011)
    # 40026: at its next sequence number, or acknowledging only what was sent: no event.
    s = session(40026)
    s.c(1011, 5100, ACK, 100)
    s = session(40027)
    s.c(1500, 5011, ACK, 100)
    # 40028: the server's in CLOSE_WAIT, the client's in FIN_WAIT1.
    s = session(40028)
    s.c(1011, 5011, ACK | FIN, 1000)
    s.s(5500, 1100, ACK, 100)
    s.s(5011, 1012, ACK | FIN, 1000)
    s.c(1012, 5012, ACK, 1000)
    s = session(40029)
    s.s(5011, 1011, ACK | FIN, 1000)
    s.c(1500, 5100, ACK, 100)
    s.c(1011, 5012, ACK | FIN, 1000)
    s.s(5012, 1012, ACK, 1000)


def main(path):
    frames = scenarios()
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i, fr in enumerate(frames):
            ts = 1_700_000_000 + i
            f.write(struct.pack("<IIII", ts, 0, len(fr), len(fr)) + fr)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "stream-window.pcap")
