"""Raw-byte packet builders for the parity cases under tests/parity/cases (no scapy).

Each case's `make.py` imports this module and writes `input.pcap`; `expected.jsonl` is
then written from Suricata 7.0.10's EVE on that capture (see tests/parity/README.md).
"""
import struct

ETH_SRC = b"\x00\x11\x22\x33\x44\x55"
ETH_DST = b"\x00\x66\x77\x88\x99\xaa"


def csum(data: bytes) -> int:
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


def ip4(a: str) -> bytes:
    return bytes(int(x) for x in a.split("."))


def ip6(a: str) -> bytes:
    import ipaddress
    return ipaddress.IPv6Address(a).packed


def udp(sport: int, dport: int, payload: bytes, pseudo: bytes) -> bytes:
    ln = 8 + len(payload)
    h = struct.pack("!HHHH", sport, dport, ln, 0) + payload
    c = csum(pseudo + struct.pack("!BBH", 0, 17, ln) + h) or 0xFFFF
    return h[:6] + struct.pack("!H", c) + h[8:]


def udp6(sport, dport, payload, src, dst):
    ln = 8 + len(payload)
    h = struct.pack("!HHHH", sport, dport, ln, 0) + payload
    pseudo = src + dst + struct.pack("!I", ln) + b"\0\0\0\x11"
    c = csum(pseudo + h) or 0xFFFF
    return h[:6] + struct.pack("!H", c) + h[8:]


def ipv4(src: str, dst: str, proto: int, l4: bytes, opts: bytes = b"", ident=1, ttl=64) -> bytes:
    """An IPv4 header with `opts` (padded with zero bytes to a multiple of 4)."""
    opts = opts + b"\0" * (-len(opts) % 4)
    ihl = (20 + len(opts)) // 4
    h = struct.pack("!BBHHHBBH4s4s", 0x40 | ihl, 0, 20 + len(opts) + len(l4), ident, 0,
                    ttl, proto, 0, ip4(src), ip4(dst)) + opts
    return h[:10] + struct.pack("!H", csum(h)) + h[12:] + l4


def ipv4_udp(src, dst, sport, dport, payload, opts=b"", ident=1):
    pseudo = ip4(src) + ip4(dst)
    return ipv4(src, dst, 17, udp(sport, dport, payload, pseudo), opts, ident)


def ipv6_udp(src, dst, sport, dport, payload):
    s, d = ip6(src), ip6(dst)
    l4 = udp6(sport, dport, payload, s, d)
    return struct.pack("!IHBB16s16s", 6 << 28, len(l4), 17, 64, s, d) + l4


def eth(ip: bytes) -> bytes:
    et = 0x86DD if ip[0] >> 4 == 6 else 0x0800
    return ETH_DST + ETH_SRC + struct.pack("!H", et) + ip


def write_pcap(path: str, frames, t0=1700000000) -> None:
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i, fr in enumerate(frames):
            f.write(struct.pack("<IIII", t0 + i, 0, len(fr), len(fr)) + fr)
