//! The `needs` table a script's `init` returns, as Suricata 7.0.10 reads it: what the
//! script inspects (the packet, its payload, a sticky buffer, an application-layer
//! buffer or a whole transaction) and the flow variables it reads and writes by index.

use std::sync::Arc;

use app::{AppProto, BufferId, Direction};
use mlua::{Table, Value};

/// What a transaction script inspects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TxNeed {
    /// The transactions' protocol.
    pub proto: AppProto,
    /// The buffer handed to `match` (as `args[key]`), if any: the script runs once per
    /// instance of the buffer the transaction has.
    pub buf: Option<BufferId>,
    /// The key of `args` the buffer goes under.
    pub key: String,
    /// The side the buffer (or, without a buffer, the transaction) must have reached:
    /// `dns.response` runs once the response is there.
    pub dir: Option<Direction>,
    /// The script runs in both directions and the rule alerts once in each, as
    /// Suricata's does for the header and cookie buffers, `tls` and `ssh`; otherwise
    /// it runs in the direction of `dir` only.
    pub both: bool,
}

/// What a script asked for in `init`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Needs {
    /// `needs["packet"]`: `args["packet"]`, the packet's bytes from the link header on.
    pub packet: bool,
    /// `needs["payload"]`: `args["payload"]`; the script runs only on packets with one.
    pub payload: bool,
    /// A transaction script (protocol buffers, `tls`, `ssh`, `dns.*`, a sticky buffer).
    pub tx: Option<TxNeed>,
    /// `needs["flowvar"]`: the flow variables `ScFlowvarGet/Set` name by index.
    pub flowvars: Vec<Arc<str>>,
    /// `needs["flowint"]`: the flow integers `ScFlowint*` name by index.
    pub flowints: Vec<String>,
}

/// The transaction needs Suricata 7.0.10 knows: (name, protocol, buffer, side, both
/// directions). Which run in both directions was checked on Suricata 7.0.10
/// (tests/data/http-files.pcap, keywords24.pcap, issue24a.pcap, lists-dns.pcap).
type TxNeedDef = (
    &'static str,
    AppProto,
    Option<&'static str>,
    Option<Direction>,
    bool,
);
const TX_NEEDS: &[TxNeedDef] = {
    use AppProto::{Dns, Http, Ssh, Tls};
    use Direction::{ToClient as C, ToServer as S};
    &[
        ("http.uri", Http, Some("http.uri"), Some(S), false),
        ("http.uri.raw", Http, Some("http.uri.raw"), Some(S), false),
        (
            "http.request_line",
            Http,
            Some("http.request_line"),
            Some(S),
            false,
        ),
        (
            "http.request_headers",
            Http,
            Some("http.header"),
            Some(S),
            true,
        ),
        (
            "http.request_headers.raw",
            Http,
            Some("http.header.raw"),
            Some(S),
            true,
        ),
        (
            "http.request_cookie",
            Http,
            Some("http.cookie"),
            Some(S),
            true,
        ),
        (
            "http.request_user_agent",
            Http,
            Some("http.user_agent"),
            Some(S),
            false,
        ),
        (
            "http.request_body",
            Http,
            Some("http.request_body"),
            Some(S),
            false,
        ),
        (
            "http.response_headers",
            Http,
            Some("http.header"),
            Some(C),
            true,
        ),
        (
            "http.response_headers.raw",
            Http,
            Some("http.header.raw"),
            Some(C),
            true,
        ),
        // Suricata 7.0.10 hands the script the file data of the direction it
        // inspects: without `flow:to_client` the request's body too (checked on
        // tests/data/http-files.pcap, keywords_lua_files.rs).
        ("http.response_body", Http, Some("file.data"), None, true),
        (
            "http.response_cookie",
            Http,
            Some("http.cookie"),
            Some(C),
            true,
        ),
        ("dns.rrname", Dns, Some("dns.query"), Some(S), false),
        ("dns.request", Dns, None, Some(S), false),
        ("dns.response", Dns, None, Some(C), false),
        ("tls", Tls, None, None, true),
        ("ssh", Ssh, None, None, true),
    ]
};

/// Whether `v` turns a need on (Suricata's scripts write `tostring(true)`).
fn on(v: &Value) -> bool {
    !matches!(v, Value::Nil | Value::Boolean(false))
}

/// The names of a `flowvar`/`flowint` list (`{"a", "b"}`), in index order.
fn names(v: &Value, what: &str) -> Result<Vec<String>, String> {
    let Value::Table(t) = v else {
        return Err(format!("needs \"{what}\" must be a table of names"));
    };
    let mut out = Vec::new();
    for n in t.clone().sequence_values::<mlua::LuaString>() {
        let n = n.map_err(|e| format!("needs \"{what}\": {e}"))?;
        out.push(n.to_string_lossy().to_string());
    }
    Ok(out)
}

/// Reads the `needs` table `init` returned; `sticky` is the sticky buffer the `lua`
/// keyword follows in the rule. An error starting with `needs ` names a need Osprey
/// does not evaluate (the rule is then unsupported); others make the rule fail, as
/// Suricata fails a script with a need it does not know.
pub(crate) fn read(t: &Table, sticky: Option<BufferId>) -> Result<Needs, String> {
    let mut n = Needs::default();
    for pair in t.pairs::<Value, Value>() {
        let (k, v) = pair.map_err(|e| e.to_string())?;
        let key = match &k {
            Value::String(s) => s.to_string_lossy().to_string(),
            _ => continue,
        };
        match key.as_str() {
            "packet" => n.packet = on(&v),
            "payload" => n.payload = on(&v),
            "flowvar" => n.flowvars = names(&v, "flowvar")?.into_iter().map(Into::into).collect(),
            "flowint" => n.flowints = names(&v, "flowint")?,
            "buffer" if on(&v) => {
                let Some(b) = sticky else {
                    return Err(
                        "needs \"buffer\" but the lua keyword follows no sticky buffer".into(),
                    );
                };
                set_tx(
                    &mut n,
                    b.proto(),
                    Some(b),
                    "buffer",
                    b.direction(),
                    b.direction().is_none(),
                )?;
            }
            "stream" | "bytevar" | "smtp" | "dnp3" | "modbus" if on(&v) => {
                return Err(format!("needs \"{key}\": not supported by Osprey"))
            }
            "buffer" | "stream" | "bytevar" | "smtp" | "dnp3" | "modbus" => {}
            other => match TX_NEEDS.iter().find(|x| x.0 == other) {
                Some(&(name, proto, buf, dir, both)) if on(&v) => {
                    let buf = match buf {
                        Some(b) => Some(BufferId::of(proto, b).ok_or_else(|| {
                            format!("needs \"{name}\": not supported by Osprey (no {b} buffer)")
                        })?),
                        None => None,
                    };
                    let key = if buf.is_some() { name } else { "" };
                    set_tx(&mut n, proto, buf, key, dir, both)?;
                }
                Some(_) => {}
                // Suricata's words; the output scripts' `type`, `protocol` and
                // `filter` (files included) are not needs of a rule's script.
                None => return Err(format!("unsupported data type {other}")),
            },
        }
    }
    if n.tx.is_none() {
        if let Some(b) = sticky {
            // After a sticky buffer the script inspects that buffer's transactions.
            let both = b.direction().is_none();
            set_tx(&mut n, b.proto(), Some(b), "buffer", b.direction(), both)?;
        }
    }
    if n.tx.is_some() && (n.packet || n.payload) {
        return Err("needs a transaction buffer and the packet: not supported by Osprey".into());
    }
    Ok(n)
}

fn set_tx(
    n: &mut Needs,
    proto: AppProto,
    buf: Option<BufferId>,
    key: &str,
    dir: Option<Direction>,
    both: bool,
) -> Result<(), String> {
    if let Some(t) = &n.tx {
        if t.proto != proto || t.buf.is_some() && buf.is_some() && t.buf != buf {
            return Err(format!(
                "needs two buffers ({} and {key}): Suricata inspects one per script",
                t.key
            ));
        }
        if t.buf.is_some() {
            return Ok(());
        }
    }
    n.tx = Some(TxNeed {
        proto,
        buf,
        key: key.to_owned(),
        dir,
        both,
    });
    Ok(())
}
