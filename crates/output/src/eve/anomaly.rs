//! The `anomaly` object of EVE records, as Suricata writes it: application-layer
//! events (`{app_proto, type: applayer, event, layer}`, the transaction's `tx_id` at
//! the top level), decoder events (`{type: decode, event: decoder.<name>}`) and TCP
//! stream events (`{type: stream, event: stream.<name>}`).

use app::{AnomalyLayer, AppAnomaly, AppProto};
use serde_json::{json, Value};

/// The object of an application-layer anomaly.
pub fn app_anomaly(a: &AppAnomaly) -> Value {
    let mut o = serde_json::Map::new();
    // Detection events of a flow with no protocol carry none.
    if !(a.layer == AnomalyLayer::ProtoDetect && a.proto == AppProto::Unknown) {
        o.insert("app_proto".into(), a.proto.name().into());
    }
    o.insert("type".into(), "applayer".into());
    o.insert("event".into(), a.eve_event().into());
    o.insert("layer".into(), a.layer.name().into());
    Value::Object(o)
}

/// The object of a decoder anomaly: `event` is the decoder event's name
/// (`ipv4.trunc_pkt`), written as `decoder.ipv4.trunc_pkt`.
pub fn decode_anomaly(event: &str) -> Value {
    json!({"type": "decode", "event": format!("decoder.{event}")})
}

/// The object of a TCP stream anomaly: `event` is the stream event's name
/// (`est_invalid_ack`), written as `stream.est_invalid_ack`.
pub fn stream_anomaly(event: &str) -> Value {
    json!({"type": "stream", "event": format!("stream.{event}")})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objects_have_suricatas_shape() {
        let a = AppAnomaly {
            proto: AppProto::Http,
            layer: AnomalyLayer::ProtoParser,
            event: "http.abnormal_ce_header",
            tx_id: Some(3),
        };
        assert_eq!(
            app_anomaly(&a).to_string(),
            r#"{"app_proto":"http","type":"applayer","event":"ABNORMAL_CE_HEADER","layer":"proto_parser"}"#
        );
        assert_eq!(
            decode_anomaly("ipv4.trunc_pkt").to_string(),
            r#"{"type":"decode","event":"decoder.ipv4.trunc_pkt"}"#
        );
        assert_eq!(
            stream_anomaly("est_invalid_ack").to_string(),
            r#"{"type":"stream","event":"stream.est_invalid_ack"}"#
        );
    }
}
