#!/usr/bin/env python3
"""Writes the ICS test captures (standard library only): one TCP session per
protocol, with a handshake, requests and responses in separate segments, and FIN.

    python3 make_pcaps.py   # writes modbus/input.pcap and enip/input.pcap next to it
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


def ip4(a):
    return bytes(int(x) for x in a.split("."))


class Session:
    """A TCP session between a client and a server, written as Ethernet frames."""

    def __init__(self, cli, srv, sport, dport, t0=1700000000):
        self.cli, self.srv, self.sport, self.dport = cli, srv, sport, dport
        self.seq = [1000, 5000]
        self.t = t0
        self.frames = []

    def _frame(self, side, flags, payload=b""):
        src, dst = (self.cli, self.srv) if side == 0 else (self.srv, self.cli)
        sp, dp = (self.sport, self.dport) if side == 0 else (self.dport, self.sport)
        seq, ack = self.seq[side], self.seq[1 - side]
        tcp = struct.pack("!HHIIBBHHH", sp, dp, seq, ack if flags & 0x10 else 0,
                          5 << 4, flags, 65535, 0, 0) + payload
        pseudo = ip4(src) + ip4(dst) + struct.pack("!BBH", 0, 6, len(tcp))
        tcp = tcp[:16] + struct.pack("!H", csum(pseudo + tcp)) + tcp[18:]
        ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp), len(self.frames) + 1,
                         0x4000, 64, 6, 0, ip4(src), ip4(dst))
        ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
        mac = [b"\x00\x0c\x29\x00\x00\x01", b"\x00\x0c\x29\x00\x00\x02"]
        eth = mac[1 - side] + mac[side] + b"\x08\x00"
        self.t += 0.01
        self.frames.append((self.t, eth + ip + tcp))
        self.seq[side] = (seq + len(payload) + (1 if flags & 0x03 else 0)) & 0xFFFFFFFF

    def handshake(self):
        self._frame(0, 0x02)
        self._frame(1, 0x12)
        self._frame(0, 0x10)

    def send(self, side, payload):
        """`payload` from the client (side 0) or the server (1), acknowledged."""
        self._frame(side, 0x18, payload)
        self._frame(1 - side, 0x10)

    def close(self):
        self._frame(0, 0x11)
        self._frame(1, 0x11)
        self._frame(0, 0x10)

    def write(self, path):
        with open(path, "wb") as f:
            f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
            for t, fr in self.frames:
                f.write(struct.pack("<IIII", int(t), int((t % 1) * 1e6), len(fr), len(fr)))
                f.write(fr)


def mbap(tid, unit, pdu, proto=0, length=None):
    return struct.pack("!HHHB", tid, proto, len(pdu) + 1 if length is None else length,
                       unit) + pdu


def modbus(path):
    s = Session("10.0.0.1", "10.0.0.2", 40502, 502)
    s.handshake()
    c = lambda *a, **k: s.send(0, mbap(*a, **k))
    r = lambda *a, **k: s.send(1, mbap(*a, **k))
    # Read Holding Registers 0..9, answered.
    c(1, 1, struct.pack("!BHH", 3, 0, 10))
    r(1, 1, struct.pack("!BB", 3, 20) + bytes(range(20)))
    # Write Single Register 5 = 0x1234, echoed.
    c(2, 1, struct.pack("!BHH", 6, 5, 0x1234))
    r(2, 1, struct.pack("!BHH", 6, 5, 0x1234))
    # Write Multiple Registers 10..11.
    c(3, 1, struct.pack("!BHHBHH", 16, 10, 2, 4, 0xABCD, 0x0001))
    r(3, 1, struct.pack("!BHH", 16, 10, 2))
    # Read Coils 100..107: exception 2 (illegal data address).
    c(4, 2, struct.pack("!BHH", 1, 100, 8))
    r(4, 2, struct.pack("!BB", 0x81, 2))
    # Diagnostics, Return Query Data.
    c(5, 1, struct.pack("!BHH", 8, 0, 0xA537))
    r(5, 1, struct.pack("!BHH", 8, 0, 0xA537))
    # Read/Write Multiple Registers: read 20..21, write 30.
    c(6, 1, struct.pack("!BHHHHBH", 23, 20, 2, 30, 1, 2, 0x0042))
    r(6, 1, struct.pack("!BBHH", 23, 4, 7, 8))
    # Read Input Registers, two bytes short of its address and quantity (malformed).
    c(7, 1, struct.pack("!BH", 4, 0))
    # Write Single Coil 50 on, echoed (after the malformed request).
    c(8, 1, struct.pack("!BHH", 5, 50, 0xFF00))
    r(8, 1, struct.pack("!BHH", 5, 50, 0xFF00))
    # A response without a request.
    r(99, 1, struct.pack("!BHH", 6, 1, 1))
    s.close()
    s.write(path)


def encap(command, data=b"", session=0, status=0):
    """An EtherNet/IP encapsulation header (little-endian) and its data."""
    return struct.pack("<HHII8sI", command, len(data), session, status, b"osprey00", 0) + data


def rr_data(cip, connected=False):
    """SendRRData/SendUnitData data: interface handle, timeout and two common packet
    format items (a null or connected address, the unconnected or connected data)."""
    if connected:
        items = struct.pack("<HHI", 0xA1, 4, 0x11223344) + struct.pack("<HHH", 0xB1, len(cip) + 2, 1)
    else:
        items = struct.pack("<HHHH", 0, 0, 0xB2, len(cip))
    return struct.pack("<IHH", 0, 10, 2) + items + cip


def enip(path):
    s = Session("10.0.0.3", "10.0.0.4", 40818, 44818)
    s.handshake()
    sess = 0x12345678
    # RegisterSession.
    s.send(0, encap(0x65, struct.pack("<HH", 1, 0)))
    s.send(1, encap(0x65, struct.pack("<HH", 1, 0), session=sess))
    # ListIdentity, answered with one identity item.
    s.send(0, encap(0x63))
    ident = struct.pack("<HHHH", 1, 0x0C, 0x2B, 1) + bytes(16) + struct.pack(
        "<HHHBBHI", 1, 14, 0x36, 2, 3, 0x30, 0x0BADCAFE) + bytes([8]) + b"PLC-5000" + bytes([3])
    s.send(1, encap(0x63, ident))
    # SendRRData: CIP Get_Attribute_Single, class 1, instance 1, attribute 7.
    get = bytes([0x0E, 3, 0x20, 0x01, 0x24, 0x01, 0x30, 0x07])
    s.send(0, encap(0x6F, rr_data(get), session=sess))
    s.send(1, encap(0x6F, rr_data(bytes([0x8E, 0, 0, 0, 8]) + b"PLC-5000"), session=sess))
    # SendUnitData over a connection: CIP Read Tag "Tag1", and its reply.
    read = bytes([0x4C, 3, 0x91, 4]) + b"Tag1" + b"\x01\x00"
    s.send(0, encap(0x70, rr_data(read, connected=True), session=sess))
    s.send(1, encap(0x70, rr_data(bytes([0xCC, 0, 0, 0, 0xC4, 0, 42, 0, 0, 0]), connected=True), session=sess))
    # An unknown command, answered with status 1 (invalid or unsupported command).
    s.send(0, encap(0x99, b"\x00\x00", session=sess))
    s.send(1, encap(0x99, session=sess, status=1))
    # UnRegisterSession.
    s.send(0, encap(0x66, session=sess))
    s.close()
    s.write(path)


if __name__ == "__main__":
    os.makedirs(os.path.join(HERE, "modbus"), exist_ok=True)
    modbus(os.path.join(HERE, "modbus", "input.pcap"))
    os.makedirs(os.path.join(HERE, "enip"), exist_ok=True)
    enip(os.path.join(HERE, "enip", "input.pcap"))
