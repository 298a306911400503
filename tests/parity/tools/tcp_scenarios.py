"""TCP conversations for the stream cases (midstream, one-sided, TCP Fast Open, IPS).

usage: tcp_scenarios.py OUTDIR  writes OUTDIR/<scenario>/input.pcap for every scenario.
"""
import sys, os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pcapw import Conv, write
REQ = b"GET /index.html HTTP/1.1\r\nHost: example.com\r\nUser-Agent: tst\r\n\r\n"
RESP = b"HTTP/1.1 200 OK\r\nContent-Length: 12\r\nContent-Type: text/html\r\n\r\nhello world!"
REQ2 = b"GET /second.html HTTP/1.1\r\nHost: example.com\r\n\r\n"

def full(c, hs=True, fin=True, req=REQ, resp=RESP):
    if hs:
        c.pkt('c','S'); c.pkt('s','SA'); c.pkt('c','A')
    c.pkt('c','PA',req); c.pkt('s','A'); c.pkt('s','PA',resp); c.pkt('c','A')
    if fin:
        c.pkt('c','FA'); c.pkt('s','FA'); c.pkt('c','A')

S = {}
def sc(f):
    S[f.__name__] = f; return f

@sc
def base():
    c = Conv(); full(c); return c.frames
@sc
def mid_client_first():
    c = Conv(); full(c, hs=False); return c.frames
@sc
def mid_client_first_nofin():
    c = Conv(); full(c, hs=False, fin=False); return c.frames
@sc
def mid_two_reqs():
    c = Conv(); full(c, hs=False, fin=False); c.pkt('c','PA',REQ2); c.pkt('s','A'); c.pkt('s','PA',RESP); c.pkt('c','A'); return c.frames
@sc
def mid_server_first():
    c = Conv(); c.pkt('s','PA',RESP); c.pkt('c','A'); c.pkt('c','PA',REQ2); c.pkt('s','A'); c.pkt('s','PA',RESP); c.pkt('c','A'); return c.frames
@sc
def mid_synack_first():
    c = Conv(); c.seq['c'] += 1; c.pkt('s','SA'); c.pkt('c','A'); c.pkt('c','PA',REQ); c.pkt('s','A'); c.pkt('s','PA',RESP); c.pkt('c','A'); return c.frames
@sc
def oneside_client():
    c = Conv(); c.pkt('c','S'); c.seq['s'] += 1; c.pkt('c','A'); c.pkt('c','PA',REQ); c.seq['s'] += len(RESP); c.pkt('c','A'); c.pkt('c','PA',REQ2); c.pkt('c','FA'); return c.frames
@sc
def oneside_client_nofin():
    c = Conv(); c.pkt('c','S'); c.seq['s'] += 1; c.pkt('c','A'); c.pkt('c','PA',REQ); c.seq['s'] += len(RESP); c.pkt('c','A'); c.pkt('c','PA',REQ2); return c.frames
@sc
def oneside_server():
    c = Conv(); c.seq['c'] += 1; c.pkt('s','SA'); c.seq['c'] += len(REQ); c.pkt('s','A'); c.pkt('s','PA',RESP); c.pkt('s','PA',RESP); c.pkt('s','FA'); return c.frames
@sc
def oneside_client_midstream():
    c = Conv(); c.pkt('c','PA',REQ); c.seq['s'] += len(RESP); c.pkt('c','A'); c.pkt('c','PA',REQ2); c.pkt('c','A'); return c.frames
@sc
def oneside_server_midstream():
    c = Conv(); c.pkt('s','PA',RESP); c.seq['c'] += len(REQ); c.pkt('s','PA',RESP); c.pkt('s','A'); return c.frames
@sc
def tfo_acked():
    c = Conv(); c.pkt('c','S',REQ); c.pkt('s','SA'); c.pkt('c','A'); c.pkt('s','PA',RESP); c.pkt('c','A'); c.pkt('c','FA'); c.pkt('s','FA'); c.pkt('c','A'); return c.frames
@sc
def tfo_rejected():
    c = Conv(); cisn = c.seq['c']; c.pkt('c','S',REQ); c.pkt('s','SA', ack=cisn+1); c.pkt('c','A'); c.pkt('c','PA',REQ, seq=cisn+1); c.pkt('s','A'); c.pkt('s','PA',RESP); c.pkt('c','A'); c.pkt('c','FA'); c.pkt('s','FA'); c.pkt('c','A'); return c.frames
@sc
def tfo_nofollow():
    c = Conv(); c.pkt('c','S',REQ); c.pkt('s','SA'); c.pkt('c','A'); c.pkt('s','PA',RESP); return c.frames
@sc
def ips_two_reqs():
    c = Conv(); full(c, fin=False); c.pkt('c','PA',REQ2); c.pkt('s','A'); c.pkt('s','PA',RESP); c.pkt('c','A'); c.pkt('c','FA'); c.pkt('s','FA'); c.pkt('c','A'); return c.frames
@sc
def ips_mid_two_reqs():
    c = Conv(); full(c, hs=False, fin=False); c.pkt('c','PA',REQ2); c.pkt('s','A'); c.pkt('s','PA',RESP); c.pkt('c','A'); c.pkt('c','FA'); c.pkt('s','FA'); c.pkt('c','A'); return c.frames

TFO34 = bytes.fromhex('220a0102030405060708') + b'\x01\x01'
TFOEXP = bytes.fromhex('fe0cf9890102030405060708')
TFOEXPBAD = bytes.fromhex('fe0cf9880102030405060708')
def tfo_flow(opt, ackdata=True, follow=True):
    c = Conv(); cisn = c.seq['c']; c.pkt('c','S',REQ, ack=0, opts=opt)
    if ackdata: c.pkt('s','SA')
    else:
        c.pkt('s','SA', ack=cisn+1); c.pkt('c','A', seq=cisn+1); c.pkt('c','PA',REQ, seq=cisn+1)
    c.pkt('c','A'); c.pkt('s','PA',RESP); c.pkt('c','A')
    if follow: c.pkt('c','PA',REQ2); c.pkt('s','A'); c.pkt('s','PA',RESP); c.pkt('c','A'); c.pkt('c','FA'); c.pkt('s','FA'); c.pkt('c','A')
    return c.frames
S['tfo34_acked'] = lambda: tfo_flow(TFO34)
S['tfo34_nofollow'] = lambda: tfo_flow(TFO34, follow=False)
S['tfo34_rejected'] = lambda: tfo_flow(TFO34, ackdata=False)
S['tfoexp_acked'] = lambda: tfo_flow(TFOEXP)
S['tfoexpbad_acked'] = lambda: tfo_flow(TFOEXPBAD)
S['tfonone_acked'] = lambda: tfo_flow(b'')

def _mid_two_client():
    c = Conv(); c.pkt('c','PA',REQ); c.pkt('c','PA',REQ2); c.pkt('s','A'); c.pkt('s','PA',RESP); c.pkt('c','A'); return c.frames
S['mid_two_client'] = _mid_two_client

def _ips_window():
    # Inline raw-stream window: a second request right after the first, then a long
    # one that pushes the first past the chunk size (2,560 bytes) behind it.
    big = b"GET /third.html HTTP/1.1\r\nHost: example.com\r\nX-Pad: " + b"x" * 1400 + b"\r\n\r\n"
    c = Conv(); full(c, fin=False)
    for req in (REQ2, big, big, REQ2):
        c.pkt('c','PA',req); c.pkt('s','A'); c.pkt('s','PA',RESP); c.pkt('c','A')
    c.pkt('c','FA'); c.pkt('s','FA'); c.pkt('c','A'); return c.frames
S['ips_window'] = _ips_window

if __name__ == '__main__':
    out = sys.argv[1]
    for n, f in S.items():
        os.makedirs(f'{out}/{n}', exist_ok=True)
        write(f'{out}/{n}/input.pcap', f())
    print(' '.join(S))
