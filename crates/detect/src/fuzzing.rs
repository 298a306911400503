//! The driver of the cargo-fuzz target `fuzz/fuzz_targets/rules.rs` and of the
//! corpus-replay test: hostile rule text through the whole path — parsing, the
//! detector's build (regex compilation, prefilter tables) and inspection of a packet.

use crate::{DetectOptions, Detector, FlowDetect, FlowInfo, Input};

/// The input up to its first NUL byte is rule text (lossy UTF-8), the rest the payload
/// of one established TCP packet to port 80 that the rules it loads inspect, with flow
/// state, twice (so flowbits set by the first pass are read by the second). Never
/// panics on any input.
pub fn drive(data: &[u8]) {
    let split = data.iter().position(|&b| b == 0).unwrap_or(data.len());
    let text = String::from_utf8_lossy(&data[..split]);
    let payload = data.get(split + 1..).unwrap_or_default();
    let vars = rules::Vars::suricata_default();
    let (set, _) = rules::RuleSet::load_str(&text, None, &vars, &Default::default());
    let (det, _) = Detector::build(&set.rules, &DetectOptions::default(), &vars);
    let mut meta = wire::Packet {
        ip_version: 4,
        proto: 6,
        sport: 1234,
        dport: 80,
        ttl: 64,
        tcp_flags: 0x18,
        l4_off: 20,
        payload_off: 40,
        payload_len: payload.len() as u32,
        ..Default::default()
    };
    meta.src[..4].copy_from_slice(&[10, 0, 0, 1]);
    meta.dst[..4].copy_from_slice(&[10, 0, 0, 2]);
    let mut frame = vec![0u8; 40];
    frame.extend_from_slice(payload);
    let flow = FlowInfo {
        to_server: true,
        established: true,
        payload_in_stream: false,
        app_proto: app::AppProto::Unknown,
        counts: Default::default(),
    };
    let mut scratch = det.scratch();
    let mut fd = FlowDetect::default();
    let mut alerts = Vec::new();
    for _ in 0..2 {
        let input = Input::packet(&meta, &frame, Some(flow));
        det.inspect(&mut scratch, Some(&mut fd), &input, &mut alerts);
    }
}
