//! The functions of Suricata 7's Lua API a detection script may call. Each reads the
//! current call's context table (set before `match` runs): the packet functions
//! (`SCPacketPayload`, `SCPacketTimestamp`, `SCPacketTimeString`, `SCPacketTuple`)
//! answer on packet scripts, the flow functions (`SCFlowTuple`, `SCFlowTimestamps`,
//! `SCFlowAppLayerProto`, `SCFlowStats`, `SCFlowHasAlerts`) wherever there is a flow,
//! the transaction getters ([`super::txdata`]) on transaction scripts; elsewhere a
//! function returns nothing, as Suricata's do. `SCLog*` log through `tracing`.

use mlua::{Lua, MultiValue, Table, Value};

/// Name of the registry slot holding the current call's context table.
pub(super) const CTX: &str = "osprey.lua.ctx";

/// The transaction getters: each returns the values its context entry lists.
const GETTERS: &[&str] = &[
    "HttpGetRequestHost",
    "HttpGetRequestUriRaw",
    "HttpGetRequestUriNormalized",
    "HttpGetRequestLine",
    "HttpGetResponseLine",
    "HttpGetRawRequestHeaders",
    "HttpGetRawResponseHeaders",
    "HttpGetRequestHeaders",
    "HttpGetResponseHeaders",
    "HttpGetRequestBody",
    "HttpGetResponseBody",
    "DnsGetQueries",
    "DnsGetAnswers",
    "DnsGetAuthorities",
    "DnsGetDnsRrname",
    "DnsGetRcode",
    "DnsGetRecursionDesired",
    "DnsGetTxid",
    "TlsGetVersion",
    "TlsGetCertInfo",
    "TlsGetCertChain",
    "TlsGetCertNotAfter",
    "TlsGetCertNotBefore",
    "TlsGetCertSerial",
    "TlsGetSNI",
    "SshGetServerProtoVersion",
    "SshGetServerSoftwareVersion",
    "SshGetClientProtoVersion",
    "SshGetClientSoftwareVersion",
    "HasshGet",
    "HasshGetString",
    "HasshServerGet",
    "HasshServerGetString",
    "Ja3GetHash",
    "Ja3GetString",
    "Ja3SGetHash",
    "Ja3SGetString",
    "SCPacketPayload",
    "SCPacketTimestamp",
    "SCPacketTimeString",
    "SCPacketTuple",
    "SCFlowTuple",
    "SCFlowTimestamps",
    "SCFlowAppLayerProto",
    "SCFlowStats",
    "SCFlowHasAlerts",
];

/// Sets getter `f`'s return values in context `c`: a list table with its length in
/// `n` (values may be nil).
pub(super) fn put<const N: usize>(lua: &Lua, c: &Table, f: &str, vals: [Value; N]) {
    let set = || -> mlua::Result<()> {
        let t = lua.create_table()?;
        for (i, v) in vals.into_iter().enumerate() {
            t.raw_set(i as i64 + 1, v)?;
        }
        t.raw_set("n", N as i64)?;
        c.raw_set(f, t)
    };
    // Only an allocation failure (the memory limit) fails: the getter then returns
    // nothing, and the script's next allocation meets the same limit.
    let _ = set();
}

/// Registers the API functions.
pub(super) fn register(lua: &Lua) -> mlua::Result<()> {
    let g = lua.globals();
    let ctx = |lua: &Lua| lua.named_registry_value::<Table>(CTX);
    for &name in GETTERS {
        g.set(
            name,
            lua.create_function(move |lua, ()| {
                let Some(t) = ctx(lua)?.raw_get::<Option<Table>>(name)? else {
                    return Ok(MultiValue::new());
                };
                let n: i64 = t.raw_get("n")?;
                (1..=n).map(|i| t.raw_get::<Value>(i)).collect()
            })?,
        )?;
    }
    for (name, key) in [
        ("HttpGetRequestHeader", "req_headers"),
        ("HttpGetResponseHeader", "resp_headers"),
    ] {
        g.set(
            name,
            lua.create_function(move |lua, h: mlua::LuaString| {
                let Some(t) = ctx(lua)?.raw_get::<Option<Table>>(key)? else {
                    return Ok(Value::Nil);
                };
                let k = h.as_bytes().to_ascii_lowercase();
                t.raw_get::<Value>(lua.create_string(&k)?)
            })?,
        )?;
    }
    for name in [
        "SCLogInfo",
        "SCLogNotice",
        "SCLogWarning",
        "SCLogError",
        "SCLogDebug",
    ] {
        g.set(
            name,
            lua.create_function(move |_, msg: mlua::LuaString| {
                let m = msg.to_string_lossy();
                match name {
                    "SCLogError" => tracing::error!(target: "lua", "{m}"),
                    "SCLogWarning" => tracing::warn!(target: "lua", "{m}"),
                    "SCLogDebug" => tracing::debug!(target: "lua", "{m}"),
                    _ => tracing::info!(target: "lua", "{m}"),
                }
                Ok(())
            })?,
        )?;
    }
    super::file::register(lua)?;
    super::vars::register(lua)
}
