#!/usr/bin/env python3
"""Writes ips-app-timing.pcap: TCP sessions whose application-layer alerts Suricata 7.0.10
gives on other packets in IPS mode (--simulate-ips) than on the packet that completed the
data (crates/cli/tests/ips_app_timing.rs; bench/RESULTS.md "IPS mode: app-layer alert
timing"). Each session has its own client port; checksums are valid.

  20001 HTTP/2: the response's HEADERS frame alone, then a DATA frame, then a DATA frame
        with END_STREAM (http.stat_code waits for the first DATA frame)
  20002 HTTP/2: the request's HEADERS without END_STREAM, the response's HEADERS and DATA,
        then the client's next frame (the request's buffers wait for data)
  20003 TLS: ClientHello, ServerHello, client ACK, ServerHelloDone, client ACK, client
        CCS + encrypted record (tls.random to the server waits for the ServerHello and
        for a to-server packet that gives the app layer data)
  20004 TLS: a ClientHello of record version 3.1 cut after 50 bytes, a ServerHello cut
        after 20 (tls.version/ssl_version read the record header's version first)
  20005 RFB 3.3 with VNC authentication, closed by the client's RST right after the
        ServerInit was acknowledged (the RST is the to-server packet that inspects)
  20006 the same RFB handshake closed by the FIN handshake (its last ACK inspects)
Usage: python3 make-ips-app-timing.py OUT.pcap
"""
import struct
import sys


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    s = (s >> 16) + (s & 0xFFFF)
    s += s >> 16
    return (~s) & 0xFFFF


def ip4(a):
    return bytes(map(int, a.split(".")))


def frame(src, dst, sp, dp, seq, ack, flags, pl):
    fl = sum(b for c, b in zip("FSRPAU", [1, 2, 4, 8, 16, 32]) if c in flags)
    tcp = struct.pack("!HHIIBBHHH", sp, dp, seq, ack, 5 << 4, fl, 65535, 0, 0) + pl
    ph = ip4(src) + ip4(dst) + struct.pack("!BBH", 0, 6, len(tcp))
    tcp = tcp[:16] + struct.pack("!H", csum(ph + tcp)) + tcp[18:]
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp), 1, 0, 64, 6, 0, ip4(src), ip4(dst))
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    return b"\x00\x00\x00\x00\x00\x02\x00\x00\x00\x00\x00\x01\x08\x00" + ip + tcp


def session(out, cport, sport, segs, end="fin"):
    """A handshake, `segs` ([(side 'c'|'s', payload, flags)]) and the end."""
    c, s = ("10.0.0.1", cport), ("10.0.0.2", sport)
    seq = {"c": 60000, "s": 90000}

    def add(d, pl, fl):
        a, b = (c, s) if d == "c" else (s, c)
        o = "s" if d == "c" else "c"
        out.append(frame(a[0], b[0], a[1], b[1], seq[d], seq[o], fl, pl))
        seq[d] += len(pl) + ("S" in fl) + ("F" in fl)

    out.append(frame(c[0], s[0], c[1], s[1], seq["c"], 0, "S", b""))
    seq["c"] += 1
    out.append(frame(s[0], c[0], s[1], c[1], seq["s"], seq["c"], "SA", b""))
    seq["s"] += 1
    add("c", b"", "A")
    for seg in segs:
        add(*seg)
    if end == "fin":
        add("c", b"", "FA")
        add("s", b"", "FA")
        add("c", b"", "A")
    elif end == "rst":
        add("c", b"", "RA")


# HTTP/2
def h2f(ty, flags, sid, p):
    return struct.pack("!I", len(p))[1:] + bytes([ty, flags]) + struct.pack("!I", sid) + p


def hdrs(pairs):
    b = b""
    for n, v in pairs:
        n, v = n.encode(), v.encode()
        b += b"\x00" + bytes([len(n)]) + n + bytes([len(v)]) + v
    return b


PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
SETTINGS, SACK = h2f(4, 0, 0, b""), h2f(4, 1, 0, b"")
REQ = [(":method", "GET"), (":path", "/index.html"), (":scheme", "http"),
       (":authority", "example.com"), ("user-agent", "curlx")]
RESP = [(":status", "200"), ("content-type", "text/html"), ("server", "srvx")]


def H(sid, pairs, es=False):
    return h2f(1, 4 | int(es), sid, hdrs(pairs))


def D(sid, data, es=False):
    return h2f(0, int(es), sid, data)


# TLS
def rec(ct, body, ver=b"\x03\x03"):
    return bytes([ct]) + ver + struct.pack("!H", len(body)) + body


def hs(t, body):
    return bytes([t]) + struct.pack("!I", len(body))[1:] + body


def client_hello(sni=b"example.com"):
    e = struct.pack("!HH", 0, len(sni) + 5) + struct.pack("!HBH", len(sni) + 3, 0, len(sni)) + sni
    rnd = b"%\xe4x\xa4" + b"R" * 28
    body = b"\x03\x03" + rnd + b"\x00" + struct.pack("!H", 4) + b"\x00\x2f\x00\x35" + b"\x01\x00"
    return hs(1, body + struct.pack("!H", len(e)) + e)


def server_hello():
    return hs(2, b"\x03\x03" + b"\xa8" + b"S" * 31 + b"\x00" + b"\x00\x2f" + b"\x00")


CCS = rec(20, b"\x01")
ENC = rec(22, b"E" * 40)

# RFB 3.3, VNC authentication
RFB = [("s", b"RFB 003.003\n"), ("c", b"RFB 003.003\n"), ("s", b"\x00\x00\x00\x02"),
       ("s", bytes(range(16))), ("c", bytes(range(16, 32))), ("s", b"\x00\x00\x00\x00"),
       ("c", b"\x01"),
       ("s", b"\x04\x00\x03\x00\x20\x18\x00\x01\x00\xff\x00\xff\x00\xff\x10\x08\x00"
             b"\x00\x00\x00" b"\x00\x00\x00\x0adesktop-01")]


def main(path):
    out = []
    session(out, 20001, 80, [("c", PREFACE + SETTINGS + H(1, REQ, True), "PA"),
                             ("s", SETTINGS + SACK + H(1, RESP), "PA"),
                             ("s", D(1, b"h6ekAAAA"), "PA"), ("s", D(1, b"BBBB", True), "PA"),
                             ("c", SACK, "PA"), ("s", b"", "A")])
    session(out, 20002, 80, [("c", PREFACE + SETTINGS + H(1, REQ), "PA"),
                             ("s", SETTINGS + SACK + H(1, RESP), "PA"), ("s", D(1, b"xx"), "PA"),
                             ("c", SACK, "PA"), ("c", D(1, b"yy", True), "PA"),
                             ("s", D(1, b"BBBB", True), "PA"), ("c", SACK, "PA"), ("s", b"", "A")])
    session(out, 20003, 443, [("c", rec(22, client_hello()), "PA"), ("s", rec(22, server_hello()), "PA"),
                              ("c", b"", "A"), ("s", rec(22, hs(14, b"")), "PA"), ("c", b"", "A"),
                              ("c", CCS + ENC, "PA"), ("s", CCS + ENC, "PA")])
    ch, sh = rec(22, client_hello(), b"\x03\x01"), rec(22, server_hello(), b"\x03\x01")
    session(out, 20004, 443, [("c", ch[:50], "PA"), ("c", ch[50:], "PA"), ("s", sh[:20], "PA"),
                              ("s", sh[20:], "PA"), ("c", rec(21, b"\x01\x00"), "PA")])
    rfb = [(d, p, "PA") for d, p in RFB] + [("c", b"", "A")]
    session(out, 20005, 5900, rfb, end="rst")
    session(out, 20006, 5900, rfb, end="fin")
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i, fr in enumerate(out):
            f.write(struct.pack("<IIII", 1_700_000_000 + i // 1000, (i % 1000) * 1000, len(fr), len(fr)) + fr)


if __name__ == "__main__":
    main(sys.argv[1])
