//! The directions of a rule's app-layer buffers: Suricata 7.0.10 refuses a rule that
//! inspects a request-only buffer (`http.uri`, `http.method`, `http.host`,
//! `http.user_agent`, `http.request_body`, ...) together with a response-only one
//! (`http.stat_code`, `http.response_body`, `http.server`, ...): "rule mixes keywords
//! with conflicting directions". Buffers of both sides (`file_data`, `http.header`,
//! `http.cookie`, `http.content_type`, ...) mix with either (found by the differential
//! harness: tests/parity/difftest/fixed/dt-1-8).

use crate::sig::{failed, Refusal};

/// The refusal of a rule whose buffer `name` is of the other direction than an earlier one.
pub(crate) fn conflicting(name: &str) -> Refusal {
    failed(name, "rule mixes keywords with conflicting directions")
}

/// Whether a `flow:to_client` rule with the request-only buffer `name` is refused, as
/// Suricata 7.0.10 refuses `flow:to_client; http.uri;` (the same message). Not for
/// `krb5.cname`, `krb5.sname` and `mqtt.subscribe.topic`: Suricata loads those rules
/// (`suricata -T`), its registered directions differ from Osprey's request-only model
/// of these buffers there.
pub(crate) fn refuses_to_client(name: &str) -> bool {
    !matches!(name, "krb5.cname" | "krb5.sname" | "mqtt.subscribe.topic")
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
}
