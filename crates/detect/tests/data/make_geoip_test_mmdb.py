#!/usr/bin/env python3
"""Writes geoip-test.mmdb: a tiny MaxMind DB (format 2.0, IPv4 tree, 24-bit records) in
the GeoIP2-Country layout ({"country": {"iso_code": ...}}), for the geoip tests.
Written by us from the MaxMind DB format specification; no MaxMind data.

Networks: 192.168.56.0/24 US, 192.168.10.0/24 CA, 10.10.0.0/16 GB, 172.16.0.0/12 DE.
"""
import struct
import sys

NETS = [("192.168.56.0", 24, "US"), ("192.168.10.0", 24, "CA"),
        ("10.10.0.0", 16, "GB"), ("172.16.0.0", 12, "DE")]


def ctrl(kind, size):
    assert size < 29
    if kind <= 7:
        return bytes([kind << 5 | size])
    return bytes([size, kind - 7])


def enc(v):
    if isinstance(v, str):
        b = v.encode()
        return ctrl(2, len(b)) + b
    if isinstance(v, dict):
        out = ctrl(7, len(v))
        for k, x in v.items():
            out += enc(k) + enc(x)
        return out
    if isinstance(v, list):
        return ctrl(11, len(v)) + b"".join(enc(x) for x in v)
    if isinstance(v, tuple):  # (type, int)
        kind, n = v
        b = n.to_bytes(8, "big").lstrip(b"\0")
        return ctrl(kind, len(b)) + b
    raise TypeError(v)


def main(path):
    data = b""
    where = {}
    for cc in sorted({c for _, _, c in NETS}):
        where[cc] = len(data)
        data += enc({"country": {"iso_code": cc}})
    # Binary trie over the prefixes: node = [left, right], a leaf is ("data", cc).
    root = [None, None]
    for addr, plen, cc in NETS:
        bits = int.from_bytes(bytes(int(x) for x in addr.split(".")), "big")
        node = root
        for i in range(plen):
            b = bits >> (31 - i) & 1
            if i == plen - 1:
                node[b] = ("data", cc)
            else:
                if node[b] is None:
                    node[b] = [None, None]
                node = node[b]
    nodes = []

    def number(n):
        idx = len(nodes)
        nodes.append(n)
        for c in n:
            if isinstance(c, list):
                number(c)
    number(root)
    ids = {id(n): i for i, n in enumerate(nodes)}
    count = len(nodes)

    def rec(c):
        if c is None:
            return count
        if isinstance(c, tuple):
            return count + 16 + where[c[1]]
        return ids[id(c)]
    tree = b""
    for n in nodes:
        tree += rec(n[0]).to_bytes(3, "big") + rec(n[1]).to_bytes(3, "big")
    meta = {
        "binary_format_major_version": (5, 2),
        "binary_format_minor_version": (5, 0),
        "build_epoch": (9, 1700000000),
        "database_type": "GeoIP2-Country",
        "description": {"en": "Osprey geoip test database"},
        "ip_version": (5, 4),
        "languages": ["en"],
        "node_count": (6, count),
        "record_size": (5, 24),
    }
    out = tree + b"\0" * 16 + data + b"\xab\xcd\xefMaxMind.com" + enc(meta)
    with open(path, "wb") as f:
        f.write(out)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "geoip-test.mmdb")
