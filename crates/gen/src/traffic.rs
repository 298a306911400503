//! The generator: keeps a number of TCP conversations open at once, interleaves their
//! packets, and records where each attack flow's alert will land.
//!
//! Every conversation follows the same script, so the landing packet is known:
//!
//! ```text
//! C→S SYN · S→C SYN/ACK · C→S ACK · C→S data… · S→C ACK · S→C data… · C→S ACK
//!        · C→S FIN/ACK · S→C FIN/ACK · C→S ACK
//! ```
//!
//! In IDS mode the engine (like Suricata 7) inspects a direction's data once the other
//! side has acknowledged it: an application-layer or raw-stream alert lands on the first
//! packet the data's sender sends after that ACK, and a packet rule (`dsize`, `tcp-pkt`)
//! on the data packet itself. A payload rule with a content anchored by `offset`,
//! `depth` or `startswith` alerts on both (Suricata matches it on the packet that carries
//! the bytes too), the second one suppressed by a `limit`/`both` threshold.

use crate::frame::{self, flags, Endpoint, PcapWriter, TcpSeg};
use crate::payload;
use crate::rng::Rng;
use crate::synth::{self, Attack, Payload, Side};
use std::collections::VecDeque;
use std::io::{self, Write};
use std::net::Ipv4Addr;

/// Frame sizes of data packets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SizeDist {
    /// Every data frame this long (captured bytes, 64..=1514).
    Fixed(u16),
    /// Simple IMIX: 64, 594 and 1514-byte frames in the ratio 7:4:1.
    Imix,
}

impl SizeDist {
    /// Parses `64`..`1514` or `imix`.
    pub fn parse(s: &str) -> Result<SizeDist, String> {
        if s.eq_ignore_ascii_case("imix") {
            return Ok(SizeDist::Imix);
        }
        let n: u16 = s
            .parse()
            .map_err(|_| format!("size `{s}`: a number or imix"))?;
        if !(64..=1514).contains(&n) {
            return Err(format!("size {n} outside 64..1514"));
        }
        Ok(SizeDist::Fixed(n))
    }

    fn frame(self, rng: &mut Rng) -> usize {
        match self {
            SizeDist::Fixed(n) => n as usize,
            SizeDist::Imix => match rng.below(12) {
                0..=6 => 64,
                7..=10 => 594,
                _ => 1514,
            },
        }
    }
}

/// Filler for benign payloads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Filler {
    /// HTML-like text.
    #[default]
    Text,
    /// JSON-like text.
    Json,
    /// Random bytes.
    Random,
}

/// What to generate.
#[derive(Clone, Debug)]
pub struct Config {
    /// Conversations open at the same time.
    pub flows: usize,
    /// Packets to write (the conversations open when it is reached are finished).
    pub packets: u64,
    /// Stop after this many conversations (`None`: only `packets` limits).
    pub max_flows: Option<u64>,
    /// Data frame sizes.
    pub size: SizeDist,
    /// Share of conversations that carry an attack (0.0..=1.0).
    pub attack_fraction: f64,
    /// Seed: the same seed and inputs give the same bytes.
    pub seed: u64,
    /// Body filler of benign responses.
    pub filler: Filler,
    /// Response body size of benign conversations, in data packets (1..=this).
    pub response_packets: u32,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            flows: 100,
            packets: 10_000,
            max_flows: None,
            size: SizeDist::Fixed(1514),
            attack_fraction: 0.0,
            seed: 1,
            filler: Filler::Text,
            response_packets: 4,
        }
    }
}

/// An alert the traffic is built to raise (the corpus's `expected.jsonl` fields).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExpectedAlert {
    /// Rule sid.
    pub signature_id: u32,
    /// Source address of the alert.
    pub src_ip: Ipv4Addr,
    /// Source port.
    pub src_port: u16,
    /// Destination address.
    pub dest_ip: Ipv4Addr,
    /// Destination port.
    pub dest_port: u16,
    /// 1-based packet number the alert is raised on.
    pub pcap_cnt: u64,
}

impl ExpectedAlert {
    /// One line of `expected.jsonl`.
    pub fn to_json(&self) -> String {
        serde_json::json!({
            "signature_id": self.signature_id,
            "src_ip": self.src_ip.to_string(),
            "src_port": self.src_port,
            "dest_ip": self.dest_ip.to_string(),
            "dest_port": self.dest_port,
            "proto": "TCP",
            "pcap_cnt": self.pcap_cnt,
        })
        .to_string()
    }
}

/// What was written.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// Packets written.
    pub packets: u64,
    /// Frame bytes written.
    pub bytes: u64,
    /// Conversations.
    pub flows: u64,
    /// Conversations carrying an attack.
    pub attack_flows: u64,
    /// Expected alerts, in packet order.
    pub expected: Vec<ExpectedAlert>,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Step {
    Syn,
    SynAck,
    Ack,
    ClientData,
    ServerAck,
    ServerData,
    ClientAck,
    ClientFin,
    ServerFin,
    LastAck,
    Done,
}

struct Conv {
    client: Endpoint,
    server: Endpoint,
    c_seq: u32,
    s_seq: u32,
    c_data: Vec<u8>,
    s_data: Vec<u8>,
    sent: usize,
    step: Step,
    /// Whole payload in one segment (attack payloads on raw packets).
    single_segment: bool,
    attack: Option<ConvAttack>,
    /// Armed after the ACK of the attack's data: the alert lands on the next packet
    /// from the client (`Some(true)`) or the server (`Some(false)`).
    armed: Option<bool>,
    rng: Rng,
}

#[derive(Clone, Copy)]
struct ConvAttack {
    sid: u32,
    side: Side,
    src_is_client: bool,
    packet_level: bool,
    anchored: bool,
    once: bool,
}

fn client_ip(n: u64, home: bool) -> Ipv4Addr {
    if home {
        Ipv4Addr::new(10, (n >> 16) as u8, (n >> 8) as u8, n as u8)
    } else {
        let m = n & 0x1_ffff;
        Ipv4Addr::new(198, 18 + (m >> 16) as u8, (m >> 8) as u8, m as u8)
    }
}

fn server_ip(n: u64, home: bool) -> Ipv4Addr {
    if home {
        Ipv4Addr::new(172, 16 + ((n >> 16) & 0x0f) as u8, (n >> 8) as u8, n as u8)
    } else {
        Ipv4Addr::new(100, 64 + ((n >> 16) & 0x3f) as u8, (n >> 8) as u8, n as u8)
    }
}

/// Writes traffic to `out` as pcap, with `attacks` spread over the attack conversations
/// in order (round robin).
pub fn generate<W: Write>(cfg: &Config, attacks: &[Attack], out: W) -> io::Result<Summary> {
    let mut rng = Rng::new(cfg.seed);
    let mut w = PcapWriter::new(io::BufWriter::with_capacity(1 << 20, out))?;
    let mut active: VecDeque<Conv> = VecDeque::with_capacity(cfg.flows.min(1 << 20));
    let mut summary = Summary::default();
    let body_blob = match cfg.filler {
        Filler::Text => payload::text(&mut rng, 1 << 16),
        Filler::Json => payload::json(&mut rng, 1 << 16),
        Filler::Random => payload::random(&mut rng, 1 << 16),
    };
    let mut next_attack = 0usize;
    let mut frame_buf = Vec::with_capacity(frame::MAX_FRAME);
    let mut ts: u64 = 1_700_000_000_000_000;
    let mut ip_id: u16 = 1;
    let can_start = |s: &Summary, w: &PcapWriter<_>| {
        w.frames < cfg.packets && cfg.max_flows.is_none_or(|m| s.flows < m)
    };
    loop {
        while active.len() < cfg.flows.max(1) && can_start(&summary, &w) {
            let n = summary.flows + 1;
            let mut crng = rng.fork();
            let attack = if !attacks.is_empty() && crng.chance(cfg.attack_fraction) {
                let a = &attacks[next_attack % attacks.len()];
                next_attack += 1;
                Some(a)
            } else {
                None
            };
            active.push_back(new_conv(n, attack, &body_blob, cfg, crng));
            summary.flows += 1;
            summary.attack_flows += u64::from(attack.is_some());
        }
        let Some(mut c) = active.pop_front() else {
            break;
        };
        let cnt = w.frames + 1;
        let ev = emit(&mut c, cfg.size, &mut frame_buf, ip_id);
        ip_id = ip_id.wrapping_add(1);
        ts += 10;
        w.write(ts, &frame_buf)?;
        if let Some(a) = c.attack {
            let on_data = ev.data_done == Some(a.side);
            let lands = match c.armed {
                Some(from_client) => from_client == ev.from_client,
                None => (a.packet_level || a.anchored) && on_data,
            };
            if lands {
                let (src, dst) = if a.src_is_client {
                    (c.client, c.server)
                } else {
                    (c.server, c.client)
                };
                summary.expected.push(ExpectedAlert {
                    signature_id: a.sid,
                    src_ip: src.ip,
                    src_port: src.port,
                    dest_ip: dst.ip,
                    dest_port: dst.port,
                    pcap_cnt: cnt,
                });
                // An anchored payload rule matched its data packet; the stream alert
                // follows after the ACK unless a threshold allows one alert only.
                if c.armed.is_none() && a.anchored && !a.once {
                    c.attack = Some(ConvAttack {
                        anchored: false,
                        ..a
                    });
                } else {
                    c.attack = None;
                }
                c.armed = None;
            } else if !a.packet_level && ev.acked == Some(a.side) {
                c.armed = Some(a.side == Side::ToServer);
            }
        }
        if c.step != Step::Done {
            active.push_back(c);
        }
    }
    summary.packets = w.frames;
    summary.bytes = w.bytes;
    w.finish()?.flush()?;
    Ok(summary)
}

fn new_conv(n: u64, attack: Option<&Attack>, blob: &[u8], cfg: &Config, mut rng: Rng) -> Conv {
    let (client_home, server_home, server_port) = attack.map_or((true, false, 80), |a| {
        (a.client_home, a.server_home, a.server_port)
    });
    let mut cport = 49152 + rng.below(16_384) as u16;
    if let Some(a) = attack {
        if !a.client_ports.contains(cport) {
            cport = (49152..=65535)
                .find(|p| a.client_ports.contains(*p))
                .unwrap_or(cport);
        }
    }
    let client = Endpoint {
        ip: client_ip(n, client_home),
        port: cport,
    };
    let server = Endpoint {
        ip: server_ip(n, server_home),
        port: server_port,
    };
    let (c_data, s_data, single) = match attack.map(|a| &a.payload) {
        Some(Payload::Http(req, resp)) => (req.render(), resp.render(), false),
        Some(Payload::Tcp { client, server }) => (client.clone(), server.clone(), true),
        None => {
            let req = synth::default_request(&mut rng);
            let mut resp = synth::default_response(&mut rng);
            let per = match cfg.size {
                SizeDist::Fixed(s) => s as usize - frame::TCP_HEADERS,
                SizeDist::Imix => 500,
            };
            let len = (per * rng.range(1, cfg.response_packets.max(1) as u64) as usize)
                .min(blob.len() - 1);
            let off = rng.below((blob.len() - len) as u64) as usize;
            resp.body = blob[off..off + len].to_vec();
            (req.render(), resp.render(), false)
        }
    };
    Conv {
        client,
        server,
        c_seq: rng.next_u64() as u32,
        s_seq: rng.next_u64() as u32,
        c_data,
        s_data,
        sent: 0,
        step: Step::Syn,
        single_segment: single,
        attack: attack.map(|a| ConvAttack {
            sid: a.sid,
            side: a.side,
            src_is_client: a.src_is_client,
            packet_level: a.packet_level,
            anchored: a.anchored,
            once: a.once,
        }),
        armed: None,
        rng,
    }
}

/// What one packet of a conversation was.
#[derive(Clone, Copy, Debug, Default)]
struct Event {
    /// Sent by the client.
    from_client: bool,
    /// Carried the last data of this side.
    data_done: Option<Side>,
    /// Acknowledged all data of this side.
    acked: Option<Side>,
}

/// Writes the conversation's next packet into `buf`.
fn emit(c: &mut Conv, size: SizeDist, buf: &mut Vec<u8>, ip_id: u16) -> Event {
    let (cl, sv) = (c.client, c.server);
    let mut seg = |src: Endpoint, dst: Endpoint, seq: u32, ack: u32, fl: u8, payload: &[u8]| {
        frame::tcp_frame(
            buf,
            &TcpSeg {
                src,
                dst,
                seq,
                ack,
                flags: fl,
                payload,
            },
            ip_id,
        );
    };
    let mut ev = Event {
        from_client: matches!(
            c.step,
            Step::Syn
                | Step::Ack
                | Step::ClientData
                | Step::ClientAck
                | Step::ClientFin
                | Step::LastAck
        ),
        ..Event::default()
    };
    match c.step {
        Step::Syn => {
            seg(cl, sv, c.c_seq, 0, flags::SYN, &[]);
            c.c_seq = c.c_seq.wrapping_add(1);
            c.step = Step::SynAck;
        }
        Step::SynAck => {
            seg(sv, cl, c.s_seq, c.c_seq, flags::SYN | flags::ACK, &[]);
            c.s_seq = c.s_seq.wrapping_add(1);
            c.step = Step::Ack;
        }
        Step::Ack => {
            seg(cl, sv, c.c_seq, c.s_seq, flags::ACK, &[]);
            c.step = if c.c_data.is_empty() {
                Step::ServerData
            } else {
                Step::ClientData
            };
        }
        Step::ClientData | Step::ServerData => {
            let client_side = c.step == Step::ClientData;
            let data = if client_side { &c.c_data } else { &c.s_data };
            let room = if c.single_segment {
                data.len()
            } else {
                size.frame(&mut c.rng)
                    .saturating_sub(frame::TCP_HEADERS)
                    .max(1)
            };
            let n = room.min(data.len() - c.sent);
            let chunk = &data[c.sent..c.sent + n];
            if client_side {
                seg(cl, sv, c.c_seq, c.s_seq, flags::ACK | flags::PSH, chunk);
                c.c_seq = c.c_seq.wrapping_add(n as u32);
            } else {
                seg(sv, cl, c.s_seq, c.c_seq, flags::ACK | flags::PSH, chunk);
                c.s_seq = c.s_seq.wrapping_add(n as u32);
            }
            c.sent += n;
            if c.sent >= data.len() {
                c.sent = 0;
                let side = if client_side {
                    Side::ToServer
                } else {
                    Side::ToClient
                };
                ev.data_done = Some(side);
                c.step = if client_side {
                    Step::ServerAck
                } else {
                    Step::ClientAck
                };
            }
        }
        Step::ServerAck => {
            seg(sv, cl, c.s_seq, c.c_seq, flags::ACK, &[]);
            ev.acked = Some(Side::ToServer);
            c.step = if c.s_data.is_empty() {
                Step::ClientFin
            } else {
                Step::ServerData
            };
        }
        Step::ClientAck => {
            seg(cl, sv, c.c_seq, c.s_seq, flags::ACK, &[]);
            ev.acked = Some(Side::ToClient);
            c.step = Step::ClientFin;
        }
        Step::ClientFin => {
            seg(cl, sv, c.c_seq, c.s_seq, flags::FIN | flags::ACK, &[]);
            c.c_seq = c.c_seq.wrapping_add(1);
            c.step = Step::ServerFin;
        }
        Step::ServerFin => {
            seg(sv, cl, c.s_seq, c.c_seq, flags::FIN | flags::ACK, &[]);
            c.s_seq = c.s_seq.wrapping_add(1);
            c.step = Step::LastAck;
        }
        Step::LastAck => {
            seg(cl, sv, c.c_seq, c.s_seq, flags::ACK, &[]);
            c.step = Step::Done;
        }
        Step::Done => {}
    }
    ev
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(cfg: &Config) -> (Vec<u8>, Summary) {
        let mut out = Vec::new();
        let s = generate(cfg, &[], &mut out).unwrap();
        (out, s)
    }

    #[test]
    fn deterministic_per_seed() {
        let cfg = Config {
            packets: 500,
            flows: 7,
            ..Config::default()
        };
        let (a, _) = run(&cfg);
        let (b, _) = run(&cfg);
        assert_eq!(a, b);
        let (c, _) = run(&Config { seed: 2, ..cfg });
        assert_ne!(a, c);
    }

    #[test]
    fn fixed_size_data_frames() {
        let cfg = Config {
            packets: 400,
            flows: 3,
            size: SizeDist::Fixed(200),
            ..Config::default()
        };
        let (pcap, s) = run(&cfg);
        assert!(s.packets >= 400);
        let mut off = 24;
        let mut sizes = std::collections::BTreeSet::new();
        while off + 16 <= pcap.len() {
            let len = u32::from_le_bytes(pcap[off + 8..off + 12].try_into().unwrap()) as usize;
            sizes.insert(len);
            off += 16 + len;
        }
        assert_eq!(off, pcap.len());
        assert!(sizes.iter().all(|&l| l == 54 || l <= 200), "{sizes:?}");
        assert!(sizes.contains(&200));
    }

    #[test]
    fn size_parsing() {
        assert_eq!(SizeDist::parse("imix").unwrap(), SizeDist::Imix);
        assert_eq!(SizeDist::parse("64").unwrap(), SizeDist::Fixed(64));
        assert!(SizeDist::parse("63").is_err());
        assert!(SizeDist::parse("1515").is_err());
    }
}
