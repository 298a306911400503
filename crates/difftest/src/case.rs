//! One generated case: a rule and the flow built to hit or just miss it, on addresses of
//! its own (case `i` owns the IPv4 network `10+i/65536 . i/256 . i%256 .0/24` and the IPv6
//! network `fd00:0:HI:LO::/64`), so every alert maps back to its case by signature id and
//! no two cases share a 5-tuple.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use crate::packet::{frame, IpFields, Transport};

/// The first signature id; case `i` has sid `SID_BASE + i`.
pub const SID_BASE: u32 = 1_000_000;

/// The first signature id of the helper rules ([`Spec::setup`]); case `i`'s has
/// `SETUP_SID_BASE + i`.
pub const SETUP_SID_BASE: u32 = 50_000_000;

/// What the flow was built to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Intent {
    /// Built to raise the rule's alert.
    Hit,
    /// Built to just miss it (one byte, one bit or one unit away).
    Miss,
}

/// The transport of a case's flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum L4 {
    /// TCP with a three-way handshake, one data segment each way is not sent: the client's
    /// data, the server's acknowledgement, then the FIN exchange.
    Tcp,
    /// One datagram to the server and a short reply.
    Udp,
    /// An echo request (or the case's type/code) and an echo reply.
    Icmp,
}

/// The packet-level fields of the client's data packet (the other packets keep the
/// defaults).
#[derive(Clone, Debug, Default)]
pub struct Tweaks {
    /// IP fields of the data packet.
    pub ip: IpFields,
    /// TCP flags of the data packet (default PSH|ACK).
    pub tcp_flags: Option<u8>,
    /// TCP window of the data packet (default 64,240).
    pub window: Option<u16>,
    /// ICMP type and code of the request (default echo request, 0).
    pub icmp: Option<(u8, u8)>,
    /// ICMP identifier and sequence of the request.
    pub icmp_id_seq: (u16, u16),
    /// Server port (default 7000 + case % 1000).
    pub dport: Option<u16>,
}

/// A generated case, before it is given its index.
#[derive(Clone, Debug)]
pub struct Spec {
    /// The template that made it (`family/variant`): the class a difference is filed under.
    pub template: String,
    /// Hit or just miss.
    pub intent: Intent,
    /// IPv6 (else IPv4).
    pub v6: bool,
    /// Transport.
    pub l4: L4,
    /// The rule's protocol (`tcp`, `udp`, `icmp`, `ip`).
    pub proto: &'static str,
    /// The rule header's source, source port, destination, destination port; `None`:
    /// the client's and server's exact addresses and `any` ports.
    pub header: Option<[String; 4]>,
    /// The rule's options without `msg`, `sid` and `rev` (each ends with `;`).
    pub opts: String,
    /// The client's payload.
    pub payload: Vec<u8>,
    /// Packet fields.
    pub tweaks: Tweaks,
    /// Frames written by a traffic family (`crate::flows`); when set they are the case's
    /// flow and `l4`, `payload` and `tweaks` only describe it.
    pub script: Option<Vec<Vec<u8>>>,
    /// Files the rule names (hash lists ...): (file name, contents), written next to the
    /// rule file, whose directory both engines resolve such names against.
    pub files: Vec<(String, Vec<u8>)>,
    /// The options of a helper rule that sets state the case's rule reads (a flow or
    /// packet variable from a pcre capture ...): written with `noalert` and sid
    /// [`SETUP_SID_BASE`] + index after every case's rule (so a rule file's line `i + 1`
    /// stays case `i`'s rule), on the case's addresses.
    pub setup: Option<String>,
}

/// A case's addresses.
#[derive(Clone, Copy, Debug)]
pub struct Addrs {
    /// The client.
    pub client: IpAddr,
    /// The server.
    pub server: IpAddr,
    /// The case's network prefix as text (`10.0.5.0` or `fd00:0:0:5::`).
    pub net: IpAddr,
    /// The client port.
    pub sport: u16,
}

impl Addrs {
    /// The addresses of case `index` in the family `v6`.
    pub fn of(index: u32, v6: bool) -> Addrs {
        let sport = 20_000 + (index % 40_000) as u16;
        if v6 {
            let hi = (index >> 16) as u16;
            let lo = index as u16;
            let host = |h| IpAddr::V6(Ipv6Addr::new(0xfd00, 0, hi, lo, 0, 0, 0, h));
            Addrs {
                client: host(1),
                server: host(2),
                net: host(0),
                sport,
            }
        } else {
            let a = 10 + (index >> 16) as u8;
            let b = (index >> 8) as u8;
            let c = index as u8;
            let host = |h| IpAddr::V4(Ipv4Addr::new(a, b, c, h));
            Addrs {
                client: host(1),
                server: host(2),
                net: host(0),
                sport,
            }
        }
    }

    /// The prefix length of the case's own network (24 or 64).
    pub fn net_bits(&self) -> u8 {
        if self.net.is_ipv6() {
            64
        } else {
            24
        }
    }

    /// Another host of the case's network (`h` in 3..=250).
    pub fn host(&self, h: u8) -> IpAddr {
        match self.net {
            IpAddr::V4(n) => {
                let o = n.octets();
                IpAddr::V4(Ipv4Addr::new(o[0], o[1], o[2], h))
            }
            IpAddr::V6(n) => {
                let mut s = n.segments();
                s[7] = u16::from(h);
                IpAddr::V6(Ipv6Addr::from(s))
            }
        }
    }
}

/// A case with its index: its rule text and its frames.
#[derive(Clone, Debug)]
pub struct Case {
    /// Index in the batch.
    pub index: u32,
    /// The spec.
    pub spec: Spec,
    /// Its addresses.
    pub addrs: Addrs,
}

impl Case {
    /// The case's signature id.
    pub fn sid(&self) -> u32 {
        SID_BASE + self.index
    }

    /// The server port.
    pub fn dport(&self) -> u16 {
        self.spec
            .tweaks
            .dport
            .unwrap_or(7000 + (self.index % 1000) as u16)
    }

    /// The rule, one line.
    pub fn rule(&self) -> String {
        let s = &self.spec;
        let [src, sp, dst, dp] = match &s.header {
            Some(h) => h.clone(),
            None => [
                self.addrs.client.to_string(),
                "any".into(),
                self.addrs.server.to_string(),
                "any".into(),
            ],
        };
        format!(
            "alert {} {src} {sp} -> {dst} {dp} (msg:\"difftest {} {}\"; {}sid:{}; rev:1;)",
            s.proto,
            self.index,
            s.template,
            if s.opts.is_empty() {
                String::new()
            } else {
                format!("{} ", s.opts)
            },
            self.sid()
        )
    }

    /// The helper rule of [`Spec::setup`], one line, if the case has one: the case's
    /// header in both directions, `noalert`.
    pub fn setup_rule(&self) -> Option<String> {
        let o = self.spec.setup.as_ref()?;
        let (c, s) = (self.addrs.client, self.addrs.server);
        Some(format!(
            "alert {} [{c},{s}] any -> [{c},{s}] any (msg:\"difftest setup {}\"; {o} noalert; sid:{}; rev:1;)",
            self.spec.proto,
            self.index,
            SETUP_SID_BASE + self.index
        ))
    }

    /// The flow's frames with their timestamps (microseconds), starting at `t0`.
    pub fn frames(&self, t0: u64) -> Vec<(u64, Vec<u8>)> {
        let c = self.addrs.client;
        let s = self.addrs.server;
        let (sp, dp) = (self.addrs.sport, self.dport());
        let tw = &self.spec.tweaks;
        let plain = IpFields::default();
        let mut out = Vec::new();
        let mut push = |from_client: bool, ip: &IpFields, t: Transport<'_>| {
            let mut f = Vec::new();
            let (a, b) = if from_client { (c, s) } else { (s, c) };
            frame(&mut f, a, b, ip, &t);
            let ts = t0 + 100 * out.len() as u64;
            out.push((ts, f));
        };
        if let Some(script) = &self.spec.script {
            return script
                .iter()
                .enumerate()
                .map(|(i, f)| (t0 + 100 * i as u64, f.clone()))
                .collect();
        }
        let p = &self.spec.payload;
        match self.spec.l4 {
            L4::Tcp => {
                use wire::tcp_flags::{ACK, FIN, PSH, SYN};
                let (ci, si) = (1000u32, 5000u32);
                let tcp = |ports, seq, ack, flags, window, payload| Transport::Tcp {
                    ports,
                    seq,
                    ack,
                    flags,
                    window,
                    payload,
                };
                let n = p.len() as u32;
                push(true, &plain, tcp((sp, dp), ci, 0, SYN, 64240, &[]));
                push(
                    false,
                    &plain,
                    tcp((dp, sp), si, ci + 1, SYN | ACK, 64240, &[]),
                );
                push(true, &plain, tcp((sp, dp), ci + 1, si + 1, ACK, 64240, &[]));
                push(
                    true,
                    &tw.ip,
                    tcp(
                        (sp, dp),
                        ci + 1,
                        si + 1,
                        tw.tcp_flags.unwrap_or(PSH | ACK),
                        tw.window.unwrap_or(64240),
                        p,
                    ),
                );
                push(
                    false,
                    &plain,
                    tcp((dp, sp), si + 1, ci + 1 + n, ACK, 64240, &[]),
                );
                push(
                    true,
                    &plain,
                    tcp((sp, dp), ci + 1 + n, si + 1, FIN | ACK, 64240, &[]),
                );
                push(
                    false,
                    &plain,
                    tcp((dp, sp), si + 1, ci + 2 + n, FIN | ACK, 64240, &[]),
                );
                push(
                    true,
                    &plain,
                    tcp((sp, dp), ci + 2 + n, si + 2, ACK, 64240, &[]),
                );
            }
            L4::Udp => {
                push(
                    true,
                    &tw.ip,
                    Transport::Udp {
                        ports: (sp, dp),
                        payload: p,
                    },
                );
                push(
                    false,
                    &plain,
                    Transport::Udp {
                        ports: (dp, sp),
                        payload: b"ok",
                    },
                );
            }
            L4::Icmp => {
                let v6 = c.is_ipv6();
                let (ty, code) = tw.icmp.unwrap_or(if v6 { (128, 0) } else { (8, 0) });
                let (id, seq) = tw.icmp_id_seq;
                let mut rest = [0u8; 4];
                rest[..2].copy_from_slice(&id.to_be_bytes());
                rest[2..].copy_from_slice(&seq.to_be_bytes());
                push(
                    true,
                    &tw.ip,
                    Transport::Icmp {
                        ty,
                        code,
                        rest,
                        payload: p,
                    },
                );
                let reply = if v6 { 129 } else { 0 };
                push(
                    false,
                    &plain,
                    Transport::Icmp {
                        ty: reply,
                        code: 0,
                        rest,
                        payload: p,
                    },
                );
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_are_distinct_per_case_and_family() {
        let a = Addrs::of(0x1_02_03, false);
        assert_eq!(a.client.to_string(), "11.2.3.1");
        assert_eq!(a.host(9).to_string(), "11.2.3.9");
        let b = Addrs::of(0x1_02_03, true);
        assert_eq!(b.server.to_string(), "fd00:0:1:203::2");
        assert_eq!(b.net_bits(), 64);
    }
}
