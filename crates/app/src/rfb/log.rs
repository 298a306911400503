//! The EVE `rfb` object, in Suricata's key order: `server_protocol_version` and
//! `client_protocol_version` (`major`, `minor`), `authentication` (`security_type`,
//! `vnc` with the challenge and response in hex, `security_result`),
//! `server_security_failure_reason`, `screen_shared` and `framebuffer` (`width`,
//! `height`, `name`, `pixel_format`).

use serde_json::{json, Map, Value};

use super::parser::Version;
use super::state::RfbTx;
use crate::log::bytes_str;
use crate::tls::ja3::hex_lower as hex;

fn version(v: &Version) -> Value {
    json!({"major": v.major, "minor": v.minor})
}

/// The name of a security result.
pub fn result_name(r: u32) -> &'static str {
    match r {
        0 => "OK",
        1 => "FAIL",
        2 => "TOOMANY",
        _ => "UNKNOWN",
    }
}

/// The `rfb` object of a flow's handshake.
pub fn rfb_object(tx: &RfbTx) -> Value {
    let mut o = Map::new();
    if let Some(v) = &tx.server_version {
        o.insert("server_protocol_version".into(), version(v));
    }
    if let Some(v) = &tx.client_version {
        o.insert("client_protocol_version".into(), version(v));
    }
    let mut auth = Map::new();
    if let Some(t) = tx.security_type {
        auth.insert("security_type".into(), t.into());
    }
    if let (Some(c), Some(r)) = (&tx.challenge, &tx.response) {
        auth.insert(
            "vnc".into(),
            json!({"challenge": hex(c), "response": hex(r)}),
        );
    }
    if let Some(r) = tx.security_result {
        auth.insert("security_result".into(), result_name(r).into());
    }
    o.insert("authentication".into(), Value::Object(auth));
    if let Some(r) = &tx.failure_reason {
        o.insert("server_security_failure_reason".into(), bytes_str(r).into());
    }
    if let Some(s) = tx.shared {
        o.insert("screen_shared".into(), s.into());
    }
    if let Some((w, h, pf, name)) = &tx.server_init {
        o.insert(
            "framebuffer".into(),
            json!({
                "width": w,
                "height": h,
                "name": bytes_str(name),
                "pixel_format": {
                    "bits_per_pixel": pf.bits_per_pixel,
                    "depth": pf.depth,
                    "big_endian": pf.big_endian,
                    "true_color": pf.true_color,
                    "red_max": pf.red_max,
                    "green_max": pf.green_max,
                    "blue_max": pf.blue_max,
                    "red_shift": pf.red_shift,
                    "green_shift": pf.green_shift,
                    "blue_shift": pf.blue_shift,
                }
            }),
        );
    }
    Value::Object(o)
}

#[cfg(test)]
mod tests {
    use super::super::state::RfbState;
    use super::*;
    use crate::{AppCtx, Direction};

    #[test]
    fn records_as_suricata_writes_them() {
        let mut ctx = AppCtx::default();
        let mut s = RfbState::default();
        s.parse(
            &mut ctx,
            Direction::ToClient,
            include_bytes!("testdata/v38_server.bin"),
        );
        s.parse(
            &mut ctx,
            Direction::ToServer,
            include_bytes!("testdata/v38_client.bin"),
        );
        s.parse(&mut ctx, Direction::ToClient, &[]);
        // Suricata 7.0.10 on sv-ether.pcap, 192.168.1.123:58102 -> 192.168.1.10:5900.
        assert_eq!(
            rfb_object(s.tx().unwrap()).to_string(),
            r#"{"server_protocol_version":{"major":"003","minor":"008"},"client_protocol_version":{"major":"003","minor":"008"},"authentication":{"security_type":2,"vnc":{"challenge":"1d03c57f2dffcc72a5ae3ad559c9c3db","response":"547b7a6f36a154db03a2575c6f2a4ec5"},"security_result":"OK"},"screen_shared":false,"framebuffer":{"width":800,"height":600,"name":"\\xa0","pixel_format":{"bits_per_pixel":32,"depth":24,"big_endian":false,"true_color":true,"red_max":255,"green_max":255,"blue_max":255,"red_shift":16,"green_shift":8,"blue_shift":0}}}"#
        );
    }
}
