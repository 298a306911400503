"""Splitting a classic pcap file into consecutive files of N packets (a link's archive
as a capture appliance writes it): ``python3 -m osprey_hunt.split IN.pcap OUTDIR
--packets N [--prefix NAME]`` writes OUTDIR/NAME-0001.pcap, ... Flows continue from one
file into the next. Only classic pcap (either byte order, micro- or nanoseconds)."""

from __future__ import annotations

import argparse
import os
import struct
from typing import List


def split(path: str, out_dir: str, packets: int, prefix: str = "link") -> List[str]:
    """Splits ``path``; returns the files written, in order."""
    if packets < 1:
        raise ValueError("packets must be at least 1")
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 24:
        raise ValueError(f"{path}: too short for a pcap header")
    magic = data[:4]
    if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"):
        endian = "<"
    elif magic in (b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d"):
        endian = ">"
    else:
        raise ValueError(f"{path}: not a classic pcap file")
    header = data[:24]
    os.makedirs(out_dir, exist_ok=True)
    files, off, n, out = [], 24, 0, None
    while off + 16 <= len(data):
        incl = struct.unpack(endian + "I", data[off + 8:off + 12])[0]
        end = off + 16 + incl
        if end > len(data):
            break
        if n % packets == 0:
            if out:
                out.close()
            name = os.path.join(out_dir, f"{prefix}-{len(files) + 1:04d}.pcap")
            files.append(name)
            out = open(name, "wb")
            out.write(header)
        out.write(data[off:end])
        off, n = end, n + 1
    if out:
        out.close()
    return files


def main(argv=None) -> int:
    """Entry point."""
    p = argparse.ArgumentParser(prog="python3 -m osprey_hunt.split", description=__doc__)
    p.add_argument("pcap")
    p.add_argument("out_dir")
    p.add_argument("--packets", type=int, required=True)
    p.add_argument("--prefix", default="link")
    a = p.parse_args(argv)
    for f in split(a.pcap, a.out_dir, a.packets, a.prefix):
        print(f)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
