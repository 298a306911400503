//! Helpers for the detect integration tests: rules from text, packets from parts.
#![allow(dead_code)]

use detect::{Alert, DetectOptions, Detector, FlowDetect, FlowInfo, Input, Scratch};

/// Builds a detector from rule text; panics on a rule the detector refuses.
pub fn detector(text: &str) -> Detector {
    detector_opts(text, &DetectOptions::default())
}

pub fn detector_opts(text: &str, opts: &DetectOptions) -> Detector {
    let vars = rules::Vars::suricata_default();
    let (set, diags) = rules::RuleSet::load_str(text, None, &vars, &Default::default());
    assert!(
        diags.iter().all(|d| !d.is_error()),
        "rule errors: {diags:?}"
    );
    let (det, diags) = Detector::build(&set.rules, opts, &vars);
    assert!(diags.is_empty(), "detector refused: {diags:?}");
    det
}

/// A TCP/UDP/ICMP packet over IPv4: a 40-byte fake header area then the payload.
pub struct Pkt {
    pub meta: wire::Packet,
    pub frame: Vec<u8>,
}

pub const HDR: usize = 40;

pub fn pkt(proto: u8, src: [u8; 4], sport: u16, dst: [u8; 4], dport: u16, payload: &[u8]) -> Pkt {
    let mut meta = wire::Packet {
        ip_version: 4,
        proto,
        sport,
        dport,
        ttl: 64,
        ..Default::default()
    };
    meta.src[..4].copy_from_slice(&src);
    meta.dst[..4].copy_from_slice(&dst);
    meta.l3_off = 0;
    meta.l4_off = 20;
    meta.payload_off = HDR as u32;
    meta.payload_len = payload.len() as u32;
    let mut frame = vec![0u8; HDR];
    frame.extend_from_slice(payload);
    Pkt { meta, frame }
}

pub fn tcp(payload: &[u8]) -> Pkt {
    let mut p = pkt(6, [10, 0, 0, 1], 1234, [10, 0, 0, 2], 80, payload);
    p.meta.tcp_flags = 0x18;
    p
}

pub fn flow(to_server: bool) -> Option<FlowInfo> {
    Some(FlowInfo {
        to_server,
        established: true,
        payload_in_stream: false,
        app_proto: app::AppProto::Unknown,
        counts: Default::default(),
    })
}

/// Runs one packet-only inspection and returns the alerting sids.
pub fn sids(det: &Detector, p: &Pkt) -> Vec<u32> {
    let mut s = det.scratch();
    sids_with(det, &mut s, None, p, flow(true))
}

pub fn sids_with(
    det: &Detector,
    s: &mut Scratch,
    fd: Option<&mut FlowDetect>,
    p: &Pkt,
    fi: Option<FlowInfo>,
) -> Vec<u32> {
    let mut out: Vec<Alert> = Vec::new();
    det.inspect(s, fd, &Input::packet(&p.meta, &p.frame, fi), &mut out);
    out.iter().map(|a| a.sid).collect()
}

/// True when the single rule `opts` (options only) matches `payload` over TCP.
pub fn hit(opts: &str, payload: &[u8]) -> bool {
    let det = detector(&format!("alert tcp any any -> any any ({opts} sid:1;)"));
    sids(&det, &tcp(payload)) == [1]
}

/// The alerts the transactions of `af` raise on a packet (UDP with `udp`, else TCP)
/// travelling `to_server`, sorted.
pub fn tx_sids(det: &Detector, af: &app::AppFlow, to_server: bool, udp: bool) -> Vec<u32> {
    tx_sids_at(det, af, to_server, udp, 0)
}

/// [`tx_sids`] on a packet stamped `secs` seconds since the epoch (each rule once per
/// transaction and call).
pub fn tx_sids_at(
    det: &Detector,
    af: &app::AppFlow,
    to_server: bool,
    udp: bool,
    secs: u64,
) -> Vec<u32> {
    let mut fd = FlowDetect::new();
    let mut s = det.scratch();
    let mut p = if udp {
        pkt(17, [10, 0, 0, 1], 1234, [10, 0, 0, 2], 80, b"")
    } else {
        tcp(b"")
    };
    if secs > 0 {
        p.meta.ts = wire::Timestamp::from_secs_nanos(secs, 0);
    }
    if !to_server {
        p.meta.src[3] = 2;
        p.meta.dst[3] = 1;
        p.meta.sport = 80;
        p.meta.dport = 1234;
    }
    let fi = FlowInfo {
        to_server,
        established: true,
        payload_in_stream: true,
        app_proto: af.app_proto(),
        counts: Default::default(),
    };
    let input = Input {
        app: Some(af),
        eof_open: false,
        txs: true,
        ..Input::packet(&p.meta, &p.frame, Some(fi))
    };
    let mut out = Vec::new();
    det.inspect(&mut s, Some(&mut fd), &input, &mut out);
    let mut v: Vec<u32> = out.iter().map(|a| a.sid).collect();
    v.sort_unstable();
    v
}
