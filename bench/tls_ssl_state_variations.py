#!/usr/bin/env python3
"""Hand-made TLS variations run through Suricata 7.0.10 and Osprey (session h3, issue 28).

Builds small captures from the records of the difftest case dt-1956495344-2641 (a TLS 1.2
handshake: ClientHello; ServerHello, Certificate, ServerHelloDone; ClientKeyExchange,
ChangeCipherSpec, encrypted Finished; the server's ChangeCipherSpec and Finished), cut
into segments and acknowledged in different ways, runs both engines with `ssl_state` and
`tls.random` rules and prints each engine's alerts as `pcap_cnt:sid`, with SAME/DIFF.

usage: bench/tls_ssl_state_variations.py OSPREY [OUT_DIR]   (suricata on the PATH)
"""
import json
import os
import shutil
import struct
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CASE = os.path.join(REPO, "tests/parity/difftest/fixed/dt-1956495344-2641/input.pcap")
YAML = "/etc/suricata/suricata.yaml"


def frames(path):
    d = open(path, "rb").read()
    e = "<" if struct.unpack("<I", d[:4])[0] in (0xA1B2C3D4, 0xA1B23C4D) else ">"
    link = struct.unpack(e + "I", d[20:24])[0]
    o = 24
    while o + 16 <= len(d):
        _, _, cl, _ = struct.unpack(e + "IIII", d[o : o + 16])
        yield link, d[o + 16 : o + 16 + cl]
        o += 16 + cl


def streams(path):
    """The client's and the server's TCP payload bytes of the capture's one flow."""
    cs, sc, cport = b"", b"", None
    for link, f in frames(path):
        p = f[14:] if link == 1 else f
        if p[0] >> 4 == 4:
            proto, l4 = p[9], p[(p[0] & 15) * 4 : struct.unpack(">H", p[2:4])[0]]
        else:
            proto, l4 = p[6], p[40 : 40 + struct.unpack(">H", p[4:6])[0]]
        if proto != 6:
            continue
        sp = struct.unpack(">H", l4[:2])[0]
        pl = l4[(l4[12] >> 4) * 4 :]
        cport = sp if cport is None else cport
        if sp == cport:
            cs += pl
        else:
            sc += pl
    return cs, sc


def split_records(b):
    out, i = [], 0
    while i + 5 <= len(b):
        n = struct.unpack(">H", b[i + 3 : i + 5])[0]
        out.append(b[i : i + 5 + n])
        i += 5 + n
    return out


def messages(rec):
    b, i, out = rec[5:], 0, []
    while i < len(b):
        n = int.from_bytes(b[i + 1 : i + 4], "big")
        out.append(b[i : i + 4 + n])
        i += 4 + n
    return out


def record(ct, payload):
    return bytes([ct, 3, 3]) + len(payload).to_bytes(2, "big") + payload


def hs_msg(t, body):
    return bytes([t]) + len(body).to_bytes(3, "big") + body


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack(">%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


class Session:
    """One IPv4 TCP session: 10.0.0.1:40000 (client) to 10.0.0.2:443."""

    def __init__(self):
        self.ends = {"c": (bytes([10, 0, 0, 1]), 40000), "s": (bytes([10, 0, 0, 2]), 443)}
        self.seq = {"c": 1000, "s": 5000}
        self.frames = []

    def seg(self, side, data=b"", flags=0x18):
        other = "s" if side == "c" else "c"
        (a, ap), (b, bp) = self.ends[side], self.ends[other]
        tcp = struct.pack(">HHIIBBHHH", ap, bp, self.seq[side], self.seq[other], 0x50, flags, 65535, 0, 0) + data
        c = csum(a + b + struct.pack(">BBH", 0, 6, len(tcp)) + tcp)
        tcp = tcp[:16] + struct.pack(">H", c) + tcp[18:]
        ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp), 1, 0, 64, 6, 0, a, b)
        ip = ip[:10] + struct.pack(">H", csum(ip)) + ip[12:]
        self.frames.append(b"\0\1\2\3\4\5\0\1\2\3\4\6\x08\x00" + ip + tcp)
        self.seq[side] += len(data) + (1 if flags & 3 else 0)

    def write(self, path):
        with open(path, "wb") as f:
            f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
            for i, fr in enumerate(self.frames):
                f.write(struct.pack("<IIII", 1700000000, i * 1000, len(fr), len(fr)) + fr)


def alerts(exe, pcap, rules, out):
    os.makedirs(out)
    subprocess.run(
        [exe, "-c", YAML, "-k", "none", "--runmode", "single", "-r", pcap, "-S", rules, "-l", out],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    found = []
    for line in open(os.path.join(out, "eve.json")):
        j = json.loads(line)
        if j.get("event_type") == "alert":
            found.append((j.get("pcap_cnt"), j["alert"]["signature_id"]))
    return " ".join(f"{p}:{s}" for p, s in sorted(found))


def main():
    osprey = sys.argv[1]
    root = sys.argv[2] if len(sys.argv) > 2 else "/tmp/tls-variations"
    cs, sc = streams(CASE)
    CH, CKE, CCS, CFIN = split_records(cs)
    SFL, SCCS, SFIN = split_records(sc)
    SH, CERT, SHD = messages(SFL)
    SKX = hs_msg(12, bytes([3, 0, 23, 65]) + bytes(65) + bytes([4, 1, 0, 16]) + bytes(16))
    states = [("client_hello", ""), ("server_hello", ""), ("client_keyx", ""), ("server_keyx", "")]
    rules = []
    for st, _ in states:
        for d in ("", "flow:to_client; ", "flow:to_server; "):
            rules.append(f"{d}ssl_state:{st};")
    rules += [
        "flow:to_client; tls.random; bsize:32;",
        "flow:to_client; tls.random; content:\"|00 00 00 00 00 00 00 00|\";",
        "flow:to_client; tls.random_time; bsize:4;",
    ]
    rules_text = "".join(
        f'alert tls any any -> any any (msg:"{i + 1}"; {r} sid:{i + 1};)\n' for i, r in enumerate(rules)
    )
    ack = lambda side: (side, b"", 0x10)
    cke = CKE + CCS + CFIN
    cut = len(CKE) + len(CCS) + 10
    server_flight = lambda ms: record(22, b"".join(ms))
    variations = {
        "server CCS+Finished in one segment": [("c", CH), ("s", SFL), ("c", cke), ("s", SCCS + SFIN)],
        "server CCS, then Finished": [("c", CH), ("s", SFL), ("c", cke), ("s", SCCS), ("s", SFIN)],
        "server CCS acknowledged alone": [("c", CH), ("s", SFL), ("c", cke), ("s", SCCS), ack("c"), ("s", SFIN)],
        "no server records after the client's": [("c", CH), ("s", SFL), ("c", cke), ack("s")],
        "client CKE, CCS, Finished in three segments": [("c", CH), ("s", SFL), ("c", CKE), ("c", CCS), ("c", CFIN), ("s", SCCS + SFIN)],
        "client Finished cut over two segments (dt-1956495344-6735)": [("c", CH), ("s", SFL), ("c", cke[:cut]), ("c", cke[cut:]), ("s", SCCS + SFIN)],
        "client Finished cut, each part acknowledged": [("c", CH), ("s", SFL), ("c", cke[:cut]), ack("s"), ("c", cke[cut:]), ack("s")],
        "server part of an application record only": [("c", CH), ("s", SFL), ("c", cke), ("s", bytes([23, 3, 3, 0, 20]) + bytes(3))],
        "ServerHello, Certificate, ServerKeyExchange, Done": [("c", CH), ("s", server_flight([SH, CERT, SKX, SHD])), ("c", cke), ("s", SCCS + SFIN)],
        "ServerKeyExchange before ServerHello": [("c", CH), ("s", server_flight([SKX, SH, CERT, SHD])), ("c", cke), ("s", SCCS + SFIN)],
        "server messages one record a segment": [("c", CH)] + [("s", record(22, m)) for m in (SH, CERT, SKX, SHD)] + [("c", cke), ("s", SCCS + SFIN)],
        "ClientHello cut over two segments": [("c", CH[:60]), ack("s"), ("c", CH[60:]), ("s", SFL), ("c", cke), ("s", SCCS + SFIN)],
    }
    shutil.rmtree(root, ignore_errors=True)
    for n, (name, steps) in enumerate(variations.items()):
        d = os.path.join(root, str(n))
        os.makedirs(d)
        s = Session()
        s.seg("c", flags=0x02)
        s.seg("s", flags=0x12)
        s.seg("c", flags=0x10)
        for side, data, *fl in steps:
            s.seg(side, data, *fl)
        s.seg("c", flags=0x10)
        s.seg("c", flags=0x11)
        s.seg("s", flags=0x11)
        s.seg("c", flags=0x10)
        s.write(os.path.join(d, "in.pcap"))
        with open(os.path.join(d, "r.rules"), "w") as f:
            f.write(rules_text)
        sur = alerts("suricata", os.path.join(d, "in.pcap"), os.path.join(d, "r.rules"), os.path.join(d, "s"))
        osp = alerts(osprey, os.path.join(d, "in.pcap"), os.path.join(d, "r.rules"), os.path.join(d, "o"))
        print(f"{'SAME' if sur == osp else 'DIFF'} {name}\n  suricata: {sur}\n  osprey:   {osp}")
    print("rules:")
    for i, r in enumerate(rules):
        print(f"  {i + 1}: {r}")


if __name__ == "__main__":
    main()
