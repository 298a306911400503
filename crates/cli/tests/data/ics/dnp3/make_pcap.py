#!/usr/bin/env python3
"""Writes dnp3/input.pcap (standard library only), DNP3 frames built from IEEE 1815:
link frames (0x0564, CRC-16/DNP per header and 16-byte block), transport segments
and application fragments.

Three TCP sessions on port 20000 (master 10.0.0.1, outstation 10.0.0.2): reads of
class data answered with binary inputs, counters and analog values (one response
split over two transport segments), a time write, select/operate of a CROB, a cold
restart answered with a time delay, an unsolicited response and its confirm, a
link-layer only frame, analog outputs; then a bad block CRC, an unknown object and a
request cut inside an object header; then a bad header CRC. One UDP exchange on port
20000 (Suricata 7 parses DNP3 over TCP only).

    python3 make_pcap.py
"""
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from make_pcaps import Session, csum, ip4  # noqa: E402


def crc(data):
    """CRC-16/DNP: polynomial 0x3D65 reflected, initial 0, complemented."""
    c = 0
    for b in data:
        c ^= b
        for _ in range(8):
            c = (c >> 1) ^ 0xA6BC if c & 1 else c >> 1
    return struct.pack("<H", (~c) & 0xFFFF)


def link(ctrl, dst, src, user=b"", bad_header=False, bad_block=None):
    """One link frame: header with its CRC, user data in 16-byte blocks with theirs."""
    head = struct.pack("<BBBBHH", 0x05, 0x64, 5 + len(user), ctrl, dst, src)
    c = crc(head)
    if bad_header:
        c = bytes([c[0] ^ 0xFF, c[1]])
    out = head + c
    for i in range(0, len(user), 16):
        block = user[i:i + 16]
        c = crc(block)
        if bad_block == i // 16:
            c = bytes([c[0], c[1] ^ 0x55])
        out += block + c
    return out


MASTER, OUTSTATION = 1, 10
TSEQ = [0, 0]


def frames(side, apdu, ctrl=None, **kw):
    """The link frames of one application fragment from the master (side 0) or the
    outstation (1): transport segments of at most 249 bytes."""
    dst, src = (OUTSTATION, MASTER) if side == 0 else (MASTER, OUTSTATION)
    if ctrl is None:
        ctrl = 0xC4 if side == 0 else 0x44
    chunks = [apdu[i:i + 249] for i in range(0, len(apdu), 249)] or [b""]
    out = b""
    for i, ch in enumerate(chunks):
        th = (0x40 if i == 0 else 0) | (0x80 if i == len(chunks) - 1 else 0)
        th |= TSEQ[side] & 0x3F
        TSEQ[side] += 1
        out += link(ctrl, dst, src, bytes([th]) + ch, **kw)
    return out


def app(seq, fc, objects=b"", iin=None, fir=True, fin=True, con=False, uns=False):
    c = (0x80 if fir else 0) | (0x40 if fin else 0) | (0x20 if con else 0)
    c |= (0x10 if uns else 0) | (seq & 0x0F)
    head = bytes([c, fc])
    if iin is not None:
        head += struct.pack("BB", iin & 0xFF, iin >> 8)
    return head + objects


def obj(group, var, qual, rng=b"", data=b""):
    return bytes([group, var, qual]) + rng + data


def session(port, t0, steps, reset=False):
    """One TCP session from the master's `port`: `steps` are (side, bytes); closed
    with FINs, or reset by the master (`reset`)."""
    TSEQ[0] = TSEQ[1] = 0
    s = Session("10.0.0.1", "10.0.0.2", port, 20000, t0=t0)
    s.handshake()
    for side, data in steps:
        s.send(side, data)
    if reset:
        s._frame(0, 0x14)
    else:
        s.close()
    return s.frames


def main_session():
    """Polls, controls, a restart and unsolicited events."""
    steps = []
    # 1. Integrity poll: class 3, 2, 1, 0 (g60v4..v1, all objects).
    req = app(0, 1, obj(60, 2, 6) + obj(60, 3, 6) + obj(60, 4, 6) + obj(60, 1, 6))
    steps.append((0, frames(0, req)))
    # Response: restart and class 1 events; binary inputs with flags (g1v2, 8-bit
    # start/stop 0..3), binary input packed (g1v1, 0..9), counters (g20v1, 32-bit
    # with flag, 16-bit start/stop), analog inputs (g30v1 and g30v2), a float (g30v5).
    bi = obj(1, 2, 0x00, bytes([0, 3]), bytes([0x01, 0x81, 0x03, 0x02]))
    packed = obj(1, 1, 0x00, bytes([0, 9]), bytes([0b10100101, 0b10]))
    ctr = obj(20, 1, 0x01, struct.pack("<HH", 0, 1),
              struct.pack("<BIBI", 0x01, 12345, 0x21, 7))
    ai = obj(30, 1, 0x00, bytes([0, 1]), struct.pack("<BiBi", 0x01, -5, 0x01, 100000))
    ai16 = obj(30, 2, 0x00, bytes([5, 5]), struct.pack("<Bh", 0x41, 321))
    flt = obj(30, 5, 0x00, bytes([7, 7]), struct.pack("<Bf", 0x01, 2.5))
    steps.append((1, frames(1, app(0, 129, bi + packed + ctr + ai + ai16 + flt,
                                   iin=0x0082))))
    # 2. Write time and date (g50v1, 8-bit count 1), answered with no objects.
    steps.append((0, frames(0, app(1, 2, obj(50, 1, 0x07, bytes([1]),
                                             (1700000000123).to_bytes(6, "little"))))))
    steps.append((1, frames(1, app(1, 129, iin=0x0000))))
    # 3. Select then operate a CROB (g12v1, 8-bit index prefix, 8-bit count).
    crob = obj(12, 1, 0x17, bytes([1]),
               struct.pack("<BBBII", 3, 0x41, 1, 100, 0) + bytes([0]))
    steps.append((0, frames(0, app(2, 3, crob))))
    steps.append((1, frames(1, app(2, 129, crob, iin=0x0000))))
    steps.append((0, frames(0, app(3, 4, crob))))
    steps.append((1, frames(1, app(3, 129, crob, iin=0x0000))))
    # 4. A read of 64 analog inputs by range (Suricata looks for points in the
    # request: an unknown object, the transaction done at the end of the flow),
    # answered in one fragment over two transport segments.
    steps.append((0, frames(0, app(4, 1, obj(30, 3, 0x01, struct.pack("<HH", 0, 63))))))
    many = b"".join(struct.pack("<i", i * 10) for i in range(64))
    steps.append((1, frames(1, app(4, 129, obj(30, 3, 0x01, struct.pack("<HH", 0, 63),
                                                many), iin=0x0000))))
    # 5. Cold restart, answered with a time delay (g52v2, count 1).
    steps.append((0, frames(0, app(5, 13))))
    steps.append((1, frames(1, app(5, 129, obj(52, 2, 0x07, bytes([1]),
                                                struct.pack("<H", 500)), iin=0x0000))))
    # 6. Unsolicited response with binary input events with time (g2v2, 8-bit
    # index prefix, 8-bit count 2) and a double-bit input (g4v1); the confirm.
    ev = obj(2, 2, 0x17, bytes([2]),
             struct.pack("<BB", 3, 0x81) + (1700000001000).to_bytes(6, "little")
             + struct.pack("<BB", 4, 0x01) + (1700000002000).to_bytes(6, "little"))
    ev += obj(4, 1, 0x00, bytes([2, 2]), bytes([0x81]))
    steps.append((1, frames(1, app(6, 130, ev, iin=0x0604, con=True, uns=True))))
    steps.append((0, frames(0, app(6, 0, uns=True))))
    # 7. A link-layer only frame (request link status, no user data).
    steps.append((0, link(0xC9, OUTSTATION, MASTER)))
    # 8. Direct operate no ack of an analog output (g41v2, 16-bit index prefix,
    # 16-bit count).
    ao = obj(41, 2, 0x28, struct.pack("<H", 1), struct.pack("<Hh", 7, -300) + b"\x00")
    steps.append((0, frames(0, app(7, 6, ao))))
    # 9. Analog output status (g40v1) with an 8-bit index prefix, a counter event
    # with time (g22v5) and a packed binary output (g10v1).
    out = obj(40, 1, 0x17, bytes([2]), bytes([1]) + struct.pack("<Bi", 1, 42)
              + bytes([2]) + struct.pack("<Bi", 1, -42))
    out += obj(22, 5, 0x07, bytes([1]), struct.pack("<BI", 0x01, 99)
               + (1700000003000).to_bytes(6, "little"))
    out += obj(10, 1, 0x00, bytes([0, 4]), bytes([0b10110]))
    steps.append((0, frames(0, app(8, 1, obj(40, 1, 6) + obj(22, 0, 6) + obj(10, 1, 6)))))
    steps.append((1, frames(1, app(8, 129, out, iin=0x0000))))
    return session(41000, 1700000000, steps, reset=True)


def error_session():
    """A bad block CRC, an unknown object and a request cut inside an object
    header; reset (the transactions left incomplete are done when the flow ends)."""
    steps = [(0, frames(0, app(0, 1, obj(60, 1, 6)))),
             (1, frames(1, app(0, 129, iin=0x0000)))]
    steps.append((0, frames(0, app(1, 1, obj(60, 1, 6)), bad_block=0)))
    steps.append((0, frames(0, app(2, 1, obj(60, 2, 6)))))
    steps.append((1, frames(1, app(2, 129, iin=0x0000))))
    steps.append((0, frames(0, app(3, 2, obj(99, 1, 0x00, bytes([0, 1]), b"\0\0")))))
    steps.append((1, frames(1, app(3, 129, iin=0x0002))))
    steps.append((0, frames(0, app(4, 1, bytes([30, 1])))))
    return session(41001, 1700000050, steps, reset=True)


def bad_header_session():
    """A header CRC error: the parser stops, the next request is not read."""
    steps = [(0, frames(0, app(0, 1, obj(60, 1, 6)))),
             (1, frames(1, app(0, 129, iin=0x0000)))]
    steps.append((0, frames(0, app(1, 1, obj(60, 1, 6)), bad_header=True)))
    steps.append((0, frames(0, app(2, 13))))
    return session(41002, 1700000080, steps)


def dnp3_udp():
    """One request and its response over UDP."""
    out = []
    t = 1700000100.0
    for side, payload in [
        (0, frames(0, app(0, 1, obj(60, 1, 6)))),
        (1, frames(1, app(0, 129, obj(1, 2, 0x00, bytes([0, 0]), b"\x81"), iin=0x0010))),
    ]:
        src, dst = ("10.0.0.3", "10.0.0.4") if side == 0 else ("10.0.0.4", "10.0.0.3")
        sp, dp = (42000, 20000) if side == 0 else (20000, 42000)
        udp = struct.pack("!HHHH", sp, dp, 8 + len(payload), 0) + payload
        pseudo = ip4(src) + ip4(dst) + struct.pack("!BBH", 0, 17, len(udp))
        udp = udp[:6] + struct.pack("!H", csum(pseudo + udp) or 0xFFFF) + udp[8:]
        ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 7, 0, 64, 17, 0,
                         ip4(src), ip4(dst))
        ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
        mac = [b"\x00\x0c\x29\x00\x00\x03", b"\x00\x0c\x29\x00\x00\x04"]
        t += 0.01
        out.append((t, mac[1 - side] + mac[side] + b"\x08\x00" + ip + udp))
    return out


def main():
    tcp = main_session() + error_session() + bad_header_session()
    TSEQ[0] = TSEQ[1] = 0
    udp = dnp3_udp()
    path = os.path.join(HERE, "input.pcap")
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for t, fr in tcp + udp:
            f.write(struct.pack("<IIII", int(t), int((t % 1) * 1e6), len(fr), len(fr)))
            f.write(fr)


if __name__ == "__main__":
    main()
