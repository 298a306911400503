//! The values of the transaction getters (`HttpGet*`, `DnsGet*`, `TlsGet*`, `SshGet*`,
//! `Hassh*`, `Ja3*`), read from a transaction through the
//! app layer's contract only: its inspection buffers ([`app::Transaction::buffers`])
//! and its EVE object ([`app::Transaction::log`]). They are put in the call's context
//! table, each under the function's name as the list of values it returns, before
//! `match` runs; a getter of another protocol, or a value the transaction does not
//! have, returns nothing (as Suricata's do).

use app::{AppProto, BufferId, Direction, Transaction};
use mlua::{Lua, Table, Value};
use serde_json::Value as J;

use super::api::put;

/// Which getter families a script calls (found in its source when it is loaded).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Uses {
    pub http: bool,
    pub dns: bool,
    pub tls: bool,
    pub ja3: bool,
    pub ssh: bool,
}

impl Uses {
    /// The families `source` names.
    pub(crate) fn of(source: &str) -> Uses {
        Uses {
            http: source.contains("HttpGet"),
            dns: source.contains("DnsGet"),
            tls: source.contains("TlsGet"),
            ja3: source.contains("Ja3"),
            ssh: source.contains("SshGet") || source.contains("Hassh"),
        }
    }
}

/// The first instance of buffer `name` of `tx` seen in `dir`.
fn buf(tx: &dyn Transaction, name: &str, dir: Direction) -> Option<Vec<u8>> {
    let b = BufferId::of(tx.proto(), name)?;
    let mut out = None;
    tx.buffers(b, dir, &mut |x| {
        if out.is_none() {
            out = Some(x.to_vec());
        }
    });
    out
}

/// Puts buffer `name` of `tx` (seen in `dir`) as the one value of getter `f`.
fn put_buf(lua: &Lua, c: &Table, f: &str, tx: &dyn Transaction, name: &str, dir: Direction) {
    if let Some(b) = buf(tx, name, dir) {
        if let Ok(s) = lua.create_string(&b) {
            put(lua, c, f, [Value::String(s)]);
        }
    }
}

/// Fills `c` with the getters of `uses` that apply to `tx`.
pub(super) fn fill(
    lua: &Lua,
    c: &Table,
    uses: Uses,
    tx: &dyn Transaction,
    body: Option<(&str, &[u8])>,
) -> mlua::Result<()> {
    let (s, cl) = (Direction::ToServer, Direction::ToClient);
    match tx.proto() {
        AppProto::Http if uses.http => {
            put_buf(lua, c, "HttpGetRequestHost", tx, "http.host", s);
            put_buf(lua, c, "HttpGetRequestUriRaw", tx, "http.uri.raw", s);
            put_buf(lua, c, "HttpGetRequestUriNormalized", tx, "http.uri", s);
            put_buf(lua, c, "HttpGetRequestLine", tx, "http.request_line", s);
            put_buf(lua, c, "HttpGetResponseLine", tx, "http.response_line", cl);
            put_buf(lua, c, "HttpGetRawRequestHeaders", tx, "http.header.raw", s);
            put_buf(
                lua,
                c,
                "HttpGetRawResponseHeaders",
                tx,
                "http.header.raw",
                cl,
            );
            for (dir, all, one) in [
                (s, "HttpGetRequestHeaders", "req_headers"),
                (cl, "HttpGetResponseHeaders", "resp_headers"),
            ] {
                if let Some(h) = buf(tx, "http.header", dir) {
                    let (t, lc) = headers(lua, &h)?;
                    put(lua, c, all, [Value::Table(t)]);
                    c.set(one, lc)?;
                }
            }
            // The bodies go to a script that needs them, as one chunk, with the
            // offsets of its first and last byte.
            if let Some((key, b)) = body {
                let f = match key {
                    "http.request_body" => "HttpGetRequestBody",
                    _ => "HttpGetResponseBody",
                };
                let t = lua.create_table()?;
                t.set(1, lua.create_string(b)?)?;
                put(
                    lua,
                    c,
                    f,
                    [
                        Value::Table(t),
                        Value::Integer(0),
                        Value::Integer(b.len() as i64),
                    ],
                );
            }
        }
        AppProto::Dns if uses.dns => super::txdns::fill(lua, c, tx)?,
        AppProto::Tls => {
            if uses.ja3 {
                put_buf(lua, c, "Ja3GetHash", tx, "ja3.hash", s);
                put_buf(lua, c, "Ja3GetString", tx, "ja3.string", s);
                put_buf(lua, c, "Ja3SGetHash", tx, "ja3s.hash", cl);
                put_buf(lua, c, "Ja3SGetString", tx, "ja3s.string", cl);
            }
            if uses.tls {
                tls(lua, c, tx)?;
            }
        }
        AppProto::Ssh if uses.ssh => {
            put_buf(lua, c, "SshGetServerProtoVersion", tx, "ssh.proto", cl);
            put_buf(
                lua,
                c,
                "SshGetServerSoftwareVersion",
                tx,
                "ssh.software",
                cl,
            );
            put_buf(lua, c, "SshGetClientProtoVersion", tx, "ssh.proto", s);
            put_buf(lua, c, "SshGetClientSoftwareVersion", tx, "ssh.software", s);
            put_buf(lua, c, "HasshGet", tx, "ssh.hassh", s);
            put_buf(lua, c, "HasshGetString", tx, "ssh.hassh.string", s);
            put_buf(lua, c, "HasshServerGet", tx, "ssh.hassh.server", cl);
            put_buf(
                lua,
                c,
                "HasshServerGetString",
                tx,
                "ssh.hassh.server.string",
                cl,
            );
        }
        _ => {}
    }
    Ok(())
}

/// The header table (`Name = value`, as the headers are named) and its lower-case
/// index from the `http.header` buffer (`Name: value\r\n` lines).
fn headers(lua: &Lua, h: &[u8]) -> mlua::Result<(Table, Table)> {
    let (t, lc) = (lua.create_table()?, lua.create_table()?);
    for line in h.split(|&b| b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let Some(i) = line.iter().position(|&b| b == b':') else {
            continue;
        };
        let (name, mut val) = (&line[..i], &line[i + 1..]);
        while let [b' ' | b'\t', rest @ ..] = val {
            val = rest;
        }
        let v = lua.create_string(val)?;
        t.set(lua.create_string(name)?, v.clone())?;
        lc.set(lua.create_string(name.to_ascii_lowercase())?, v)?;
    }
    Ok((t, lc))
}

/// The TLS getters from the transaction's buffers and its EVE object.
fn tls(lua: &Lua, c: &Table, tx: &dyn Transaction) -> mlua::Result<()> {
    let cl = Direction::ToClient;
    put_buf(lua, c, "TlsGetSNI", tx, "tls.sni", Direction::ToServer);
    put_buf(lua, c, "TlsGetCertSerial", tx, "tls.cert_serial", cl);
    let mut eve = J::Null;
    tx.log(true, &mut |_, v| {
        if eve.is_null() {
            eve = v;
        }
    });
    let str_of = |k: &str| eve.get(k).and_then(J::as_str).map(str::to_owned);
    if let Some(v) = str_of("version") {
        put(
            lua,
            c,
            "TlsGetVersion",
            [Value::String(lua.create_string(&v)?)],
        );
    }
    for (f, k) in [
        ("TlsGetCertNotBefore", "notbefore"),
        ("TlsGetCertNotAfter", "notafter"),
    ] {
        if let Some(t) = str_of(k).as_deref().and_then(epoch) {
            put(lua, c, f, [Value::Integer(t)]);
        }
    }
    let subject = buf(tx, "tls.cert_subject", cl);
    if let Some(subject) = subject {
        let s = |x: Option<Vec<u8>>| -> mlua::Result<Value> {
            Ok(match x {
                Some(x) => Value::String(lua.create_string(&x)?),
                None => Value::Nil,
            })
        };
        let version = str_of("version").map(|v| v.into_bytes());
        put(
            lua,
            c,
            "TlsGetCertInfo",
            [
                s(version)?,
                s(Some(subject))?,
                s(buf(tx, "tls.cert_issuer", cl))?,
                s(buf(tx, "tls.cert_fingerprint", cl))?,
            ],
        );
    }
    let chain = lua.create_table()?;
    if let Some(b) = BufferId::of(AppProto::Tls, "tls.certs") {
        let mut certs = Vec::new();
        tx.buffers(b, cl, &mut |x| certs.push(x.to_vec()));
        for (i, der) in certs.iter().enumerate() {
            let e = lua.create_table()?;
            e.set("length", der.len() as i64)?;
            e.set("data", lua.create_string(der)?)?;
            chain.set(i as i64 + 1, e)?;
        }
    }
    put(lua, c, "TlsGetCertChain", [Value::Table(chain)]);
    Ok(())
}

/// Seconds since the epoch of an EVE time (`2019-06-20T12:00:00`, UTC).
pub(super) fn epoch(t: &str) -> Option<i64> {
    let num = |r: std::ops::Range<usize>| t.get(r)?.parse::<i64>().ok();
    let (y, m, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (hh, mm, ss) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    // Days from the civil date (proleptic Gregorian).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(days * 86_400 + hh * 3600 + mm * 60 + ss)
}
