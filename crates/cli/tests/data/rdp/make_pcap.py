#!/usr/bin/env python3
"""Writes rdp/input.pcap (standard library only): four RDP connections on port 3389
whose records Suricata 7.0.10 wrote into expected.jsonl.

1. a cookie and a negotiation request (restricted admin, TLS and CredSSP), answered
   with TLS selected; then the TLS hellos and the server's certificate
   (server-cert.der, a self-signed test certificate);
2. a negotiation request answered with a negotiation failure;
3. a client core block of RDP 10.7 with every optional field, answered;
4. a minimal RDP 4 client core block (no optional field), with unknown build and
   keyboard layout.

    python3 make_pcap.py
"""
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "ics"))
from make_pcaps import Session  # noqa: E402


def tpkt(x224):
    return struct.pack("!BBH", 3, 0, len(x224) + 4) + x224


def cr(var=b""):
    return tpkt(struct.pack("!BBHHB", 6 + len(var), 0xE0, 0, 0, 0) + var)


def cc(var=b""):
    return tpkt(struct.pack("!BBHHB", 6 + len(var), 0xD0, 0, 0x1234, 0) + var)


def dt(data):
    return tpkt(b"\x02\xf0\x80" + data)


def ber_len(n):
    if n < 0x80:
        return bytes([n])
    if n < 0x100:
        return bytes([0x81, n])
    return struct.pack("!BH", 0x82, n)


def ber(tag, body):
    return tag + ber_len(len(body)) + body


def per_len(n):
    return bytes([n]) if n < 0x80 else struct.pack("!H", 0x8000 | n)


def domain_params():
    ints = b"".join(ber(b"\x02", struct.pack("!H", v)) for v in (34, 2, 0, 1, 0, 1, 0xFFFF, 2))
    return ber(b"\x30", ints)


def connect_initial(blocks):
    ccr = b"\x00\x08\x00\x10\x00\x01\xc0\x00Duca" + per_len(len(blocks)) + blocks
    gcc = b"\x00\x05\x00\x14\x7c\x00\x01" + per_len(len(ccr)) + ccr
    body = (ber(b"\x04", b"\x01") + ber(b"\x04", b"\x01") + ber(b"\x01", b"\xff")
            + domain_params() * 3 + ber(b"\x04", gcc))
    return dt(ber(b"\x7f\x65", body))


def connect_response():
    body = ber(b"\x0a", b"\x00") + ber(b"\x02", b"\x00") + domain_params() + ber(b"\x04", b"\x00\x05")
    return dt(ber(b"\x7f\x66", body))


def utf16(s, size):
    b = s.encode("utf-16-le")
    return b + bytes(size - len(b))


def block(kind, body):
    return struct.pack("<HH", kind, len(body) + 4) + body


def core(version, build, layout, name, kbtype, subtype, fkeys, ime="", tail=b""):
    body = struct.pack("<IHHHHII", version, 1280, 1024, 0xCA01, 0xAA03, layout, build)
    body += utf16(name, 32) + struct.pack("<III", kbtype, subtype, fkeys) + utf16(ime, 64)
    return block(0xC001, body + tail)


def net(*names):
    body = struct.pack("<I", len(names))
    for n in names:
        body += n.encode().ljust(8, b"\0") + struct.pack("<I", 0x80800000)
    return block(0xC003, body)


def tls_record(kind, body):
    return struct.pack("!BHH", kind, 0x0303, len(body)) + body


def handshake(kind, body):
    return struct.pack("!B", kind) + struct.pack("!I", len(body))[1:] + body


def tls_session(s):
    hello = struct.pack("!H", 0x0303) + bytes(32) + b"\x00" + struct.pack("!H", 2) + b"\x00\x2f\x01\x00"
    s.send(0, tls_record(22, handshake(1, hello)))
    cert = open(os.path.join(HERE, "server-cert.der"), "rb").read()
    chain = struct.pack("!I", len(cert))[1:] + cert
    certs = struct.pack("!I", len(chain))[1:] + chain
    shello = struct.pack("!H", 0x0303) + bytes(32) + b"\x00" + b"\x00\x2f\x00"
    s.send(1, tls_record(22, handshake(2, shello) + handshake(11, certs) + handshake(14, b"")))
    s.send(0, tls_record(23, b"\x17" * 40))
    s.send(1, tls_record(23, b"\x42" * 40))


def main():
    frames = []
    # 1. TLS.
    s = Session("10.0.1.1", "10.0.1.2", 49001, 3389)
    s.handshake()
    s.send(0, cr(b"Cookie: mstshash=alice\r\n" + struct.pack("<BBHI", 1, 0x01, 8, 3)))
    s.send(1, cc(struct.pack("<BBHI", 2, 0x1F, 8, 1)))
    tls_session(s)
    s.close()
    frames += s.frames
    # 2. Negotiation failure.
    s = Session("10.0.1.1", "10.0.1.2", 49002, 3389, t0=1700000010)
    s.handshake()
    s.send(0, cr(struct.pack("<BBHI", 1, 0, 8, 0)))
    s.send(1, cc(struct.pack("<BBHI", 3, 0, 8, 2)))
    s.close()
    frames += s.frames
    # 3. RDP 10.7, every optional field.
    s = Session("10.0.1.3", "10.0.1.2", 49003, 3389, t0=1700000020)
    s.handshake()
    s.send(0, cr(b"Cookie: mstshash=bob\r\n"))
    s.send(1, cc())
    tail = struct.pack("<HHIHHH", 0xCA01, 1, 5, 24, 0x000F, 0x0001 | 0x0002 | 0x0020 | 0x0100)
    tail += utf16("00000-11111-22222", 64) + struct.pack("<BBIIIHII", 6, 0, 0, 300, 200, 0, 100, 100)
    s.send(0, connect_initial(core(0x0008000C, 19041, 0x0407, "DESK-7", 7, 2, 12, "IME.DLL", tail)
                              + net("drdynvc", "rdpsnd")))
    s.send(1, connect_response())
    s.close()
    frames += s.frames
    # 4. RDP 4, no optional field.
    s = Session("10.0.1.4", "10.0.1.2", 49004, 3389, t0=1700000030)
    s.handshake()
    s.send(0, cr(b"Cookie: mstshash=carol\r\n"))
    s.send(1, cc())
    s.send(0, connect_initial(core(0x00080001, 1234, 0x9999, "OLD", 4, 0, 12)))
    s.send(1, connect_response())
    s.close()
    frames += s.frames
    out = Session("0.0.0.0", "0.0.0.0", 0, 0)
    out.frames = frames
    out.write(os.path.join(HERE, "input.pcap"))


if __name__ == "__main__":
    main()
