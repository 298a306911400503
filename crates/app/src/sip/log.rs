//! SIP's EVE object as Suricata 7 writes it: `method`, `uri`, `version` and
//! `request_line` for a request; `version`, `code`, `reason` and `response_line` for a
//! response.

use serde_json::{Map, Value};

use super::parser::StartLine;
use super::SipTx;
use crate::log::set_bytes;

/// The `sip` object of a transaction.
pub fn sip_object(tx: &SipTx) -> Value {
    let mut o = Map::new();
    match &tx.start {
        StartLine::Request {
            method,
            uri,
            version,
            line,
        } => {
            set_bytes(&mut o, "method", Some(method));
            set_bytes(&mut o, "uri", Some(uri));
            set_bytes(&mut o, "version", Some(version));
            set_bytes(&mut o, "request_line", Some(line));
        }
        StartLine::Response {
            version,
            code,
            reason,
            line,
        } => {
            set_bytes(&mut o, "version", Some(version));
            set_bytes(&mut o, "code", Some(code));
            set_bytes(&mut o, "reason", Some(reason));
            set_bytes(&mut o, "response_line", Some(line));
        }
    }
    Value::Object(o)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AppCtx, Direction};

    #[test]
    fn records_as_suricata_writes_them() {
        let mut ctx = AppCtx::default();
        let mut s = crate::sip::SipState::default();
        // sv-ether.pcap frames 66120 and 66121 (start lines and a header).
        let invite = b"INVITE sip:francisco@bestel.com:55060 SIP/2.0\r\nCSeq: 1 INVITE\r\n\r\n";
        s.datagram(&mut ctx, Direction::ToServer, invite);
        s.datagram(
            &mut ctx,
            Direction::ToClient,
            b"SIP/2.0 100 Trying\r\nCSeq: 1 INVITE\r\n\r\n",
        );
        let got: Vec<_> = s.txs().map(|t| sip_object(t).to_string()).collect();
        assert_eq!(
            got,
            [
                r#"{"method":"INVITE","uri":"sip:francisco@bestel.com:55060","version":"SIP/2.0","request_line":"INVITE sip:francisco@bestel.com:55060 SIP/2.0"}"#,
                r#"{"version":"SIP/2.0","code":"100","reason":"Trying","response_line":"SIP/2.0 100 Trying"}"#,
            ]
        );
    }
}
