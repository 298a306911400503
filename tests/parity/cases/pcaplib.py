import struct  # noqa
def csum(b):
    if len(b)%2: b+=b'\0'
    s=sum(struct.unpack('!%dH'%(len(b)//2),b)); s=(s>>16)+(s&0xffff); s+=s>>16
    return (~s)&0xffff
def ip4(a): return bytes(int(x) for x in a.split('.'))
class Pcap:
    def __init__(s): s.pk=[]; s.t=1600000000.0
    def add(s,frame): s.t+=0.001; s.pk.append((s.t,frame))
    def write(s,fn):
        with open(fn,'wb') as f:
            f.write(struct.pack('<IHHiIII',0xa1b2c3d4,2,4,0,0,65535,1))
            for t,fr in s.pk:
                f.write(struct.pack('<IIII',int(t),int((t%1)*1e6),len(fr),len(fr))); f.write(fr)
    def ip(s,src,dst,proto,payload):
        h=struct.pack('!BBHHHBBH4s4s',0x45,0,20+len(payload),1,0,64,proto,0,ip4(src),ip4(dst))
        h=h[:10]+struct.pack('!H',csum(h))+h[12:]
        s.add(b'\x00\x01\x02\x03\x04\x05\x00\x01\x02\x03\x04\x06\x08\x00'+h+payload)
    def udp(s,src,sp,dst,dp,data):
        u=struct.pack('!HHHH',sp,dp,8+len(data),0)+data
        ph=ip4(src)+ip4(dst)+struct.pack('!BBH',0,17,len(u))
        c=csum(ph+u) or 0xffff
        s.ip(src,dst,17,u[:6]+struct.pack('!H',c)+u[8:])
    def tcp(s,src,sp,dst,dp,seq,ack,flags,data=b''):
        t=struct.pack('!HHIIBBHHH',sp,dp,seq&0xffffffff,ack&0xffffffff,5<<4,flags,65535,0,0)+data
        ph=ip4(src)+ip4(dst)+struct.pack('!BBH',0,6,len(t))
        c=csum(ph+t); s.ip(src,dst,6,t[:16]+struct.pack('!H',c)+t[18:])
class TcpConn:
    """A TCP session: handshake, data each way (each chunk one segment), FIN close."""
    def __init__(s,p,cli,cp,srv,sp):
        s.p=p; s.c=(cli,cp); s.s=(srv,sp); s.cs=1000; s.ss=5000
        p.tcp(cli,cp,srv,sp,s.cs,0,0x02); p.tcp(srv,sp,cli,cp,s.ss,s.cs+1,0x12)
        s.cs+=1; s.ss+=1; p.tcp(cli,cp,srv,sp,s.cs,s.ss,0x10)
    def send(s,data,to_server=True):
        if to_server:
            s.p.tcp(*s.c,*s.s,s.cs,s.ss,0x18,data); s.cs+=len(data)
            s.p.tcp(*s.s,*s.c,s.ss,s.cs,0x10)
        else:
            s.p.tcp(*s.s,*s.c,s.ss,s.cs,0x18,data); s.ss+=len(data)
            s.p.tcp(*s.c,*s.s,s.cs,s.ss,0x10)
    def close(s):
        p=s.p; p.tcp(*s.c,*s.s,s.cs,s.ss,0x11); s.cs+=1
        p.tcp(*s.s,*s.c,s.ss,s.cs,0x11); s.ss+=1; p.tcp(*s.c,*s.s,s.cs,s.ss,0x10)
def dnsname(n):
    b=b''
    for l in n.split('.'):
        if l: b+=bytes([len(l)])+l.encode()
    return b+b'\0'
def dns_query(i,names,flags=0x0100,t=1):
    m=struct.pack('!HHHHHH',i,flags,len(names),0,0,0)
    for n in names: m+=dnsname(n)+struct.pack('!HH',t,1)
    return m
def dns_answer(i,name,ip='1.2.3.4',flags=0x8180):
    m=struct.pack('!HHHHHH',i,flags,1,1,0,0)+dnsname(name)+struct.pack('!HH',1,1)
    return m+b'\xc0\x0c'+struct.pack('!HHIH',1,1,300,4)+ip4(ip)


def send_segmented(c, data, to_server=True, mss=1400):
    """Sends data as segments of at most mss bytes (each acknowledged)."""
    for i in range(0, len(data), mss):
        c.send(data[i:i + mss], to_server)


def h2_frame(ty, flags, stream, payload):
    """An HTTP/2 frame: 24-bit length, type, flags, stream id, payload."""
    return struct.pack('!I', len(payload))[1:] + bytes([ty, flags]) + struct.pack('!I', stream) + payload


def hpack_lit(name, value):
    """A literal header field without indexing, new name, no Huffman (short strings)."""
    def s(b):
        b = b.encode() if isinstance(b, str) else b
        assert len(b) < 127
        return bytes([len(b)]) + b
    return b'\x00' + s(name) + s(value)


H2_PREFACE = b'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'
