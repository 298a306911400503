"""Builds http2-long-frame: python3 make_http2.py.

HTTP/2 (prior knowledge) DATA frames beyond SETTINGS_MAX_FRAME_SIZE (16384). Suricata
7.0.10 takes a frame shorter than 64 KiB whole, once complete; from 64 KiB on it takes
the part of the payload the first chunk holds (256 bytes or more) and skips the rest,
so a mark at the end of such a frame is not inspected."""
from pcaplib import Pcap, TcpConn, send_segmented, h2_frame, hpack_lit, H2_PREFACE

RULES = """alert http2 any any -> any any (msg:"response body head"; flow:to_client; file_data; content:"HEAD-MARK1"; sid:1;)
alert http2 any any -> any any (msg:"response body tail"; flow:to_client; file_data; content:"TAIL-MARK1"; sid:2;)
alert http2 any any -> any any (msg:"request body head"; http.request_body; content:"HEAD-MARK1"; sid:3;)
alert http2 any any -> any any (msg:"request body tail"; http.request_body; content:"TAIL-MARK1"; sid:4;)
alert http2 any any -> any any (msg:"data frame"; http2.frametype:DATA; sid:8;)
alert http2 any any -> any any (msg:"uri"; http.uri; content:"/x"; sid:10;)
"""


def body(n):
    b = bytearray(b'a' * n)
    b[10:20] = b'HEAD-MARK1'
    b[n - 20:n - 10] = b'TAIL-MARK1'
    return bytes(b)


def request(method, path):
    return (hpack_lit(':method', method) + hpack_lit(':path', path)
            + hpack_lit(':scheme', 'http') + hpack_lit(':authority', 'h'))


SETTINGS, ACK = h2_frame(4, 0, 0, b''), h2_frame(4, 1, 0, b'')
p = Pcap()
port = 40000
for n in [20000, 65535, 65536]:
    # A response DATA frame of n bytes.
    port += 1
    c = TcpConn(p, '10.0.0.1', port, '10.0.0.2', 80)
    send_segmented(c, H2_PREFACE + SETTINGS + h2_frame(1, 5, 1, request('GET', '/x')))
    send_segmented(c, SETTINGS + ACK + h2_frame(1, 4, 1, hpack_lit(':status', '200'))
                   + h2_frame(0, 1, 1, body(n)), False)
    c.close()
# A request DATA frame of 64 KiB.
port += 1
c = TcpConn(p, '10.0.0.1', port, '10.0.0.2', 80)
send_segmented(c, H2_PREFACE + SETTINGS + h2_frame(1, 4, 1, request('POST', '/p'))
               + h2_frame(0, 1, 1, body(65536)))
send_segmented(c, SETTINGS + ACK + h2_frame(1, 5, 1, hpack_lit(':status', '200')), False)
c.close()
p.write('http2-long-frame/input.pcap')
with open('http2-long-frame/test.rules', 'w') as f:
    f.write(RULES)
