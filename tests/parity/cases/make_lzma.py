"""Builds http-lzma-default: python3 make_lzma.py.

HTTP/1.1 responses whose body is declared `Content-Encoding: lzma` (alone and xz
formats, in lists with gzip, misspelt, not compressed at all). With Suricata's default
configuration (`lzma-enabled` off) libhtp passes an lzma layer through: rules see the
bytes as sent."""
import gzip
import lzma
from pcaplib import Pcap, TcpConn

RULES = """alert http any any -> any any (msg:"eicar"; flow:to_client; file_data; content:"EICAR-STANDARD"; sid:1;)
alert http any any -> any any (msg:"lzma alone magic"; flow:to_client; file_data; content:"|5d 00 00|"; depth:3; sid:2;)
alert http any any -> any any (msg:"xz magic"; flow:to_client; file_data; content:"|fd|7zXZ"; depth:6; sid:3;)
alert http any any -> any any (msg:"gzip magic"; flow:to_client; file_data; content:"|1f 8b|"; depth:2; sid:4;)
alert http any any -> any any (msg:"status"; http.stat_code; content:"200"; sid:5;)
alert http any any -> any any (msg:"abnormal ce"; app-layer-event:http.abnormal_ce_header; sid:6;)
"""

body = b'X5O!P%@AP[4\\PZX54(P^)7CC)7}$EICAR-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*'
alone = lzma.compress(body, format=lzma.FORMAT_ALONE)
xz = lzma.compress(body)
cases = [
    (b'lzma', alone), (b'lzma', xz), (b'lzma, gzip', gzip.compress(alone, mtime=0)),
    (b'gzip, lzma', gzip.compress(alone, mtime=0)), (b'lzma, gzip', gzip.compress(body, mtime=0)),
    (b'x-lzma', alone), (b'LZMA', alone), (b'lzma', body), (b'gzip', alone),
]
p = Pcap()
port = 41000
for ce, data in cases:
    port += 1
    c = TcpConn(p, '10.0.0.1', port, '10.0.0.2', 80)
    c.send(b'GET /f HTTP/1.1\r\nHost: h\r\n\r\n')
    c.send(b'HTTP/1.1 200 OK\r\nContent-Encoding: ' + ce + b'\r\nContent-Length: %d\r\n\r\n' % len(data) + data, False)
    c.close()
p.write('http-lzma-default/input.pcap')
with open('http-lzma-default/test.rules', 'w') as f:
    f.write(RULES)
