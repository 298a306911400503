//! The DNS getters (`DnsGetQueries`, `DnsGetAnswers`, `DnsGetAuthorities`,
//! `DnsGetDnsRrname`, `DnsGetRcode`, `DnsGetRecursionDesired`, `DnsGetTxid`) from a DNS
//! transaction's EVE records, in the shapes Suricata 7.0.10's return (checked on
//! tests/data/lists-dns.pcap): record lists indexed from 0, each record a table with
//! `rrname` and `type` (answers and authorities also `ttl`, answers `addr`).

use app::Transaction;
use mlua::{Lua, Table, Value};
use serde_json::Value as J;

use super::api::put;

/// A list of records as Suricata's DNS getters return it.
fn records(lua: &Lua, list: &[J], answers: bool) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    for (i, r) in list.iter().enumerate() {
        let e = lua.create_table()?;
        let s = |k: &str| r.get(k).and_then(J::as_str).unwrap_or("");
        e.set("rrname", s("rrname"))?;
        e.set("type", s("rrtype"))?;
        if let Some(ttl) = r.get("ttl").and_then(J::as_i64) {
            e.set("ttl", ttl)?;
        }
        if answers {
            if let Some(a) = r.get("rdata").and_then(J::as_str) {
                e.set("addr", a)?;
            }
        }
        t.set(i as i64, e)?;
    }
    Ok(t)
}

/// Fills the DNS getters of `tx`.
pub(super) fn fill(lua: &Lua, c: &Table, tx: &dyn Transaction) -> mlua::Result<()> {
    let (mut queries, mut answer) = (Vec::new(), None);
    tx.log(true, &mut |_, v| match v.get("type").and_then(J::as_str) {
        Some("query") => queries.push(v),
        Some("answer") => answer = Some(v),
        _ => {}
    });
    // A response carries its question too.
    let first = queries.first().or(answer.as_ref());
    let Some(first) = first else {
        return Ok(());
    };
    if let Some(id) = first.get("id").and_then(J::as_i64) {
        put(lua, c, "DnsGetTxid", [Value::Integer(id)]);
    }
    if let Some(n) = first.get("rrname").and_then(J::as_str) {
        put(
            lua,
            c,
            "DnsGetDnsRrname",
            [Value::String(lua.create_string(n)?)],
        );
    }
    let qs: Vec<J> = if queries.is_empty() {
        answer.iter().cloned().collect()
    } else {
        queries.clone()
    };
    put(
        lua,
        c,
        "DnsGetQueries",
        [Value::Table(records(lua, &qs, false)?)],
    );
    let list = |k: &str| -> Vec<J> {
        answer
            .as_ref()
            .and_then(|a| a.get(k))
            .and_then(J::as_array)
            .map(|v| v.to_vec())
            .unwrap_or_default()
    };
    put(
        lua,
        c,
        "DnsGetAnswers",
        [Value::Table(records(lua, &list("answers"), true)?)],
    );
    put(
        lua,
        c,
        "DnsGetAuthorities",
        [Value::Table(records(lua, &list("authorities"), false)?)],
    );
    if let Some(rc) = answer
        .as_ref()
        .and_then(|a| a.get("rcode"))
        .and_then(J::as_str)
    {
        if rc != "NOERROR" {
            put(
                lua,
                c,
                "DnsGetRcode",
                [Value::String(lua.create_string(rc)?)],
            );
        }
    }
    // Suricata 7.0.10 answers false on every transaction, the flag set or not.
    put(lua, c, "DnsGetRecursionDesired", [Value::Boolean(false)]);
    Ok(())
}
