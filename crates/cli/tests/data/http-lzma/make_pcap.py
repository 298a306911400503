"""Builds input.pcap, the http_lzma cli test's capture: python3 make_pcap.py.

HTTP/1.1 responses (and one request) declared `Content-Encoding: lzma`, alone or in
lists with gzip: good lzma-alone bodies (dictionaries of 64 KiB, 8 MiB, 4 GiB), a
header announcing a wrong size, bodies cut inside the header or the data, xz data and
bad property bytes, plain text, corrupt data after some output, junk after the end
marker, and two 3 MiB bombs (the memory limit with an 8 MiB dictionary, the
compression-bomb limit with a 64 KiB one). Made with Python's `lzma` (liblzma)."""
import gzip
import lzma
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '../../../../../tests/parity/cases'))
from pcaplib import Pcap, TcpConn  # noqa: E402

body = b'X5O!P%@AP[4\\PZX54(P^)7CC)7}$EICAR-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*'


def alone(d, preset=6, dict_size=None):
    f = [{'id': lzma.FILTER_LZMA1, 'preset': preset}]
    if dict_size:
        f[0]['dict_size'] = dict_size
    return lzma.compress(d, format=lzma.FORMAT_ALONE, filters=f)


a = alone(body)
cases = [
    ('good', b'lzma', alone(body), 1400),
    ('good0', b'lzma', alone(body, 0), 1400),
    ('size10', b'lzma', a[:5] + (10).to_bytes(8, 'little') + a[13:], 20),
    ('cut', b'lzma', alone(body * 40)[:60], 1400),
    ('hdrcut', b'lzma', a[:9], 1400),
    ('badprops', b'lzma', b'\xff' + a[1:], 1400),
    ('dict4g', b'lzma', a[:1] + b'\xff\xff\xff\xff' + a[5:], 1400),
    ('dict64m', b'lzma', alone(body, 6, 64 << 20), 1400),
    ('xz', b'lzma', lzma.compress(body), 1400),
    ('plain', b'lzma', body, 1400),
    ('plainsplit', b'lzma', body * 20, 100),
    ('corrupt', b'lzma', a[:20] + bytes(x ^ 0x55 for x in a[20:]), 1400),
    ('junk', b'lzma', a + b'JUNKJUNK', 1400),
    ('gz_lzma', b'gzip, lzma', gzip.compress(a, mtime=0), 1400),
    ('lzma_gz', b'lzma, gzip', gzip.compress(a, mtime=0), 1400),
    ('lzmalzma', b'lzma, lzma', alone(a), 1400),
    ('lzma_gz2', b'lzma, gzip', alone(gzip.compress(body, mtime=0)), 1400),
    ('LZMA', b'LZMA', a, 1400),
    ('upper_list', b'gzip, LZMA', gzip.compress(a, mtime=0), 1400),
    ('split7', b'lzma', alone(body * 30), 7),
    ('memlimit', b'lzma', alone(b'A' * (3 << 20)), 1400),
    ('bomb', b'lzma', alone(b'A' * (3 << 20), 6, 65536), 1400),
]
p = Pcap()
port = 41000
for name, ce, data, seg in cases:
    port += 1
    c = TcpConn(p, '10.0.0.1', port, '10.0.0.2', 80)
    c.send(b'GET /' + name.encode() + b' HTTP/1.1\r\nHost: h\r\n\r\n')
    c.send(b'HTTP/1.1 200 OK\r\nContent-Encoding: ' + ce + b'\r\nContent-Length: %d\r\n\r\n' % len(data), False)
    for i in range(0, len(data), seg):
        c.send(data[i:i + seg], False)
    c.close()
port += 1
c = TcpConn(p, '10.0.0.1', port, '10.0.0.2', 80)
c.send(b'POST /req HTTP/1.1\r\nHost: h\r\nContent-Encoding: lzma\r\nContent-Length: %d\r\n\r\n' % len(a) + a)
c.send(b'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok', False)
c.close()
p.write(os.path.join(os.path.dirname(__file__) or '.', 'input.pcap'))
