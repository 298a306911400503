//! Event keywords: `app-layer-event` (an event a protocol's parser raised on the
//! flow, `<proto>.<event>` as Suricata names them) and `decode-event`/`engine-event`/
//! `stream-event` (an anomaly the decoder recorded on the packet).
//!
//! `app-layer-event` is compiled into a transaction option ([`rules::AppOpt`] named
//! `app-layer-event`) so that, as in Suricata, the rule is inspected per transaction
//! and alerts once per transaction and direction; it holds when the transaction's
//! events ([`app::Transaction::tx_events`]: DNS, DNP3, Kerberos, SMB, SMTP, NFS, MQTT,
//! as Suricata 7.0.10 keeps them) or, for the other protocols, the flow's event set
//! ([`app::Protocol::events`]: once raised, the event holds for the flow's later
//! transactions too) has the event. A name whose protocol Osprey does not parse, or whose parser does
//! not raise that event, is refused as unsupported rather than loaded to never match.

use rules::{AppOpt, AppProto as RuleApp, AppValue};

use crate::input::Input;
use crate::packet_opts::HdrOpt;
use crate::sig::{failed, unsupported, PktOpt, Refusal, Sig};

/// The keyword name the compiled option carries.
pub(crate) const APP_LAYER_EVENT: &str = "app-layer-event";

/// The rule protocols an event prefix can name (a `&'static` slice of one is the
/// option's `protos`).
static PROTOS: &[RuleApp] = &[
    RuleApp::Http,
    RuleApp::Http2,
    RuleApp::Tls,
    RuleApp::Smb,
    RuleApp::Dcerpc,
    RuleApp::Smtp,
    RuleApp::Dns,
    RuleApp::Sip,
    RuleApp::Mqtt,
    RuleApp::Nfs,
    RuleApp::Tftp,
    RuleApp::Ssh,
    RuleApp::Krb5,
    RuleApp::Snmp,
    RuleApp::Dhcp,
    RuleApp::Ftp,
    RuleApp::Quic,
    RuleApp::Ike,
    RuleApp::Modbus,
    RuleApp::Enip,
    RuleApp::BittorrentDht,
    RuleApp::Rfb,
    RuleApp::Dnp3,
    RuleApp::Ntp,
];

/// `app-layer-event:<proto>.<event>` as a transaction option.
pub(crate) fn app_layer(value: &str) -> Result<AppOpt, Refusal> {
    let name = value.trim();
    let Some((proto, event)) = name.split_once('.') else {
        // `applayer_mismatch_protocol_both_directions` and the other protocol
        // detection events are raised on the packet in Suricata; Osprey logs them
        // (EVE `anomaly`) but does not keep them for rules.
        return Err(unsupported(
            APP_LAYER_EVENT,
            format!("app-layer-event:{name}: protocol detection events are not kept for rules"),
        ));
    };
    if event.is_empty() {
        return Err(failed(
            APP_LAYER_EVENT,
            format!("app-layer-event:{name}: no event"),
        ));
    }
    let rp = PROTOS
        .iter()
        .position(|p| RuleApp::parse(proto) == Some(*p))
        .ok_or_else(|| {
            unsupported(
                APP_LAYER_EVENT,
                format!("app-layer-event:{name}: protocol {proto} has no parser events"),
            )
        })?;
    let raised = app::registry::rule_name(proto).is_some_and(|(n, _)| {
        app::registry::protocols()
            .iter()
            .any(|d| d.proto == n.proto && d.events.contains(&name))
    });
    if !raised {
        return Err(unsupported(
            APP_LAYER_EVENT,
            format!("app-layer-event:{name}: not raised by Osprey's {proto} parser"),
        ));
    }
    Ok(AppOpt {
        name: APP_LAYER_EVENT,
        protos: std::slice::from_ref(&PROTOS[rp]),
        negated: false,
        value: AppValue::Text(name.to_owned()),
    })
}

/// Whether the flow of `input` has the event `o` names (an [`app_layer`] option), for
/// transaction `tx` inspected in direction `dir`. Like Suricata 7.0.10 (checked on
/// HTTP flows: `http-lzma`, `keywords_events`, `app_layer_event_timing`), a direction
/// is inspected once the transaction's side of that direction has begun: a request's
/// event alerts on the next to-server packet, and on the first to-client packet once a
/// byte of the response's status line was parsed.
pub(crate) fn app_layer_holds(
    o: &AppOpt,
    tx: &dyn app::Transaction,
    dir: app::Direction,
    input: &Input<'_>,
) -> bool {
    tx.started(dir) && event_raised(o, tx, dir, input)
}

/// Whether the event `o` names was raised on `tx` (a protocol that keeps its events
/// per transaction) or on the flow of `input`.
fn event_raised(
    o: &AppOpt,
    tx: &dyn app::Transaction,
    dir: app::Direction,
    input: &Input<'_>,
) -> bool {
    let AppValue::Text(want) = &o.value else {
        return false;
    };
    let mut found = false;
    if tx.tx_events(dir, &mut |e| found |= e == want) {
        return found;
    }
    let Some(p) = input.app.and_then(|af| af.state().protocol()) else {
        return false;
    };
    p.events(&mut |e| found |= e == want);
    found
}

/// Whether rule `s` (an `app-layer-event` rule, see [`per_direction`]) can no longer
/// match `tx` in direction `dir`: that side is complete and one of its events was not
/// raised. Suricata 7.0.10 then stores the rule as done for the transaction and
/// direction and never inspects it there again, so an event raised later (a response
/// body that fails to decompress, after the request side was inspected complete)
/// alerts in the other direction only.
pub(crate) fn cant_match(
    s: &Sig,
    tx: &dyn app::Transaction,
    dir: app::Direction,
    input: &Input<'_>,
) -> bool {
    tx.complete(dir)
        && s.tx_opts
            .iter()
            .any(|o| o.name == APP_LAYER_EVENT && !event_raised(o, tx, dir, input))
}

/// Whether rule `s` alerts once per transaction and direction: it has an
/// `app-layer-event` option.
pub(crate) fn per_direction(s: &Sig) -> bool {
    s.tx_opts.iter().any(|o| o.name == APP_LAYER_EVENT)
}

/// Whether rule `s` may be evaluated on packet `p`: a packet whose IP header did not
/// decode, or was broken by its options (it reaches detection only with decoder
/// events), is for the rules that match a decoder event. Suricata 7.0.10 has no IP
/// header for the latter either: `alert ip 10.0.0.1 any -> 10.0.0.4/30 any` does not
/// alert on it (difftest CI batch, an `addr` rule beside an `events/ipv4opt` case),
/// but a rule of `ip any any -> any any` and nothing the header would answer matches
/// it (`tests/parity/cases/ipopts-names`: an option length past the option area, and a
/// length of 1).
pub(crate) fn undecoded_ok(s: &Sig, p: &wire::Packet) -> bool {
    (p.ip_version != 0 && (!p.has(wire::flags::IP_HDR_BROKEN) || header_free(s)))
        || s.pkt
            .iter()
            .any(|o| matches!(o, PktOpt::Hdr(HdrOpt::Event(_))))
}

/// Whether rule `s` asks nothing of an IP header: protocol `ip`, any address either
/// way, no packet condition and no payload.
fn header_free(s: &Sig) -> bool {
    matches!(s.proto, crate::sig::ProtoM::Ip(None))
        && s.src.is_any()
        && s.dst.is_any()
        && s.pkt.is_empty()
        && s.payload.is_none()
}

/// `decode-event:<layer>.<event>`, `engine-event:decoder.<layer>.<event>` and
/// `stream-event:<event>` (`engine-event:stream.<event>`) as a packet condition: the
/// decoder recorded the event on the packet. As in Suricata 7.0.10, `engine-event`
/// takes the full name (a bare decoder name is an error there) and does not match a
/// packet whose IP header did not decode, where `decode-event` does.
///
/// Names are compared without regard to case, as Suricata 7.0.10 does
/// (`decode-event:IPV4.TRUNC_PKT` and `stream-event:RST_BUT_NO_SESSION` load and match).
pub(crate) fn packet(keyword: &str, value: Option<&str>) -> Result<HdrOpt, Refusal> {
    let v = value.map(str::trim).unwrap_or("").to_ascii_lowercase();
    let v = v.as_str();
    if keyword == "stream-event" {
        return crate::stream_event::compile(keyword, v);
    }
    if v.is_empty() {
        return Err(failed(keyword, format!("{keyword} needs an event name")));
    }
    if keyword == "engine-event" && !v.starts_with("stream.") {
        let e = v.strip_prefix("decoder.").ok_or_else(|| {
            failed(
                keyword,
                format!("engine-event:{v}: not decoder.<event> or stream.<event>"),
            )
        })?;
        return wire::Event::from_name(e)
            .map(HdrOpt::EngineEvent)
            .ok_or_else(|| {
                unsupported(
                    keyword,
                    format!("engine-event:{v}: not raised by Osprey's decoder"),
                )
            });
    }
    if let Some(name) = v.strip_prefix("stream.") {
        if keyword == "engine-event" {
            return crate::stream_event::compile(keyword, name);
        }
        return Err(failed(
            keyword,
            format!("{keyword}:{v}: a stream event (stream-event:{name})"),
        ));
    }
    wire::Event::from_name(v).map(HdrOpt::Event).ok_or_else(|| {
        unsupported(
            keyword,
            format!("{keyword}:{v}: not raised by Osprey's decoder"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn app_layer_events_resolve_to_their_protocol() {
        let o = app_layer("http.missing_host_header").unwrap();
        assert_eq!(o.protos, [RuleApp::Http]);
        assert_eq!(o.value, AppValue::Text("http.missing_host_header".into()));
        let o = app_layer(" dns.malformed_data").unwrap();
        assert_eq!(o.protos, [RuleApp::Dns]);
        for bad in [
            "http.no_such_event",
            "applayer_mismatch_protocol_both_directions",
            "pgsql.malformed_request",
        ] {
            assert!(app_layer(bad).unwrap_err().unsupported, "{bad}");
        }
        assert!(!app_layer("http.").unwrap_err().unsupported);
    }

    /// A transaction that keeps its events itself, with each side's progress set.
    struct Tx {
        /// [to server, to client]: (begun, complete).
        sides: [(bool, bool); 2],
        event: Option<&'static str>,
    }

    impl app::Transaction for Tx {
        fn id(&self) -> u64 {
            0
        }
        fn proto(&self) -> app::AppProto {
            app::AppProto::Dns
        }
        fn complete(&self, dir: app::Direction) -> bool {
            self.sides[dir.index()].1
        }
        fn started(&self, dir: app::Direction) -> bool {
            self.sides[dir.index()].0
        }
        fn fingerprint(&self) -> (u64, u64) {
            (0, 0)
        }
        fn buffers(&self, _: app::BufferId, _: app::Direction, _: &mut dyn FnMut(&[u8])) {}
        fn log(&self, _: bool, _: &mut dyn FnMut(Option<u64>, serde_json::Value)) {}
        fn alert_object(&self) -> serde_json::Value {
            serde_json::Value::Null
        }
        fn tx_events(&self, _: app::Direction, f: &mut dyn FnMut(&'static str)) -> bool {
            self.event.into_iter().for_each(f);
            true
        }
    }

    #[test]
    fn event_rules_wait_for_a_side_and_give_up_on_a_complete_one() {
        use app::Direction::{ToClient, ToServer};
        let d = crate::testutil::detector(
            "alert dns any any -> any any (app-layer-event:dns.malformed_data; sid:1;)",
        );
        let s = &d.sigs()[0];
        let o = &s.tx_opts[0];
        let p = wire::Packet::default();
        let input = Input::packet(&p, &[], None);
        let ev = Some("dns.malformed_data");
        // The response has not begun: not inspected to the client yet, nor given up.
        let tx = Tx {
            sides: [(true, true), (false, false)],
            event: ev,
        };
        assert!(app_layer_holds(o, &tx, ToServer, &input));
        assert!(!app_layer_holds(o, &tx, ToClient, &input));
        assert!(!cant_match(s, &tx, ToClient, &input));
        // Begun, not complete: the event holds.
        let tx = Tx {
            sides: [(true, true), (true, false)],
            event: ev,
        };
        assert!(app_layer_holds(o, &tx, ToClient, &input));
        // No event: a complete side cannot match any more, an incomplete one may.
        let tx = Tx {
            sides: [(true, true), (true, false)],
            event: Some("dns.other"),
        };
        assert!(!app_layer_holds(o, &tx, ToServer, &input));
        assert!(cant_match(s, &tx, ToServer, &input));
        assert!(!cant_match(s, &tx, ToClient, &input));
        // The event is there: never given up on.
        let tx = Tx {
            sides: [(true, true), (true, true)],
            event: ev,
        };
        assert!(!cant_match(s, &tx, ToServer, &input) && !cant_match(s, &tx, ToClient, &input));
    }

    #[test]
    fn decoder_events_by_suricata_name() {
        assert_eq!(
            packet("decode-event", Some("ipv4.trunc_pkt")).unwrap(),
            HdrOpt::Event(wire::Event::Ipv4TruncPkt)
        );
        assert_eq!(
            packet("engine-event", Some("decoder.tcp.hlen_too_small")).unwrap(),
            HdrOpt::EngineEvent(wire::Event::TcpHlenTooSmall)
        );
        assert!(
            !packet("engine-event", Some("tcp.hlen_too_small"))
                .unwrap_err()
                .unsupported
        );
        assert_eq!(
            packet("engine-event", Some("stream.pkt_invalid_ack")).unwrap(),
            HdrOpt::Stream(wire::StreamEvent::PktInvalidAck)
        );
        assert!(
            packet("decode-event", Some("ipv4.nope"))
                .unwrap_err()
                .unsupported
        );
        assert_eq!(
            packet("stream-event", Some("3whs_wrong_seq_wrong_ack")).unwrap(),
            HdrOpt::Stream(wire::StreamEvent::ThreewhsWrongSeqWrongAck)
        );
        // Names in any case, as Suricata (seen on difftest events cases).
        assert_eq!(
            packet("stream-event", Some("3WHS_Wrong_Seq_Wrong_Ack")).unwrap(),
            HdrOpt::Stream(wire::StreamEvent::ThreewhsWrongSeqWrongAck)
        );
        assert_eq!(
            packet("decode-event", Some(" IPV4.TRUNC_PKT")).unwrap(),
            HdrOpt::Event(wire::Event::Ipv4TruncPkt)
        );
        assert_eq!(
            packet("engine-event", Some("Decoder.UDP.LEN_INVALID")).unwrap(),
            HdrOpt::EngineEvent(wire::Event::UdpLenInvalid)
        );
        assert!(!packet("stream-event", None).unwrap_err().unsupported);
        assert!(
            !packet("stream-event", Some("nope"))
                .unwrap_err()
                .unsupported
        );
        assert!(!packet("decode-event", None).unwrap_err().unsupported);
    }
}
