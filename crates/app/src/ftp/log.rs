//! FTP's EVE objects as Suricata 7 writes them: `ftp` (`command`, `command_data`,
//! `command_truncated`, `completion_code`, `reply`, `dynamic_port`, `mode`,
//! `reply_received`, `reply_truncated`, in that order) and `ftp_data` (`filename`,
//! `command`) for a data connection.

use serde_json::{Map, Value};

use super::data::FtpDataState;
use super::FtpTx;
use crate::log::{bytes_str, set_bytes};

/// The `ftp` object of a transaction.
pub fn ftp_object(tx: &FtpTx) -> Value {
    let mut o = Map::new();
    if let Some(c) = tx.command {
        o.insert("command".into(), c.into());
    }
    if let Some(d) = tx.command_data.as_deref() {
        o.insert("command_data".into(), bytes_str(d).into());
        o.insert("command_truncated".into(), tx.command_truncated.into());
    }
    let codes: Vec<Value> = tx
        .replies
        .iter()
        .filter_map(|r| r.code)
        .map(|c| bytes_str(&c).into())
        .collect();
    if !codes.is_empty() {
        o.insert("completion_code".into(), Value::Array(codes));
    }
    if !tx.replies.is_empty() {
        let r = tx
            .replies
            .iter()
            .map(|r| bytes_str(&r.text).into())
            .collect();
        o.insert("reply".into(), Value::Array(r));
    }
    if let Some(p) = tx.dynamic_port {
        o.insert("dynamic_port".into(), p.into());
    }
    if tx.active {
        o.insert("mode".into(), "active".into());
    }
    let received = if tx.replies.is_empty() { "no" } else { "yes" };
    o.insert("reply_received".into(), received.into());
    o.insert("reply_truncated".into(), tx.reply_truncated.into());
    Value::Object(o)
}

/// The `ftp_data` object of a data connection (`None` unless it carried a `RETR` or
/// `STOR` file: as in Suricata, a connection that carried no file bytes has none).
pub fn ftp_data_object(s: &FtpDataState) -> Option<Value> {
    if s.files().is_empty() {
        return None;
    }
    let t = s.transfer();
    let command = t.command.filter(|c| matches!(*c, "RETR" | "STOR"))?;
    let mut o = Map::new();
    set_bytes(&mut o, "filename", t.filename.as_deref());
    o.insert("command".into(), command.into());
    Some(Value::Object(o))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ftp::state::ReplyLine;

    #[test]
    fn fields_in_suricatas_order() {
        // sv-ether.pcap, flow 192.168.0.13:59898 -> 192.168.0.10:21, tx 3.
        let tx = FtpTx {
            id: 3,
            command: Some("PORT"),
            command_data: Some(b"192,168,0,13,234,10".to_vec()),
            replies: vec![ReplyLine {
                code: Some(*b"200"),
                text: b"PORT command successful. Consider using PASV.".to_vec(),
            }],
            dynamic_port: Some(59914),
            active: true,
            done: true,
            ..FtpTx::default()
        };
        assert_eq!(
            serde_json::to_string(&ftp_object(&tx)).unwrap(),
            r#"{"command":"PORT","command_data":"192,168,0,13,234,10","command_truncated":false,"completion_code":["200"],"reply":["PORT command successful. Consider using PASV."],"dynamic_port":59914,"mode":"active","reply_received":"yes","reply_truncated":false}"#
        );
        let tx = FtpTx {
            command: Some("RETR"),
            command_data: Some(b"index.html".to_vec()),
            ..FtpTx::default()
        };
        assert_eq!(
            serde_json::to_string(&ftp_object(&tx)).unwrap(),
            r#"{"command":"RETR","command_data":"index.html","command_truncated":false,"reply_received":"no","reply_truncated":false}"#
        );
    }
}
