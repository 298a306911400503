"""Builds the DNS cases cut short (dns-udp-cut, dns-tcp-cut): python3 make_dns.py.

Each case folder is corpus-style: input.pcap, test.rules, case.toml and expected.jsonl
(the alerts Suricata 7.0.10 logged: see make_expected.sh)."""
import struct
from pcaplib import Pcap, TcpConn, dns_query, dns_answer, dnsname

RULES = """alert dns any any -> any any (msg:"query www"; dns.query; content:"www.example.com"; sid:1;)
alert dns any any -> any any (msg:"query mail"; dns.query; content:"mail"; sid:2;)
alert dns any any -> any any (msg:"malformed"; app-layer-event:dns.malformed_data; sid:3;)
alert dns any any -> any any (msg:"z flag"; app-layer-event:dns.z_flag_set; sid:4;)
alert udp any any -> any 53 (msg:"udp payload"; content:"example"; sid:6;)
alert dns any any -> any any (msg:"opcode"; dns.opcode:0; sid:7;)
"""

q = dns_query(0x1234, ['www.example.com', 'mail.example.org'])
q2 = dns_query(0x2222, ['www.example.com'])
a = dns_answer(0x1234, 'www.example.com')


def udp():
    p = Pcap()
    port = 20000
    # A query cut at every byte, then the whole response; and the reverse.
    for n in range(len(q) + 1):
        port += 1
        p.udp('10.0.0.1', port, '10.0.0.2', 53, q[:n])
        p.udp('10.0.0.2', 53, '10.0.0.1', port, a)
    for n in range(len(a) + 1):
        port += 1
        p.udp('10.0.0.1', port, '10.0.0.2', 53, q)
        p.udp('10.0.0.2', 53, '10.0.0.1', port, a[:n])
    # A whole query, then one cut short in the same flow.
    for n in range(0, len(q) + 1, 3):
        port += 1
        p.udp('10.0.0.1', port, '10.0.0.2', 53, q2)
        p.udp('10.0.0.1', port, '10.0.0.2', 53, q[:n])
        p.udp('10.0.0.2', 53, '10.0.0.1', port, a)
    # A bad label type.
    bad = bytearray(q)
    bad[12] = 0x40
    port += 1
    p.udp('10.0.0.1', port, '10.0.0.2', 53, bytes(bad))
    p.udp('10.0.0.2', 53, '10.0.0.1', port, a)
    # Header counts against the length (probing): cut at every byte.
    for (qd, an, ns, ar) in [(1, 0, 0, 0), (1, 0, 0, 1), (1, 2, 0, 0), (3, 0, 0, 0)]:
        m = struct.pack('!HHHHHH', 7, 0x0100, qd, an, ns, ar)
        m += b''.join(dnsname('ab.cd') + b'\0\1\0\1' for _ in range(qd))
        for n in range(12, len(m) + 1):
            port += 1
            p.udp('10.0.0.1', port, '10.0.0.2', 53, m[:n])
    return p


def tcp():
    p = Pcap()
    port = 30000

    def L(m, n=None):
        return struct.pack('!H', len(m) if n is None else n) + m

    def conn():
        nonlocal port
        port += 1
        return TcpConn(p, '10.0.0.1', port, '10.0.0.2', 53)

    # A complete frame holding a message cut short, then a whole query (n = 0: a
    # zero length prefix, skipped).
    for n in [0] + list(range(16, len(q) + 1, 3)):
        c = conn()
        c.send(L(q[:n]))
        c.send(L(q2))
        c.send(L(a), False)
        c.close()
    # A length prefix promising the whole query, n bytes of it coming.
    for n in range(0, len(q) + 1, 2):
        c = conn()
        c.send(L(q2))
        c.send(L(q)[:2 + n])
        c.send(L(a), False)
        c.close()
    # A whole query split across two segments at every fourth byte.
    for n in range(0, len(q) + 2, 4):
        c = conn()
        m = L(q)
        c.send(m[:n + 1])
        c.send(m[n + 1:])
        c.send(L(a), False)
        c.close()
    # A whole query and one cut short in the same segment.
    for n in range(12, len(q), 7):
        c = conn()
        c.send(L(q2) + L(q[:n]))
        c.send(L(a), False)
        c.close()
    return p


for name, build in [('dns-udp-cut', udp), ('dns-tcp-cut', tcp)]:
    build().write(f'{name}/input.pcap')
    with open(f'{name}/test.rules', 'w') as f:
        f.write(RULES)
