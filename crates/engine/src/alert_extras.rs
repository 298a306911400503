//! What an alert record adds when the eve-log output's alert options ask for it
//! (`payload`, `payload-printable`, `packet`, `http-body`, `http-body-printable`):
//! the bytes are picked here, written by [`output::eve::AlertPayload`].

use output::eve::{AlertOptions, AlertPayload};
use serde_json::Value;
use wire::Packet;

/// The payload and frame of an alert on `pkt` (captured as `frame`; `stream`: the
/// acknowledged part of the stream data inspected with it, empty when none of it is),
/// when `opts` logs any of them. A rule that matched
/// the stream or a transaction of a TCP flow logs the stream data (`stream: 1`), as
/// Suricata does; any other the packet's payload.
pub(crate) fn payload<'a>(
    opts: &AlertOptions,
    alert: &detect::Alert,
    pkt: &Packet,
    frame: &'a [u8],
    stream: Option<&'a [u8]>,
) -> Option<(AlertPayload<'a>, AlertOptions)> {
    if !(opts.payload || opts.payload_printable || opts.packet) {
        return None;
    }
    let on_stream = match alert.matched_on {
        detect::MatchedOn::Packet => false,
        detect::MatchedOn::Frame(f) => !f.datagram,
        detect::MatchedOn::Stream | detect::MatchedOn::Tx(_) => true,
    };
    // Stream data inspected with the packet but not yet acknowledged (inline) logs the
    // packet's payload, still as stream data, as Suricata 7.0.10 does.
    let (bytes, is_stream) = match stream {
        Some(s) if on_stream && !s.is_empty() => (s, true),
        Some(_) if on_stream => (pkt.payload(frame), true),
        _ => (pkt.payload(frame), false),
    };
    // A packet found inside an IP-in-IP, 6in4 or Teredo tunnel is logged from its own
    // IP header as a raw IP packet (link type 12), as Suricata logs it.
    let raw_ip = matches!(
        pkt.tunnel,
        wire::Tunnel::Teredo
            | wire::Tunnel::Ipv4InIpv4
            | wire::Tunnel::Ipv6InIpv4
            | wire::Tunnel::Ipv4InIpv6
            | wire::Tunnel::Ipv6InIpv6
    );
    let (packet, linktype) = match frame.get(pkt.l3_off as usize..) {
        Some(inner) if raw_ip => (inner, 12),
        _ => (frame, pkt.link_type.0),
    };
    Some((
        AlertPayload {
            payload: bytes,
            stream: is_stream,
            packet,
            linktype,
        },
        *opts,
    ))
}

/// Adds the HTTP bodies of transaction `tx_id` to the alert's `http` object (in
/// `extra`) when `opts` asks for them (HTTP/1 transactions).
pub(crate) fn http_bodies(
    opts: &AlertOptions,
    app: Option<&app::AppFlow>,
    tx_id: Option<u64>,
    extra: &mut [(&str, Value)],
) {
    if !(opts.http_body || opts.http_body_printable) {
        return;
    }
    let Some(tx) = tx_id.and_then(|id| app?.http()?.tx(id)) else {
        return;
    };
    for (name, obj) in extra.iter_mut() {
        if let (&mut "http", Value::Object(m)) = (name, obj) {
            output::eve::write_http_bodies(opts, tx.request().body(), tx.response().body(), m);
        }
    }
}
