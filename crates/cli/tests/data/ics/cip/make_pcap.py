#!/usr/bin/env python3
"""Writes cip/input.pcap (standard library only): one ENIP session whose SendRRData
requests carry CIP services for `cip_service`: Get/Set_Attribute_Single with class and
attribute segments, Get/Set_Attribute_List, a 16-bit class segment, a Multiple Service
Packet embedding two requests, classes 20 and 200; each answered.

    python3 make_pcap.py
"""
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from make_pcaps import Session, encap, rr_data  # noqa: E402


def msp(*requests):
    """A Multiple Service Packet to the Message Router (class 2, instance 1)."""
    off = 2 + 2 * len(requests)
    offsets, data = [], b""
    for r in requests:
        offsets.append(off + len(data))
        data += r
    body = struct.pack("<H", len(requests)) + b"".join(struct.pack("<H", o) for o in offsets)
    return bytes([0x0A, 2, 0x20, 0x02, 0x24, 0x01]) + body + data


REQUESTS = [
    bytes([0x0E, 3, 0x20, 0x01, 0x24, 0x01, 0x30, 0x07]),  # Get_Attribute_Single 1/1/7
    bytes([0x10, 3, 0x20, 0xF6, 0x24, 0x01, 0x30, 0x06]) + b"\x01\x02",  # Set single 246/1/6
    bytes([0x10, 3, 0x20, 0x01, 0x24, 0x01, 0x30, 0x06]) + b"\x01\x02",  # Set single 1/1/6
    bytes([0x03, 2, 0x20, 0x01, 0x24, 0x01]) + struct.pack("<HHH", 2, 1, 7),  # Get list 1/1
    bytes([0x04, 2, 0x20, 0x01, 0x24, 0x01]) + struct.pack("<HHHHH", 2, 1, 0x11, 7, 0x22),
    bytes([0x0E, 4, 0x21, 0x00, 0x00, 0x01, 0x24, 0x01, 0x30, 0x05]),  # 16-bit class 256
    bytes([0x0E, 2, 0x20, 0x04, 0x24, 0x02]),  # class 4, no attribute
    msp(bytes([0x0E, 3, 0x20, 0x01, 0x24, 0x01, 0x30, 0x05]),
        bytes([0x4C, 2, 0x91, 0x02]) + b"T1" + b"\x01\x00"),
    bytes([0x0E, 2, 0x20, 20, 0x24, 0x01]),  # class 20
    bytes([0x0E, 2, 0x20, 200, 0x24, 0x01]),  # class 200
    bytes([0x0E, 2, 0x20, 64, 0x24, 0x01]),  # class 64
]


def main():
    s = Session("10.0.0.5", "10.0.0.6", 40819, 44818)
    s.handshake()
    sess = 0x12345678
    s.send(0, encap(0x65, struct.pack("<HH", 1, 0)))
    s.send(1, encap(0x65, struct.pack("<HH", 1, 0), session=sess))
    for r in REQUESTS:
        s.send(0, encap(0x6F, rr_data(r), session=sess))
        s.send(1, encap(0x6F, rr_data(bytes([r[0] | 0x80, 0, 0, 0])), session=sess))
    s.close()
    s.write(os.path.join(HERE, "input.pcap"))


if __name__ == "__main__":
    main()
