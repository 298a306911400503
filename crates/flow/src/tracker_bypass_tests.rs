//! Local bypass (a `bypass` rule, the `bypass` exception policy): what the tracker
//! still does with a bypassed flow's packets (counts them) and what it no longer does
//! (TCP state, streams, the flush at the end), and the `bypassed` timeout.

use super::*;
use crate::tcp::flags::*;
use crate::tcp::TcpHeader;

const C: [u8; 4] = [172, 18, 38, 179];
const S: [u8; 4] = [172, 217, 170, 68];

fn pkt(to_server: bool, seq: u32, ack: u32, f: u8, payload: &[u8], ts: u64) -> PacketInfo<'_> {
    let key = if to_server {
        FlowKey::v4(C, 52316, S, 443, 6)
    } else {
        FlowKey::v4(S, 443, C, 52316, 6)
    };
    PacketInfo {
        key,
        ts_us: ts,
        len: 54 + payload.len() as u32,
        tcp: Some(TcpHeader {
            seq,
            ack,
            flags: f,
            window: 65535,
            tfo: false,
            wscale: None,
            ts: None,
        }),
        payload,
    }
}

fn counter(t: &FlowTracker, name: &str) -> u64 {
    t.counters()
        .find(|(n, _)| *n == name)
        .map(|(_, v)| v)
        .unwrap_or_else(|| panic!("{name} missing"))
}

/// A session with a request the server acknowledged; returns the flow's slot.
fn handshake_and_request(t: &mut FlowTracker) -> Slot {
    t.packet(&pkt(true, 100, 0, SYN, b"", 1_000_000)).unwrap();
    t.packet(&pkt(false, 500, 101, SYN | ACK, b"", 1_000_010))
        .unwrap();
    t.packet(&pkt(true, 101, 501, ACK, b"", 1_000_020)).unwrap();
    t.packet(&pkt(
        true,
        101,
        501,
        ACK | PSH,
        b"GET / HTTP/1.1\r\n\r\n",
        1_000_030,
    ))
    .unwrap();
    let u = t
        .packet(&pkt(false, 501, 119, ACK, b"", 1_000_040))
        .unwrap();
    assert!(
        !u.app.chunks.is_empty(),
        "the request reaches the app layer"
    );
    u.slot
}

#[test]
fn bypassed_flow_packets_are_counted_and_go_no_further() {
    let mut t = FlowTracker::new(Config::default());
    let slot = handshake_and_request(&mut t);
    t.set_bypassed(slot);
    // Data, its acknowledgement and the FIN handshake: counted, not tracked.
    let u = t
        .packet(&pkt(
            true,
            119,
            501,
            ACK | PSH,
            b"GET /2 HTTP/1.1\r\n\r\n",
            2_000_000,
        ))
        .unwrap();
    assert!(u.flow.locally_bypassed());
    assert!(u.app.chunks.is_empty() && u.raw.chunks.is_empty());
    let u = t
        .packet(&pkt(false, 501, 139, ACK, b"", 2_000_010))
        .unwrap();
    assert!(u.app.chunks.is_empty(), "no stream data after the bypass");
    t.packet(&pkt(true, 139, 501, FIN | ACK, b"", 2_000_020))
        .unwrap();
    let u = t
        .packet(&pkt(false, 501, 140, FIN | ACK, b"", 2_000_030))
        .unwrap();
    assert_eq!(u.flow.pkts, [5, 4]);
    assert_eq!(u.flow.tcp.state, TcpState::Established, "FINs not seen");
    assert_eq!(u.flow.tcp_flags, [SYN | ACK | PSH, SYN | ACK]);
    assert_eq!(counter(&t, "flow_bypassed.local_pkts"), 4);
    let req2 = "GET /2 HTTP/1.1\r\n\r\n".len() as u64;
    assert_eq!(counter(&t, "flow_bypassed.local_bytes"), 4 * 54 + req2);
    // At the end: not flushed, counted as bypassed rather than by its state.
    t.shutdown();
    t.drain_ended(|e| {
        assert!(e.flow.locally_bypassed());
        assert!(e.app.iter().all(|s| s.chunks.is_empty()));
    });
    assert_eq!(counter(&t, "flow.end.state.local_bypassed"), 1);
    assert_eq!(counter(&t, "flow.end.state.established"), 0);
    assert_eq!(counter(&t, "flow.end.tcp_state.established"), 1);
    assert_eq!(counter(&t, "tcp.pseudo"), 0);
}

#[test]
fn bypassed_flow_times_out_after_the_bypassed_timeout() {
    let mut tcp = Timeouts::TCP;
    tcp.bypassed = 20;
    let mut t = FlowTracker::new(Config {
        timeouts: [tcp, Timeouts::UDP, Timeouts::ICMP, Timeouts::DEFAULT],
        ..Config::default()
    });
    let slot = handshake_and_request(&mut t);
    t.set_bypassed(slot);
    // Established, it would live 600 s; bypassed, 20 s after its last packet.
    let sweep = |t: &mut FlowTracker, now| {
        for part in 0..crate::table::SWEEP_PARTS {
            t.sweep(now, part);
        }
    };
    sweep(&mut t, 20_000_000);
    assert!(!t.has_ended());
    sweep(&mut t, 21_500_000);
    assert!(t.has_ended());
    let mut n = 0;
    t.drain_ended(|e| {
        assert_eq!(e.reason, EndReason::Timeout);
        n += 1;
    });
    assert_eq!(n, 1);
    assert_eq!(counter(&t, "flow.end.state.local_bypassed"), 1);
}

#[test]
fn a_dropped_flow_is_not_locally_bypassed() {
    let f = Flow {
        bypassed: true,
        dropped: true,
        ..Flow::default()
    };
    assert!(!f.locally_bypassed());
    assert_eq!(Timeouts::TCP.get(config::BYPASSED, false), 100);
    assert_eq!(Timeouts::TCP.get(config::BYPASSED, true), 50);
}

#[test]
fn midstream_policies_pass_the_flow_and_only_bypass_bypasses_it() {
    // `stream.midstream-policy: bypass`: a local bypass with the flow action pass;
    // `pass-flow`: the action only (Suricata 7.0.10 on a session without its SYN).
    for (name, bypassed) in [("bypass", true), ("pass_flow", false)] {
        let mut t = FlowTracker::new(Config {
            midstream_bypass: true,
            midstream_policy_name: name,
            ..Config::default()
        });
        let f = *t.packet(&pkt(true, 1, 1, ACK | PSH, b"x", 1)).unwrap().flow;
        assert!(f.midstream_pass && f.bypassed, "{name}");
        assert_eq!(f.locally_bypassed(), bypassed, "{name}");
        t.packet(&pkt(false, 1, 2, ACK, b"", 2)).unwrap();
        let local = if bypassed { 1 } else { 0 };
        assert_eq!(counter(&t, "flow_bypassed.local_pkts"), local, "{name}");
        t.shutdown();
        t.drain_ended(|_| {});
        assert_eq!(
            counter(&t, "flow.end.state.local_bypassed"),
            local,
            "{name}"
        );
    }
}
