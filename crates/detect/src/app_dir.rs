//! The directions of a rule's app-layer buffers: Suricata 7.0.10 refuses a rule that
//! inspects a request-only buffer (`http.uri`, `http.method`, `http.host`,
//! `http.user_agent`, `http.request_body`, ...) together with a response-only one
//! (`http.stat_code`, `http.response_body`, `http.server`, ...): "rule mixes keywords
//! with conflicting directions". Buffers of both sides (`file_data`, `http.header`,
//! `http.cookie`, `http.content_type`, ...) mix with either (found by the differential
//! harness: tests/parity/difftest/fixed/dt-1-8). `flow:to_client` with a request-only
//! buffer or keyword (`http.uri`, `ja3.hash`, `ssh.hassh`, `mqtt.qos` ...) fails the same
//! way (the `ssh` and `mqtt` families, dt-1-ssh-*, dt-1-mqtt-*).

use crate::sig::{failed, Refusal};

/// Whether `flow:to_client` refuses buffer `name` of direction `dir`: every request
/// buffer but `http2.header_name` and `mqtt.subscribe.topic`, which Suricata 7.0.10
/// loads with `flow:to_client` (each request buffer checked with `suricata -T`).
pub(crate) fn request_only(name: &str, dir: app::Direction) -> bool {
    dir == app::Direction::ToServer && !matches!(name, "http2.header_name" | "mqtt.subscribe.topic")
}

/// The one side Suricata 7.0.10 registers buffer `name` for where Osprey inspects it on
/// both sides or on the other (its `suricata -T` refuses the other `flow:` direction
/// with it): `mqtt.publish.message` to the server (`krb5.cname`, `krb5.sname`,
/// `ike.vendor`, `ike.init_spi` and `ike.resp_spi` are buffers of one side, inspected
/// there only). Only the rules accepted change, not what they inspect.
pub(crate) fn suricata_side(name: &str) -> Option<app::Direction> {
    match name {
        "mqtt.publish.message" => Some(app::Direction::ToServer),
        _ => None,
    }
}

/// The one side Suricata 7.0.10 registers protocol keyword `name` for (its `suricata
/// -T` refuses the other `flow:` direction, and a rule mixing it with a keyword of the
/// other side): `rfb.sectype` to the server, `rfb.secresult`, `krb5.ticket_encryption`
/// and `ike.chosen_sa_attribute` to the client (found by the differential harness's
/// `rfb`, `krb5` and `ike` families), `nfs_procedure` and `nfs.version` to the server
/// (the `nfs` family: an NFS transaction matches them at the client's packets only,
/// tests/parity/difftest/fixed/dt-205-nfs-*). A rule without `flow` inspects that side
/// only.
pub(crate) fn option_side(name: &str) -> Option<app::Direction> {
    match name {
        "rfb.sectype" | "nfs_procedure" | "nfs.version" => Some(app::Direction::ToServer),
        "rfb.secresult" | "krb5.ticket_encryption" | "ike.chosen_sa_attribute" => {
            Some(app::Direction::ToClient)
        }
        _ => None,
    }
}

/// The refusal of a rule whose buffer `name` is of the other direction than an earlier one.
pub(crate) fn conflicting(name: &str) -> Refusal {
    failed(name, "rule mixes keywords with conflicting directions")
}

#[cfg(test)]
mod tests {
    use crate::testutil::refused;

    #[test]
    fn request_and_response_buffers_do_not_mix() {
        let r = |a: &str, b: &str| {
            refused(&format!(
                "alert http any any -> any any ({a}; content:\"x\"; {b}; content:\"y\"; sid:1;)"
            ))
        };
        assert!(r("http.method", "http.stat_code"));
        assert!(r("http.response_body", "http.uri"));
        assert!(r("http.host", "http.server"));
        assert!(!r("file_data", "http.uri"));
        assert!(!r("file_data", "http.stat_code"));
        assert!(!r("http.header", "http.stat_code"));
        assert!(!r("http.cookie", "http.uri"));
        assert!(!r("http.method", "http.uri"));
        assert!(!r("http.response_body", "http.stat_code"));
    }

    #[test]
    fn to_client_rules_with_request_buffers() {
        let r = |proto: &str, b: &str| {
            refused(&format!(
                "alert {proto} any any -> any any (flow:to_client; {b}; content:\"x\"; sid:1;)"
            ))
        };
        // As `suricata -T` answers.
        assert!(r("http", "http.uri"));
        assert!(r("http", "http.request_header"));
        assert!(r("dns", "dns.query"));
        assert!(r("tls", "tls.sni"));
        assert!(!r("krb5", "krb5.cname"));
        assert!(!r("mqtt", "mqtt.subscribe.topic"));
        assert!(!r("http", "http.response_header"));
        assert!(!r("http", "http2.header_name"));
    }

    #[test]
    fn one_sided_protocol_keywords() {
        let r = |proto: &str, opts: &str| {
            refused(&format!("alert {proto} any any -> any any ({opts} sid:1;)"))
        };
        // As `suricata -T` answers.
        assert!(r("rfb", "flow:to_client; rfb.sectype:2;"));
        assert!(r("rfb", "flow:to_server; rfb.secresult:ok;"));
        assert!(r("rfb", "rfb.sectype:2; rfb.name; content:\"x\";"));
        assert!(r("rfb", "rfb.sectype:2; rfb.secresult:ok;"));
        assert!(!r("rfb", "rfb.secresult:ok; rfb.name; content:\"x\";"));
        assert!(r("krb5", "flow:to_server; krb5.ticket_encryption:weak;"));
        assert!(r(
            "ike",
            "flow:to_server; ike.chosen_sa_attribute:alg_hash=2;"
        ));
        assert!(r("ike", "flow:to_client; ike.init_spi; content:\"a\";"));
        assert!(r("ike", "flow:to_server; ike.resp_spi; content:\"a\";"));
        assert!(!r(
            "ike",
            "flow:to_client; ike.nonce_payload; content:\"a\";"
        ));
        assert!(!r("rfb", "flow:to_server; rfb.sectype:2;"));
        assert!(r("nfs", "flow:to_client; nfs_procedure:4;"));
        assert!(r("nfs", "flow:to_client; nfs.version:3;"));
        assert!(r("nfs", "flow:to_client; nfs_procedure:!6;"));
        assert!(!r("nfs", "flow:to_server; nfs_procedure:4;"));
        assert!(!r("udp", "nfs.version:3;"));
    }

    #[test]
    fn to_client_rules_refuse_request_only_keywords() {
        let r = |p: &str, o: &str| {
            refused(&format!(
                "alert {p} any any -> any any (flow:to_client,established; {o} sid:1;)"
            ))
        };
        assert!(r("http", "http.uri; content:\"a\";"));
        assert!(r("ssh", "ssh.hassh.string; content:\"a\";"));
        assert!(r("mqtt", "mqtt.connect.clientid; content:\"a\";"));
        assert!(r("mqtt", "mqtt.qos:1;"));
        assert!(!r("http", "http.stat_code; content:\"2\";"));
        assert!(!r("mqtt", "mqtt.subscribe.topic; content:\"a\";"));
        assert!(!r("mqtt", "mqtt.connack.session_present:true;"));
        assert!(!r("mqtt", "mqtt.type:CONNACK;"));
        assert!(!r("http2", "http2.header_name; content:\"accept\";"));
        assert!(!r("krb5", "krb5.cname; content:\"a\";"));
        assert!(refused(
            "alert mqtt any any -> any any (flow:to_server; mqtt.connack.session_present:true; sid:1;)"
        ));
        assert!(refused(
            "alert mqtt any any -> any any (mqtt.qos:1; mqtt.connack.session_present:true; sid:1;)"
        ));
    }

    #[test]
    fn one_sided_in_suricata() {
        // As `suricata -T` answers.
        let r = |p: &str, dir: &str, b: &str| {
            refused(&format!(
                "alert {p} any any -> any any (flow:{dir}; {b}; content:\"a\"; sid:1;)"
            ))
        };
        assert!(r("krb5", "to_server", "krb5.cname"));
        assert!(r("krb5", "to_server", "krb5.sname"));
        assert!(!r("krb5", "to_client", "krb5.sname"));
        assert!(r("ike", "to_client", "ike.vendor"));
        assert!(!r("ike", "to_server", "ike.vendor"));
        assert!(r("mqtt", "to_client", "mqtt.publish.message"));
        assert!(!r("mqtt", "to_client", "mqtt.publish.topic"));
        assert!(!refused(
            "alert krb5 any any -> any any (krb5.cname; content:\"a\"; krb5.sname; content:\"b\"; sid:1;)"
        ));
    }
}
