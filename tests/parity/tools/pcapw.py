"""Tiny raw pcap writer for TCP/IPv4 conversations (no scapy)."""
import struct

def csum(b):
    if len(b) % 2: b += b'\0'
    s = sum(struct.unpack('!%dH' % (len(b)//2), b))
    while s >> 16: s = (s & 0xffff) + (s >> 16)
    return (~s) & 0xffff

def ip4(a): return bytes(int(x) for x in a.split('.'))

FL = {'F':1,'S':2,'R':4,'P':8,'A':16,'U':32}

def tcp_frame(src, dst, sport, dport, seq, ack, flags, payload=b'', win=65535, ipid=1, opts=b''):
    f = 0
    for c in flags: f |= FL[c]
    off = (20 + len(opts)) // 4
    th = struct.pack('!HHIIBBHHH', sport, dport, seq & 0xffffffff, ack & 0xffffffff, off << 4, f, win, 0, 0) + opts
    ph = ip4(src) + ip4(dst) + struct.pack('!BBH', 0, 6, len(th) + len(payload))
    c = csum(ph + th + payload)
    th = th[:16] + struct.pack('!H', c) + th[18:]
    tot = 20 + len(th) + len(payload)
    iph = struct.pack('!BBHHHBBH4s4s', 0x45, 0, tot, ipid & 0xffff, 0x4000, 64, 6, 0, ip4(src), ip4(dst))
    iph = iph[:10] + struct.pack('!H', csum(iph)) + iph[12:]
    eth = b'\x00\x11\x22\x33\x44\x55' + b'\x66\x77\x88\x99\xaa\xbb' + b'\x08\x00'
    return eth + iph + th + payload

def write(path, frames, t0=1700000000.0, step=0.01):
    with open(path, 'wb') as f:
        f.write(struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for i, fr in enumerate(frames):
            t = t0 + i * step
            f.write(struct.pack('<IIII', int(t), int(round((t % 1) * 1e6)), len(fr), len(fr)))
            f.write(fr)

class Conv:
    """A TCP conversation: c = client, s = server; tracks sequence numbers."""
    def __init__(self, cip='10.0.0.1', sip='10.0.0.2', cport=40000, sport=80, cisn=1000, sisn=5000):
        self.ip = {'c': cip, 's': sip}; self.port = {'c': cport, 's': sport}
        self.seq = {'c': cisn, 's': sisn}; self.frames = []; self.ipid = 1
    def pkt(self, who, flags, payload=b'', seq=None, ack=None, emit=True, opts=b''):
        o = 's' if who == 'c' else 'c'
        s = self.seq[who] if seq is None else seq
        a = self.seq[o] if ack is None else ack
        fr = tcp_frame(self.ip[who], self.ip[o], self.port[who], self.port[o], s, a,
                       flags, payload, ipid=self.ipid, opts=opts)
        self.ipid += 1
        adv = len(payload) + (1 if 'S' in flags else 0) + (1 if 'F' in flags else 0)
        if seq is None: self.seq[who] += adv
        if emit: self.frames.append(fr)
        return fr

def read_frames(path):
    b = open(path,'rb').read(); off = 24; out = []
    while off + 16 <= len(b):
        ts, us, cl, ol = struct.unpack('<IIII', b[off:off+16]); off += 16
        out.append(b[off:off+cl]); off += cl
    return out
