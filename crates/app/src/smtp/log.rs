//! SMTP's EVE objects as Suricata 7 writes them: `smtp` (`helo`, `mail_from`,
//! `rcpt_to`) and, beside it, `email` (`status`, `from`, `to`, `cc`; `subject` with
//! the extended fields; the `has_*_url` flags, `url`, `attachment` and `body_md5`)
//! once the transaction has a message.

use serde_json::{Map, Value};

use super::email::addresses;
use super::SmtpTx;
use crate::log::{bytes_str, set_bytes};

/// The `smtp` object of a transaction.
pub fn smtp_object(tx: &SmtpTx) -> Value {
    let mut o = Map::new();
    set_bytes(&mut o, "helo", tx.helo.as_deref());
    set_bytes(&mut o, "mail_from", tx.mail_from.as_deref());
    if !tx.rcpt_to.is_empty() {
        let r = tx.rcpt_to.iter().map(|r| bytes_str(r).into()).collect();
        o.insert("rcpt_to".into(), Value::Array(r));
    }
    Value::Object(o)
}

/// The `email` object of a transaction with a message (`None` without one).
pub fn email_object(tx: &SmtpTx, extended: bool) -> Option<Value> {
    let e = tx.email.as_ref()?;
    let mut o = Map::new();
    o.insert("status".into(), e.status.name().into());
    set_bytes(&mut o, "from", e.from.as_deref());
    let list = |v: &[u8]| Value::Array(addresses(v).map(|a| bytes_str(a).into()).collect());
    if let Some(to) = e.to.as_deref() {
        o.insert("to".into(), list(to));
    }
    if let Some(cc) = e.cc.as_deref() {
        o.insert("cc".into(), list(cc));
    }
    if extended {
        set_bytes(&mut o, "subject", e.subject.as_deref());
    }
    if e.in_multipart() {
        return Some(Value::Object(o));
    }
    if let Some(f) = e.url_flags {
        o.insert("has_ipv6_url".into(), f.ipv6.into());
        o.insert("has_ipv4_url".into(), f.ipv4.into());
        o.insert("has_exe_url".into(), f.exe.into());
    }
    let strings = |v: &[Vec<u8>]| Value::Array(v.iter().map(|s| bytes_str(s).into()).collect());
    if !e.urls.is_empty() {
        o.insert("url".into(), strings(&e.urls));
    }
    if !e.attachments.is_empty() {
        o.insert("attachment".into(), strings(&e.attachments));
    }
    if let Some(md5) = e.body_md5 {
        let hex: String = md5.iter().map(|b| format!("{b:02x}")).collect();
        o.insert("body_md5".into(), hex.into());
    }
    Some(Value::Object(o))
}
