use super::*;
use crate::reasm::ReasmLimits;
use crate::table::Entry;
use crate::tcp::flags::*;
use crate::tcp::TcpHeader;

const C: [u8; 4] = [10, 16, 1, 11];
const S: [u8; 4] = [82, 165, 177, 154];

/// Raw inspection at every acknowledgement (no chunk threshold): the timing tests below
/// look at acknowledgement order; `raw_inspection_waits_for_a_chunk_or_a_trigger` at the
/// threshold.
fn cfg() -> Config {
    Config {
        max_flows: 1024,
        hash_size: 256,
        reassembly: ReasmLimits {
            raw_chunk: [0, 0],
            ..Default::default()
        },
        ..Default::default()
    }
}

/// A TCP packet from the client (`to_server`) or the server.
fn pkt(to_server: bool, seq: u32, ack: u32, f: u8, payload: &[u8], ts: u64) -> PacketInfo<'_> {
    let key = if to_server {
        FlowKey::v4(C, 54186, S, 80, 6)
    } else {
        FlowKey::v4(S, 80, C, 54186, 6)
    };
    PacketInfo {
        key,
        ts_us: ts,
        len: 40 + payload.len() as u32,
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

/// What one packet produced: (events, app bytes, raw bytes).
fn run(t: &mut FlowTracker, p: &PacketInfo<'_>) -> (Events, Vec<u8>, Vec<u8>) {
    let u = t.packet(p).expect("tracked");
    let cat = |s: &StreamData<'_>| {
        let mut v = Vec::new();
        for piece in s.pieces() {
            match piece {
                Piece::Data { bytes, .. } => v.extend_from_slice(bytes),
                Piece::Gap { len, .. } => v.extend(std::iter::repeat_n(b'_', len as usize)),
            }
        }
        v
    };
    (u.events, cat(&u.app), cat(&u.raw))
}

fn counter(t: &FlowTracker, name: &str) -> u64 {
    t.counters()
        .find(|(n, _)| *n == name)
        .map(|(_, v)| v)
        .unwrap()
}

#[test]
fn flow_entry_fits_in_three_cache_lines() {
    // Three cache lines and the two PAWS timestamps of the TCP session (`Half::last_ts`,
    // 8 bytes): the entry's first 192 bytes hold everything a packet of a session
    // without timestamps reads.
    let n = std::mem::size_of::<Entry<Flow>>();
    assert!(n <= 200, "Entry<Flow> is {n} bytes");
}

#[test]
fn handshake_and_ack_timing_of_alert_testmyids() {
    // The packets of the corpus case alert-testmyids (full handshake variant): the
    // server's response is raw-inspectable on the first server packet after the
    // client acknowledged it, and reaches the app layer on the client's ACK.
    let mut t = FlowTracker::new(cfg());
    let resp = b"HTTP/1.1 200 OK\r\n\r\nuid=0(root) gid=0(root)";
    let (e, _, _) = run(&mut t, &pkt(true, 0, 0, SYN, b"", 1));
    assert!(e.has(Events::NEW_FLOW) && e.has(Events::SESSION));
    run(&mut t, &pkt(false, 0, 1, SYN | ACK, b"", 2));
    let (e, _, _) = run(&mut t, &pkt(true, 1, 1, ACK, b"", 3));
    assert!(e.has(Events::ESTABLISHED));
    run(
        &mut t,
        &pkt(true, 1, 1, ACK | PSH, b"GET / HTTP/1.0\r\n\r\n", 4),
    );
    let (_, app, raw) = run(&mut t, &pkt(false, 1, 19, ACK, b"", 5));
    assert_eq!(
        app, b"GET / HTTP/1.0\r\n\r\n",
        "request to the app layer on the server's ACK"
    );
    assert!(raw.is_empty());
    let (_, app, raw) = run(&mut t, &pkt(false, 1, 19, ACK | PSH, resp, 6));
    assert!(app.is_empty() && raw.is_empty(), "nothing acked yet");
    let (_, app, raw) = run(&mut t, &pkt(true, 19, 1 + resp.len() as u32, ACK, b"", 7));
    assert_eq!(app, resp, "response to the app layer on the client's ACK");
    assert_eq!(
        raw, b"GET / HTTP/1.0\r\n\r\n",
        "request raw-inspected on a client packet"
    );
    run(
        &mut t,
        &pkt(true, 19, 1 + resp.len() as u32, ACK | FIN, b"", 8),
    );
    let (_, _, raw) = run(
        &mut t,
        &pkt(false, 1 + resp.len() as u32, 20, ACK | FIN, b"", 9),
    );
    assert_eq!(
        raw, resp,
        "response raw-inspected on the next server packet"
    );
    let (e, _, _) = run(&mut t, &pkt(true, 20, 2 + resp.len() as u32, ACK, b"", 10));
    assert!(e.has(Events::CLOSED));
    assert_eq!(counter(&t, "tcp.sessions"), 1);
    t.shutdown();
    let mut n = 0;
    t.drain_ended(|e| {
        n += 1;
        assert!(e.app.iter().all(|s| s.is_empty()) && e.raw.iter().all(|s| s.is_empty()));
    });
    assert_eq!(n, 1);
    assert_eq!(counter(&t, "flow.end.tcp_state.closed"), 1);
    assert_eq!(counter(&t, "tcp.pseudo"), 0);
}

#[test]
fn midstream_pickup_on_syn_ack_like_alert_testmyids_midstream5() {
    let mut t = FlowTracker::new(Config {
        tcp: crate::tcp::TcpConfig {
            midstream: true,
            ..Default::default()
        },
        ..cfg()
    });
    let resp = [b'x'; 259];
    run(&mut t, &pkt(false, 0, 1, SYN | ACK, b"", 1));
    run(&mut t, &pkt(true, 1, 1, ACK, b"", 2));
    run(&mut t, &pkt(true, 1, 1, ACK | PSH, &[b'g'; 81], 3));
    run(&mut t, &pkt(false, 1, 82, ACK, b"", 4));
    let (_, _, raw5) = run(&mut t, &pkt(false, 1, 82, ACK | PSH, &resp, 5));
    assert!(raw5.is_empty());
    let (_, app6, raw6) = run(&mut t, &pkt(true, 82, 260, ACK, b"", 6));
    assert_eq!(app6.len(), 259);
    assert_eq!(
        raw6.len(),
        81,
        "client data acked by packet 4, raw on the next client packet"
    );
    let (_, _, raw7) = run(&mut t, &pkt(true, 82, 260, ACK | FIN, b"", 7));
    assert!(raw7.is_empty());
    let (_, _, raw8) = run(&mut t, &pkt(false, 260, 83, ACK | FIN, b"", 8));
    assert_eq!(
        raw8.len(),
        259,
        "the alert of the corpus case lands on packet 8"
    );
    assert_eq!(counter(&t, "tcp.midstream_pickups"), 1);
}

#[test]
fn unacked_data_is_flushed_at_end_like_alert_testmyids_async() {
    let mut t = FlowTracker::new(Config {
        tcp: crate::tcp::TcpConfig {
            midstream: true,
            ..Default::default()
        },
        ..cfg()
    });
    run(&mut t, &pkt(false, 0, 1, SYN | ACK, b"", 1));
    run(&mut t, &pkt(false, 1, 82, ACK, b"", 2));
    let (_, app, raw) = run(&mut t, &pkt(false, 1, 82, ACK | PSH, b"uid=0(root)", 3));
    assert!(app.is_empty() && raw.is_empty());
    run(&mut t, &pkt(false, 12, 83, ACK | FIN, b"", 4));
    t.shutdown();
    let mut flushed = Vec::new();
    t.drain_ended(|e| {
        for s in e.raw.iter() {
            for p in s.pieces() {
                if let Piece::Data { bytes, .. } = p {
                    flushed.extend_from_slice(bytes);
                }
            }
        }
    });
    assert_eq!(flushed, b"uid=0(root)");
    assert_eq!(counter(&t, "tcp.pseudo"), 1);
}

#[test]
fn a_first_syn_ack_names_its_sender_the_server_only_when_picked_up() {
    // Suricata 7 reverses a flow whose first packet is a SYN/ACK only when it picks the
    // session up from it (`stream.midstream` or `async-oneside`); otherwise the first
    // packet's sender stays the client, and its SYN/ACK goes to the server.
    let first_dir = |tcp: crate::tcp::TcpConfig| {
        let mut t = FlowTracker::new(Config { tcp, ..cfg() });
        let first = t.packet(&pkt(false, 0, 1, SYN | ACK, b"", 1)).unwrap().dir;
        let second = t.packet(&pkt(true, 1, 1, ACK, b"", 2)).unwrap().dir;
        (first, second)
    };
    let (off, on, oneside) = (
        first_dir(crate::tcp::TcpConfig::default()),
        first_dir(crate::tcp::TcpConfig {
            midstream: true,
            ..Default::default()
        }),
        first_dir(crate::tcp::TcpConfig {
            async_oneside: true,
            ..Default::default()
        }),
    );
    assert_eq!(off, (Direction::ToServer, Direction::ToClient));
    assert_eq!(on, (Direction::ToClient, Direction::ToServer));
    assert_eq!(oneside, on);
}

#[test]
fn no_session_without_syn_when_midstream_is_off() {
    let mut t = FlowTracker::new(cfg());
    let (e, app, raw) = run(&mut t, &pkt(true, 1, 1, ACK | PSH, b"MATCH?", 1));
    assert!(e.has(Events::NEW_FLOW) && !e.has(Events::SESSION));
    assert!(app.is_empty() && raw.is_empty());
    run(&mut t, &pkt(false, 1, 0, RST, b"", 2));
    assert_eq!(counter(&t, "tcp.sessions"), 0);
    assert_eq!(counter(&t, "flow.tcp"), 1);
}

#[test]
fn midstream_policy_bypass_marks_flows_without_syn() {
    let mut t = FlowTracker::new(Config {
        midstream_bypass: true,
        ..cfg()
    });
    run(&mut t, &pkt(true, 1, 1, ACK | PSH, b"MATCH?", 1));
    let info = pkt(true, 7, 1, ACK, b"", 2);
    let u = t.packet(&info).unwrap();
    assert!(u.flow.bypassed && !u.flow.dropped);
    // A handshake is not bypassed.
    let mut t = FlowTracker::new(Config {
        midstream_bypass: true,
        ..cfg()
    });
    assert!(
        !t.packet(&pkt(true, 100, 0, SYN, b"", 1))
            .unwrap()
            .flow
            .bypassed
    );
}

#[test]
fn midstream_policy_applies_to_picked_up_sessions_and_inline_drop() {
    // Pick-up on: bypass/pass-flow bypass a session picked up midstream.
    let mut base = cfg();
    base.tcp.midstream = true;
    let mut t = FlowTracker::new(Config {
        midstream_bypass: true,
        ..base.clone()
    });
    assert!(
        t.packet(&pkt(true, 1, 1, ACK | PSH, b"x", 1))
            .unwrap()
            .flow
            .bypassed
    );
    assert_eq!(counter(&t, "tcp.midstream_exception_policy.bypass"), 1);
    // Pick-up on, drop policy: no effect (Suricata degrades it to ignore).
    let mut t = FlowTracker::new(Config {
        midstream_drop: true,
        ..base
    });
    assert!(
        !t.packet(&pkt(true, 1, 1, ACK | PSH, b"x", 1))
            .unwrap()
            .flow
            .bypassed
    );
    // Pick-up off, drop policy: the flow is stopped, and marked dropped (inline, its
    // packets are not forwarded); the policy applies once, on the first packet.
    let mut t = FlowTracker::new(Config {
        midstream_drop: true,
        midstream_policy_name: "drop_flow",
        ..cfg()
    });
    let u = t.packet(&pkt(true, 1, 1, ACK | PSH, b"x", 1)).unwrap();
    assert!(u.flow.bypassed && u.flow.dropped);
    assert!(u.events.has(Events::MIDSTREAM_POLICY));
    let u = t.packet(&pkt(false, 1, 2, ACK, b"", 2)).unwrap();
    assert!(u.flow.bypassed && u.flow.dropped);
    assert!(!u.events.has(Events::MIDSTREAM_POLICY));
    assert_eq!(counter(&t, "tcp.midstream_exception_policy.drop_flow"), 1);
}

#[test]
fn session_memcap_refuses_sessions_and_frees_on_end() {
    let mut t = FlowTracker::new(Config {
        ssn_memcap: SESSION_BYTES,
        ..cfg()
    });
    let u = t.packet(&pkt(true, 100, 0, SYN, b"", 1)).unwrap();
    assert!(u.events.has(Events::SESSION) && !u.events.has(Events::SSN_MEMCAP));
    assert_eq!(t.session_memuse(), SESSION_BYTES);
    // A second connection finds no session memory left.
    let other = PacketInfo {
        key: FlowKey::v4(C, 54187, S, 80, 6),
        ..pkt(true, 500, 0, SYN, b"", 2)
    };
    let u = t.packet(&other).unwrap();
    assert!(u.events.has(Events::SSN_MEMCAP) && !u.events.has(Events::SESSION));
    assert_eq!(u.flow.tcp.state, TcpState::None);
    assert_eq!(counter(&t, "tcp.ssn_memcap_drop"), 1);
    t.shutdown();
    t.drain_ended(|_| {});
    assert_eq!(t.session_memuse(), 0);
}

#[test]
fn simulated_conditions_apply_to_the_next_packet_only() {
    let mut t = FlowTracker::new(cfg());
    t.simulate(Simulated {
        flow_memcap: true,
        ..Simulated::default()
    });
    assert!(t.packet(&pkt(true, 100, 0, SYN, b"", 1)).is_none());
    assert_eq!(counter(&t, "osprey.flow.table_full"), 1);
    run(&mut t, &pkt(true, 100, 0, SYN, b"", 1));
    run(&mut t, &pkt(false, 900, 101, SYN | ACK, b"", 2));
    run(&mut t, &pkt(true, 101, 901, ACK, b"", 3));
    t.simulate(Simulated {
        reassembly_memcap: true,
        ..Simulated::default()
    });
    let u = t
        .packet(&pkt(true, 101, 901, ACK | PSH, b"GET", 4))
        .unwrap();
    assert!(u.events.has(Events::REASSEMBLY_MEMCAP));
    assert_eq!(counter(&t, "tcp.segment_memcap_drop"), 1);
    let u = t
        .packet(&pkt(true, 101, 901, ACK | PSH, b"GET", 5))
        .unwrap();
    assert!(!u.events.has(Events::REASSEMBLY_MEMCAP));
    t.simulate(Simulated {
        ssn_memcap: true,
        ..Simulated::default()
    });
    let other = PacketInfo {
        key: FlowKey::v4(C, 54187, S, 80, 6),
        ..pkt(true, 500, 0, SYN, b"", 6)
    };
    assert!(t.packet(&other).unwrap().events.has(Events::SSN_MEMCAP));
}

#[test]
fn inline_mode_hands_in_order_bytes_at_arrival() {
    let mut t = FlowTracker::new(Config {
        inline: true,
        ..cfg()
    });
    run(&mut t, &pkt(true, 100, 0, SYN, b"", 1));
    run(&mut t, &pkt(false, 500, 101, SYN | ACK, b"", 2));
    run(&mut t, &pkt(true, 101, 501, ACK, b"", 3));
    // Out of order: held until the hole is filled, then both at once.
    let (_, app, raw) = run(&mut t, &pkt(true, 106, 501, ACK, b"world", 4));
    assert!(app.is_empty() && raw.is_empty());
    let (_, app, raw) = run(&mut t, &pkt(true, 101, 501, ACK, b"hello", 5));
    assert_eq!(app, b"helloworld");
    assert_eq!(raw, b"helloworld");
    // The ACK hands nothing more.
    let (_, app, raw) = run(&mut t, &pkt(false, 501, 111, ACK, b"", 6));
    assert!(app.is_empty() && raw.is_empty());
}

#[test]
fn inline_mode_rewrites_other_data_over_unacknowledged_bytes() {
    let mut t = FlowTracker::new(Config {
        inline: true,
        ..cfg()
    });
    run(&mut t, &pkt(true, 100, 0, SYN, b"", 1));
    run(&mut t, &pkt(false, 500, 101, SYN | ACK, b"", 2));
    run(&mut t, &pkt(true, 101, 501, ACK, b"", 3));
    run(&mut t, &pkt(true, 101, 501, ACK, b"hello", 4));
    run(&mut t, &pkt(true, 106, 501, ACK, b"world", 5));
    // A retransmission with other bytes before the server's ACK: the packet carries
    // the first data (Suricata's inline normalization), the event is raised.
    let p = pkt(true, 101, 501, ACK, b"jello", 6);
    let u = t.packet(&p).unwrap();
    assert_eq!(u.rewritten, Some(&b"hello"[..]));
    assert!(u.events.has(Events::REWRITTEN) && !u.events.has(Events::OVERLAP_DIFF));
    assert!(u
        .stream_events
        .has(wire::StreamEvent::ReassemblyOverlapDifferentData));
    // The same bytes again: nothing rewritten.
    let p = pkt(true, 106, 501, ACK, b"world", 7);
    assert_eq!(t.packet(&p).unwrap().rewritten, None);
    // Once acknowledged, the bytes are gone: a later copy is left alone.
    run(&mut t, &pkt(false, 501, 111, ACK, b"", 8));
    run(&mut t, &pkt(true, 111, 501, ACK, b"!", 9));
    let p = pkt(true, 101, 501, ACK, b"jello", 10);
    assert_eq!(t.packet(&p).unwrap().rewritten, None);
    // IDS mode never rewrites.
    let mut t = FlowTracker::new(cfg());
    run(&mut t, &pkt(true, 100, 0, SYN, b"", 1));
    run(&mut t, &pkt(false, 500, 101, SYN | ACK, b"", 2));
    run(&mut t, &pkt(true, 101, 501, ACK, b"", 3));
    run(&mut t, &pkt(true, 101, 501, ACK, b"hello", 4));
    let p = pkt(true, 101, 501, ACK, b"jello", 5);
    assert_eq!(t.packet(&p).unwrap().rewritten, None);
}

#[test]
fn out_of_order_and_gap_are_reported() {
    let mut t = FlowTracker::new(cfg());
    run(&mut t, &pkt(true, 100, 0, SYN, b"", 1));
    run(&mut t, &pkt(false, 500, 101, SYN | ACK, b"", 2));
    run(&mut t, &pkt(true, 101, 501, ACK, b"", 3));
    // Second segment first, then the first: in order for the consumer.
    run(&mut t, &pkt(true, 106, 501, ACK, b"world", 4));
    run(&mut t, &pkt(true, 101, 501, ACK, b"hello", 5));
    let (_, app, _) = run(&mut t, &pkt(false, 501, 111, ACK, b"", 6));
    assert_eq!(app, b"helloworld");
    // Retransmission of consumed bytes, up to what the server acknowledged.
    let (e, _, _) = run(&mut t, &pkt(true, 106, 501, ACK, b"world", 7));
    assert!(e.has(Events::RETRANSMISSION));
    // Data that ends before what the server acknowledged is refused, as Suricata
    // refuses it (est_pkt_before_last_ack): it reaches no stream.
    let (e, _, _) = run(&mut t, &pkt(true, 101, 501, ACK, b"hello", 8));
    assert!(!e.has(Events::RETRANSMISSION));
    // A lost segment the server acknowledges: a gap.
    run(&mut t, &pkt(true, 116, 501, ACK, b"after", 9));
    let (e, app, _) = run(&mut t, &pkt(false, 501, 121, ACK, b"", 10));
    assert!(e.has(Events::GAP));
    assert_eq!(app, b"_____after");
    assert_eq!(counter(&t, "tcp.reassembly_gap"), 1);
    // Overlap with held, unacknowledged data.
    run(&mut t, &pkt(true, 121, 501, ACK, b"abcdef", 11));
    let (e, _, _) = run(&mut t, &pkt(true, 124, 501, ACK, b"dXf", 12));
    assert!(e.has(Events::OVERLAP) && e.has(Events::OVERLAP_DIFF));
}

#[test]
fn syn_on_closed_session_reuses_the_tuple() {
    let mut t = FlowTracker::new(cfg());
    run(&mut t, &pkt(true, 100, 0, SYN, b"", 1));
    run(&mut t, &pkt(false, 500, 101, SYN | ACK, b"", 2));
    run(&mut t, &pkt(true, 101, 501, ACK, b"", 3));
    let (e, _, _) = run(&mut t, &pkt(true, 101, 501, RST, b"", 4));
    assert!(e.has(Events::CLOSED));
    let (e, _, _) = run(&mut t, &pkt(true, 7000, 0, SYN, b"", 5));
    assert!(e.has(Events::REUSED) && e.has(Events::NEW_FLOW) && e.has(Events::SESSION));
    assert_eq!(counter(&t, "flow.tcp_reuse"), 1);
    assert_eq!(counter(&t, "tcp.sessions"), 2);
    let mut ended = 0;
    t.drain_ended(|_| ended += 1);
    assert_eq!(ended, 1);
}

#[test]
fn udp_flow_states_and_timeouts() {
    let mut t = FlowTracker::new(Config {
        hash_size: 1,
        ..cfg()
    });
    let a = FlowKey::v4([1, 1, 1, 1], 5353, [2, 2, 2, 2], 53, 17);
    let p = |key, ts| PacketInfo {
        key,
        ts_us: ts,
        len: 60,
        tcp: None,
        payload: b"q",
    };
    let u = t.packet(&p(a, 0)).unwrap();
    assert!(u.events.has(Events::NEW_FLOW) && u.dir == Direction::ToServer);
    let u = t.packet(&p(a.reversed(), 10)).unwrap();
    assert!(u.events.has(Events::ESTABLISHED) && u.dir == Direction::ToClient);
    // An established UDP flow times out after 300 s. Another flow's packets in the
    // same bucket leave it to the sweep, which ends it once its part comes.
    let b = FlowKey::v4([3, 3, 3, 3], 1, [4, 4, 4, 4], 2, 17);
    t.packet(&p(b, 299_000_000)).unwrap();
    t.packet(&p(b, 301_000_011)).unwrap();
    assert!(!t.has_ended());
    for part in 0..crate::table::SWEEP_PARTS {
        t.sweep(299_000_000, part);
    }
    assert!(!t.has_ended());
    for part in 0..crate::table::SWEEP_PARTS {
        t.sweep(301_000_011, part);
    }
    assert!(t.has_ended());
    t.drain_ended(|e| assert_eq!(e.flow.state, FlowState::Established));
    assert_eq!(counter(&t, "flow.udp"), 2);
    assert_eq!(counter(&t, "flow.end.state.established"), 1);
    assert_eq!(t.active_flows(), 1);
}

#[test]
fn data_before_ack_is_released_on_the_data_packet_when_ack_came_first() {
    // Capture order can show the ACK before the data it acknowledges.
    let mut t = FlowTracker::new(cfg());
    run(&mut t, &pkt(true, 0, 0, SYN, b"", 1));
    run(&mut t, &pkt(false, 0, 1, SYN | ACK, b"", 2));
    run(&mut t, &pkt(true, 1, 1, ACK, b"", 3));
    run(&mut t, &pkt(false, 1, 5, ACK, b"", 4));
    let (_, _, raw) = run(&mut t, &pkt(true, 1, 1, ACK, b"abcd", 5));
    assert_eq!(raw, b"abcd");
    assert_eq!(counter(&t, "tcp.ack_unseen_data"), 1);
}

#[test]
fn vlan_tracking_off_joins_directions_with_different_tags() {
    for (tracking, flows) in [(true, 2), (false, 1)] {
        let mut t = FlowTracker::new(Config {
            vlan_tracking: tracking,
            ..cfg()
        });
        let mut syn = pkt(true, 1, 0, SYN, b"", 1);
        syn.key.vlan = [3136, 0, 0];
        run(&mut t, &syn);
        let synack = pkt(false, 9, 2, SYN | ACK, b"", 2);
        let (ev, _, _) = run(&mut t, &synack);
        assert_eq!(t.active_flows(), flows);
        assert_eq!(ev.has(Events::NEW_FLOW), tracking);
    }
}

#[test]
fn fast_open_syn_data_starts_after_the_syn() {
    // Inline: the SYN's data reaches the app layer on the SYN, first byte included
    // (tcp-fastopen-02).
    let mut t = FlowTracker::new(Config {
        inline: true,
        ..cfg()
    });
    let mut syn = pkt(true, 100, 0, SYN, b"GET /", 1);
    syn.tcp.as_mut().unwrap().tfo = true;
    let u = t.packet(&syn).unwrap();
    assert!(u.events.has(Events::TFO_DATA));
    let v: Vec<_> = u.app.pieces().collect();
    assert_eq!(
        v,
        vec![Piece::Data {
            offset: 0,
            bytes: b"GET /"
        }]
    );
}

#[test]
fn raw_inspection_waits_for_a_chunk_or_a_trigger() {
    // Suricata's IDS mode (the IRC flow of sv-ether.pcap): acknowledged bytes are
    // raw-inspected once a chunk (2,560 by default) is there, when an app-layer message
    // of that direction ended, or once the client closes; else at the flow's end.
    let mut t = FlowTracker::new(Config {
        max_flows: 1024,
        hash_size: 256,
        ..Default::default()
    });
    run(&mut t, &pkt(true, 0, 0, SYN, b"", 1));
    run(&mut t, &pkt(false, 0, 1, SYN | ACK, b"", 2));
    run(&mut t, &pkt(true, 1, 1, ACK, b"", 3));
    run(&mut t, &pkt(true, 1, 1, ACK | PSH, b"USER x 0 0 :x\r\n", 4));
    run(&mut t, &pkt(false, 1, 16, ACK, b"", 5));
    let u = t.packet(&pkt(true, 16, 1, ACK, b"", 6)).expect("tracked");
    assert_eq!(
        u.raw.data_len(),
        0,
        "15 acknowledged bytes: below the chunk"
    );
    // An app-layer message of the direction ended: due at its next packet.
    let slot = u.slot;
    t.trigger_raw(slot, Direction::ToServer);
    let (_, _, raw) = run(&mut t, &pkt(true, 16, 1, ACK, b"", 7));
    assert_eq!(raw, b"USER x 0 0 :x\r\n");
    // A whole chunk acknowledged: due without a trigger.
    let big = vec![b'a'; 2560];
    run(&mut t, &pkt(true, 16, 1, ACK, &big, 8));
    run(&mut t, &pkt(false, 1, 16 + 2560, ACK, b"", 9));
    let (_, _, raw) = run(&mut t, &pkt(true, 2576, 1, ACK, b"", 10));
    assert_eq!(raw.len(), 2560);
    // The client's FIN: small data is due at once.
    run(&mut t, &pkt(true, 2576, 1, ACK | PSH, b"QUIT\r\n", 11));
    run(&mut t, &pkt(false, 1, 2582, ACK, b"", 12));
    let (_, _, raw) = run(&mut t, &pkt(true, 2582, 1, FIN | ACK, b"", 13));
    assert_eq!(raw, b"QUIT\r\n");
}

#[test]
fn accepted_rst_hands_its_own_direction_to_the_app_layer() {
    // sv-ether.pcap frames 8399-8408: the server answers, closes with FIN and resets
    // before the client acknowledged the answer. Suricata parses the answer on the
    // RST (an accepted RST updates the packet's own direction) and alerts there.
    let mut t = FlowTracker::new(cfg());
    let req = b"POST / HTTP/1.1\r\nContent-Length: 0\r\n\r\n";
    let resp = b"HTTP/1.0 501 Unsupported\r\nServer: SimpleHTTP/0.6\r\n\r\n";
    let rl = req.len() as u32;
    let sl = resp.len() as u32;
    run(&mut t, &pkt(true, 0, 0, SYN, b"", 1));
    run(&mut t, &pkt(false, 0, 1, SYN | ACK, b"", 2));
    run(&mut t, &pkt(true, 1, 1, ACK, b"", 3));
    run(&mut t, &pkt(true, 1, 1, ACK | PSH, req, 4));
    let (_, app, _) = run(&mut t, &pkt(false, 1, 1 + rl, ACK, b"", 5));
    assert_eq!(app, req);
    let (_, app, _) = run(&mut t, &pkt(false, 1, 1 + rl, ACK | PSH | FIN, resp, 6));
    assert!(app.is_empty(), "the answer is not acknowledged");
    let (e, app, raw) = run(&mut t, &pkt(false, 2 + sl, 1 + rl, ACK | RST, b"", 7));
    assert!(e.has(Events::CLOSED));
    assert_eq!(app, resp, "the answer reaches the app layer on the RST");
    assert_eq!(raw, resp, "and is raw-inspected there");
}

#[test]
fn replayed_session_on_a_closed_session_is_inspected_per_packet() {
    // sv-ether 10.16.1.11:54186 (a testmyids capture replayed several times): after the
    // FIN exchange closed the session, a SYN with the session's own ISN is a
    // retransmission, not a reuse; the replayed handshake and data then come on the
    // closed session, whose stream takes no data (Suricata inspects such packets on
    // their own payload, hence AFTER_CLOSE).
    let mut t = FlowTracker::new(cfg());
    let resp = b"uid=0(root)";
    let n = resp.len() as u32;
    let session = |t: &mut FlowTracker, ts: u64| {
        vec![
            run(t, &pkt(true, 100, 0, SYN, b"", ts)),
            run(t, &pkt(false, 500, 101, SYN | ACK, b"", ts + 1)),
            run(t, &pkt(true, 101, 501, ACK, b"", ts + 2)),
            run(t, &pkt(false, 501, 101, ACK | PSH, resp, ts + 3)),
            run(t, &pkt(true, 101, 501 + n, ACK | FIN, b"", ts + 4)),
            run(t, &pkt(false, 501 + n, 102, ACK | FIN, b"", ts + 5)),
            run(t, &pkt(true, 102, 502 + n, ACK, b"", ts + 6)),
        ]
    };
    let first = session(&mut t, 1);
    assert!(first.iter().all(|(e, _, _)| !e.has(Events::AFTER_CLOSE)));
    assert!(first[6].0.has(Events::CLOSED));
    // The server's data reached the raw stream once the client acknowledged it.
    assert!(first.iter().any(|(_, _, raw)| raw.as_slice() == resp));
    let again = session(&mut t, 1);
    assert!(!again[0].0.has(Events::REUSED) && !again[0].0.has(Events::NEW_FLOW));
    for (e, app, raw) in &again {
        assert!(e.has(Events::AFTER_CLOSE));
        assert!(app.is_empty() && raw.is_empty());
    }
    assert_eq!(counter(&t, "flow.tcp_reuse"), 0);
    assert_eq!(counter(&t, "tcp.sessions"), 1);
}

#[test]
fn ended_flow_carries_flags_per_direction_reason_and_last_packet_time() {
    let mut t = FlowTracker::new(cfg());
    // A packet before any session (an ACK midstream, pick-up off): no flags kept;
    // the SYN then starts a flow of its own.
    run(&mut t, &pkt(true, 0, 0, ACK, b"", 1));
    run(&mut t, &pkt(true, 0, 0, SYN, b"", 2));
    run(&mut t, &pkt(false, 0, 1, SYN | ACK | ECE, b"", 3));
    run(&mut t, &pkt(true, 1, 1, ACK | PSH, b"x", 4));
    run(&mut t, &pkt(false, 1, 2, ACK | FIN, b"", 5));
    assert_eq!(t.now_us(), 5);
    t.shutdown();
    let mut seen = Vec::new();
    t.drain_ended(|e| seen.push((e.last_us, e.flow.tcp_flags, e.reason, e.emergency)));
    seen.sort_unstable_by_key(|s| s.0);
    assert_eq!(
        seen,
        [
            (1, [0, 0], EndReason::Shutdown, false),
            (
                5,
                [SYN | ACK | PSH, SYN | ACK | ECE | FIN],
                EndReason::Shutdown,
                false
            )
        ]
    );
    // A flow ended by its timeout afterwards is not a shutdown.
    run(&mut t, &pkt(true, 0, 0, SYN, b"", 10));
    t.sweep(10 + 3_600_000_000, 0);
    for part in 1..64 {
        t.sweep(10 + 3_600_000_000, part);
    }
    // The time the flow ended at: the sweep's.
    assert_eq!(t.now_us(), 10 + 3_600_000_000);
    let mut reasons = Vec::new();
    t.drain_ended(|e| reasons.push((e.reason, e.last_us)));
    assert_eq!(reasons, [(EndReason::Timeout, 10)]);
}

#[test]
fn a_closed_session_holds_no_stream_memory_and_the_budget_is_shared() {
    // The alert-testmyids conversation: once both consumers took each direction and
    // the session closed, its streams hold nothing though the flow lives on.
    let caps = crate::SharedCaps::new();
    let c = Config {
        shared: caps.clone(),
        ..cfg()
    };
    let mut t = FlowTracker::new(c.clone());
    let other = FlowTracker::new(c);
    let resp = b"HTTP/1.1 200 OK\r\n\r\nuid=0(root) gid=0(root)";
    let n = resp.len() as u32;
    run(&mut t, &pkt(true, 0, 0, SYN, b"", 1));
    run(&mut t, &pkt(false, 0, 1, SYN | ACK, b"", 2));
    run(&mut t, &pkt(true, 1, 1, ACK, b"", 3));
    run(
        &mut t,
        &pkt(true, 1, 1, ACK | PSH, b"GET / HTTP/1.0\r\n\r\n", 4),
    );
    assert!(t.reassembly_memuse() >= 18);
    assert_eq!(caps.reassembly.used(), t.reassembly_memuse());
    assert_eq!(caps.sessions.used(), SESSION_BYTES);
    run(&mut t, &pkt(false, 1, 19, ACK, b"", 5));
    run(&mut t, &pkt(false, 1, 19, ACK | PSH, resp, 6));
    run(&mut t, &pkt(true, 19, 1 + n, ACK, b"", 7));
    run(&mut t, &pkt(true, 19, 1 + n, ACK | FIN, b"", 8));
    run(&mut t, &pkt(false, 1 + n, 20, ACK | FIN, b"", 9));
    let (e, _, _) = run(&mut t, &pkt(true, 20, 2 + n, ACK, b"", 10));
    assert!(e.has(Events::CLOSED));
    assert_eq!(t.active_flows(), 1);
    assert_eq!(t.reassembly_memuse(), 0, "nothing left to inspect");
    assert_eq!(caps.reassembly.used(), 0);
    assert!(counter(&t, "memcap_pressure_max") <= 1);
    assert!(counter(&t, "flow.memuse") > 0);
    assert_eq!(counter(&t, "tcp.memuse"), SESSION_BYTES as u64);
    // Both trackers count against the same flow budget.
    assert_eq!(caps.flows.used(), 1);
    drop(other);
    // A flow ended by a timeout gives its share back at once ...
    t.sweep(1_000_000_000, 0);
    for part in 0..crate::table::SWEEP_PARTS {
        t.sweep(1_000_000_000, part);
    }
    t.drain_ended(|_| {});
    assert_eq!(caps.sessions.used(), 0);
    assert_eq!(caps.flows.used(), 0);
    // ... one ended by the end of the input keeps it while the run lasts, so that the
    // workers still reading get no more than one worker would.
    run(&mut t, &pkt(true, 0, 0, SYN, b"", 1_000_000_001));
    assert_eq!(caps.flows.used(), 1);
    t.shutdown();
    t.drain_ended(|_| {});
    assert_eq!(caps.flows.used(), 1);
    assert_eq!(caps.sessions.used(), SESSION_BYTES);
    drop(t);
    assert_eq!(caps.flows.used(), 1);
}

#[test]
fn the_reassembly_cap_is_one_for_every_tracker() {
    // Two trackers of one run share `stream.reassembly.memcap`: what the first holds
    // is not available to the second.
    let caps = crate::SharedCaps::new();
    let c = Config {
        shared: caps.clone(),
        reassembly_memcap: 3000,
        ..cfg()
    };
    let mut a = FlowTracker::new(c.clone());
    let mut b = FlowTracker::new(c);
    let data = [b'x'; 1400];
    for t in [&mut a, &mut b] {
        run(t, &pkt(true, 0, 0, SYN, b"", 1));
        run(t, &pkt(false, 0, 1, SYN | ACK, b"", 2));
        run(t, &pkt(true, 1, 1, ACK, b"", 3));
    }
    run(&mut a, &pkt(true, 1, 1, ACK | PSH, &data, 4));
    run(&mut a, &pkt(true, 1401, 1, ACK | PSH, &data, 5));
    assert_eq!(counter(&a, "tcp.segment_memcap_drop"), 0);
    let (e, _, _) = run(&mut b, &pkt(true, 1, 1, ACK | PSH, &data, 6));
    assert!(e.has(Events::REASSEMBLY_MEMCAP));
    assert_eq!(counter(&b, "tcp.segment_memcap_drop"), 1);
    assert!(caps.reassembly.used() <= 3000);
    assert_eq!(
        counter(&b, "memcap_pressure"),
        counter(&a, "memcap_pressure")
    );
    assert!(counter(&a, "memcap_pressure") >= 90);
}

#[test]
fn inline_raw_waits_past_the_pick_up_packet_and_runs_on_data() {
    // Suricata's inline mode (tests/parity/cases/tcp-midstream-ips-drop): the app layer
    // gets a picked-up packet's data at once, raw inspection at the direction's next
    // packet with data (an ACK without data takes none).
    let mut t = FlowTracker::new(Config {
        inline: true,
        tcp: crate::tcp::TcpConfig {
            midstream: true,
            ..Default::default()
        },
        ..cfg()
    });
    let (_, app, raw) = run(&mut t, &pkt(true, 100, 500, ACK | PSH, b"GET /a", 1));
    assert_eq!((app.as_slice(), raw.as_slice()), (&b"GET /a"[..], &b""[..]));
    let (_, _, raw) = run(&mut t, &pkt(true, 106, 500, ACK, b"", 2));
    assert!(raw.is_empty());
    let (_, app, raw) = run(&mut t, &pkt(true, 106, 500, ACK | PSH, b"GET /b", 3));
    assert_eq!(app, b"GET /b");
    assert_eq!(raw, b"GET /aGET /b");
}

#[test]
fn async_oneside_synack_pick_up_still_meets_the_midstream_policy() {
    // `stream.async-oneside` without `midstream`: a first SYN/ACK starts a session
    // (tests/parity/cases/tcp-async-synack-pickup), but the midstream policy still
    // applies to it: drop-flow inline stops the flow (exception-policy-midstream-02).
    let mut base = cfg();
    base.tcp.async_oneside = true;
    let mut t = FlowTracker::new(Config {
        midstream_drop: true,
        midstream_policy_name: "drop_flow",
        ..base.clone()
    });
    let u = t.packet(&pkt(false, 500, 101, SYN | ACK, b"", 1)).unwrap();
    assert!(u.flow.dropped && u.events.has(Events::MIDSTREAM_POLICY));
    // With the default policy the session goes on from the SYN/ACK.
    let mut t = FlowTracker::new(base);
    let u = t.packet(&pkt(false, 500, 101, SYN | ACK, b"", 1)).unwrap();
    assert!(!u.flow.bypassed && u.flow.tcp.state == TcpState::SynRecv);
}

#[test]
fn stream_events_of_overlaps_and_their_counters() {
    use wire::StreamEvent as E;
    let mut t = FlowTracker::new(Config {
        stream_event_stats: true,
        ..cfg()
    });
    let ev = |t: &mut FlowTracker, p: &PacketInfo<'_>| t.packet(p).unwrap().stream_events;
    ev(&mut t, &pkt(true, 100, 0, SYN, b"", 1));
    ev(&mut t, &pkt(false, 500, 101, SYN | ACK, b"", 2));
    ev(&mut t, &pkt(true, 101, 501, ACK, b"", 3));
    assert!(ev(&mut t, &pkt(true, 101, 501, ACK, b"abcd", 4)).is_empty());
    // The same segment (start and length), different: a duplicate Suricata 7.0.10
    // does not compare.
    let e = ev(&mut t, &pkt(true, 101, 501, ACK, b"abXd", 5));
    assert!(!e.has(E::ReassemblyOverlapDifferentData), "{e:?}");
    // Part of the same bytes again, different, before the server acknowledged them.
    let e = ev(&mut t, &pkt(true, 102, 501, ACK, b"bXd", 5));
    assert!(e.has(E::ReassemblyOverlapDifferentData), "{e:?}");
    ev(&mut t, &pkt(false, 501, 105, ACK, b"", 6));
    // Once acknowledged, a copy is a spurious retransmission, not reassembled.
    let e = ev(&mut t, &pkt(true, 101, 501, ACK, b"zzzz", 7));
    assert!(e.has(E::PktSpuriousRetransmission));
    assert!(!e.has(E::ReassemblyOverlapDifferentData));
    let c: std::collections::HashMap<_, _> = t.counters().collect();
    assert_eq!(c["stream.reassembly_overlap_different_data"], 1);
    assert_eq!(c["stream.pkt_spurious_retransmission"], 1);
    assert_eq!(c["stream.est_invalid_ack"], 0);
    // Off by default: no `stream.*` counters.
    let t = FlowTracker::new(cfg());
    assert!(!t.counters().any(|(n, _)| n.starts_with("stream.")));
}

#[test]
fn payload_at_says_where_a_payload_stored_whole_lies_in_its_stream() {
    // What raw stream inspection needs to reuse a packet's scan (detect's
    // `stream_memo`): the offset of a payload stored whole as new bytes, the chunk's
    // first offset, and a rewrite count that moves on an overlap.
    let mut t = FlowTracker::new(cfg());
    run(&mut t, &pkt(true, 0, 0, SYN, b"", 1));
    run(&mut t, &pkt(false, 0, 1, SYN | ACK, b"", 2));
    run(&mut t, &pkt(true, 1, 1, ACK, b"", 3));
    let at = |t: &mut FlowTracker, p: &PacketInfo<'_>| {
        let u = t.packet(p).expect("tracked");
        (u.payload_at, u.raw.contiguous_from(), u.raw.rewrites())
    };
    let (a, _, rw) = at(&mut t, &pkt(true, 1, 1, ACK, b"0123456789", 4));
    assert_eq!(a, Some(0));
    let (a, _, rw2) = at(&mut t, &pkt(true, 11, 1, ACK, b"abcdef", 5));
    assert_eq!((a, rw2), (Some(10), rw));
    // A retransmission overlapping held bytes: not stored whole, the count moves.
    let (a, _, rw3) = at(&mut t, &pkt(true, 5, 1, ACK, b"456789ab", 6));
    assert_eq!(a, None);
    assert_ne!(rw3, rw);
    // The server acknowledges it all: the chunk starts at the stream's first byte.
    run(&mut t, &pkt(false, 1, 17, ACK, b"", 7));
    let (a, from, _) = at(&mut t, &pkt(true, 17, 1, ACK | FIN, b"", 8));
    assert_eq!((a, from), (None, Some(0)));
}
