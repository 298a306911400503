//! `lua` / `luajit` detection scripts with Suricata 7's Lua detection API.
//!
//! A script is read and checked once, when its rule is compiled: it must define
//! `init(args)`, returning the `needs` table, and `match(args)`, returning 1 for a match
//! (anything else: no match). A script that cannot be read, does not load or whose
//! `init` fails makes the rule fail with the reason. Each worker thread then runs its
//! own interpreter per script (created on the thread's first use; `init` runs again
//! there), so workers share no Lua state.
//!
//! Lua rules are refused unless `security.lua.allow-rules` is true, as Suricata 7.0.10
//! does. Relative script names are resolved against `default-rule-path`, else the
//! directory of the rule file.
//!
//! **Supported needs**: `needs["packet"]` (`args["packet"]`: the packet's bytes from the
//! link header on) and `needs["payload"]` (`args["payload"]`: the packet's payload;
//! the script runs only on packets that have one, as Suricata's payload inspection).
//! Scripts naming a sticky buffer (`needs["buffer"]`, `needs["http.uri"]`,
//! `needs["http.request_line"]`, `needs["dns.rrname"]`, `needs["tls"]`, `needs["ssh"]`
//! ...) or declaring `flowvar`/`flowint`/`bytevar` variables make the rule unsupported
//! (reported, never silently evaluated differently).
//!
//! **Functions** a script may call: `SCPacketPayload()`, `SCPacketTimestamp()`
//! (seconds, microseconds), `SCPacketTuple()` (ip version, source, destination,
//! protocol, source port, destination port), `SCFlowTuple()` (the same from the
//! client's side), `SCFlowAppLayerProto()` (the flow's application protocol; its
//! to-server, to-client, original and expected protocols are reported as the same
//! name), `SCFlowTimestamps()` (first and current packet: seconds, microseconds; the
//! first packet's microseconds are not kept and read 0), `SCLogInfo`/`SCLogNotice`/
//! `SCLogWarning`/`SCLogError`/`SCLogDebug`/`SCLogConfig`/`SCLogPerf`. Not available:
//! `SCFlowStats`, `SCFlowHasAlerts`, `SCFlowvar*`/`SCFlowint*`, and the protocol
//! getters (`HttpGet*`, `DnsGet*`, `TlsGet*`, `SshGet*`, `SCByteVarGet`): they go
//! with the buffer scripts above.
//!
//! **Sandbox**: only the `base`, `string`, `table` and `math` libraries are loaded,
//! and `dofile`, `loadfile`, `load`, `loadstring`, `require` and `module` are removed,
//! so scripts reach neither files, processes nor other modules (`os`, `io`, `package`
//! and `debug` do not exist). Each call is limited in instructions
//! ([`LuaConfig::max_instructions`]) and the interpreter in memory
//! ([`LuaConfig::max_bytes`]); a script over a limit, or raising an error, does not
//! match and is counted ([`counters`]); nothing panics.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use mlua::{Function, HookTriggers, Lua, LuaOptions, StdLib, Table, Value, VmState};

use crate::input::FlowInfo;
use crate::sig::{failed, unsupported, Refusal};

/// Lua settings (`security.lua` and where scripts are found).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LuaConfig {
    /// `security.lua.allow-rules` (Suricata's default: false).
    pub allow_rules: bool,
    /// `default-rule-path`: relative script names are resolved here first.
    pub rule_path: Option<PathBuf>,
    /// Most Lua instructions one `match` call may run.
    pub max_instructions: u64,
    /// Most bytes one script's interpreter may allocate.
    pub max_bytes: usize,
}

impl Default for LuaConfig {
    fn default() -> Self {
        LuaConfig {
            allow_rules: false,
            rule_path: None,
            max_instructions: 500_000,
            max_bytes: 500_000,
        }
    }
}

/// Scripts that raised an error (limits included).
static ERRORS: AtomicU64 = AtomicU64::new(0);
/// Calls stopped by the instruction limit.
static INSTRUCTION_LIMIT: AtomicU64 = AtomicU64::new(0);
/// Calls stopped by the memory limit.
static MEMORY_LIMIT: AtomicU64 = AtomicU64::new(0);
/// Calls to a function the sandbox removed.
static BLOCKED: AtomicU64 = AtomicU64::new(0);

/// The process-wide Lua counters, with Suricata's stats names: errors, blocked
/// functions, instruction-limit and memory-limit stops.
pub fn counters() -> [(&'static str, u64); 4] {
    [
        ("detect.lua.errors", ERRORS.load(Ordering::Relaxed)),
        (
            "detect.lua.blocked_function_errors",
            BLOCKED.load(Ordering::Relaxed),
        ),
        (
            "detect.lua.instruction_limit_errors",
            INSTRUCTION_LIMIT.load(Ordering::Relaxed),
        ),
        (
            "detect.lua.memory_limit_errors",
            MEMORY_LIMIT.load(Ordering::Relaxed),
        ),
    ]
}

/// Whether a Lua rule was compiled in this process (the counters are reported then).
static USED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// [`counters`] when a Lua rule was loaded in this process, else none (runs without
/// Lua rules report no Lua counters, as Suricata 7.0.10 reports none).
pub fn counters_if_used() -> Vec<(&'static str, u64)> {
    if USED.load(Ordering::Relaxed) {
        counters().to_vec()
    } else {
        Vec::new()
    }
}

/// What a script asked for in `init`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Needs {
    packet: bool,
    payload: bool,
}

/// A loaded script, shared by the workers.
#[derive(Debug)]
struct Script {
    /// Key of the per-thread interpreters.
    id: u64,
    /// The resolved file (for messages).
    path: PathBuf,
    source: String,
    needs: Needs,
    max_instructions: u64,
    max_bytes: usize,
}

/// A compiled `lua` option.
#[derive(Debug, Clone)]
pub(crate) struct LuaC {
    script: Arc<Script>,
    negated: bool,
}

/// Functions the sandbox removes from the base library.
const REMOVED: [&str; 6] = [
    "dofile",
    "loadfile",
    "load",
    "loadstring",
    "require",
    "module",
];

/// Where script `file` is: absolute as written, else under `rule_path`, else next to
/// the rule file, else as written.
fn resolve(file: &str, cfg: &LuaConfig, rule_file: Option<&Path>) -> PathBuf {
    let f = Path::new(file);
    if f.is_absolute() {
        return f.to_path_buf();
    }
    let candidates = [
        cfg.rule_path.as_ref().map(|d| d.join(f)),
        rule_file.and_then(Path::parent).map(|d| d.join(f)),
    ];
    candidates
        .into_iter()
        .flatten()
        .find(|p| p.is_file())
        .unwrap_or_else(|| f.to_path_buf())
}

/// Compiles `lua:[!]file`: reads and loads the script, runs its `init`.
pub(crate) fn compile(
    opt: &rules::keywords::LuaScript,
    cfg: &LuaConfig,
    rule_file: Option<&Path>,
) -> Result<LuaC, Refusal> {
    if !cfg.allow_rules {
        return Err(failed(
            "lua",
            "Lua rules disabled by security configuration: security.lua.allow-rules",
        ));
    }
    static IDS: AtomicU64 = AtomicU64::new(0);
    let path = resolve(&opt.file, cfg, rule_file);
    let source = std::fs::read_to_string(&path)
        .map_err(|e| failed("lua", format!("lua script {}: {e}", path.display())))?;
    let mut script = Script {
        id: IDS.fetch_add(1, Ordering::Relaxed),
        path,
        source,
        needs: Needs {
            packet: false,
            payload: false,
        },
        max_instructions: cfg.max_instructions,
        max_bytes: cfg.max_bytes,
    };
    let (_, needs) = State::new(&script).map_err(|e| {
        let msg = format!("lua script {}: {e}", script.path.display());
        if e.starts_with("needs ") {
            unsupported("lua", msg)
        } else {
            failed("lua", msg)
        }
    })?;
    script.needs = needs;
    USED.store(true, Ordering::Relaxed);
    Ok(LuaC {
        script: Arc::new(script),
        negated: opt.negated,
    })
}

/// One interpreter running one script.
struct State {
    lua: Lua,
    match_fn: Function,
    /// Instructions counted in the current call (by the hook, in steps).
    used: Rc<Cell<u64>>,
}

/// Instructions between two runs of the limit hook.
const HOOK_STEP: u32 = 1000;

impl State {
    /// A sandboxed interpreter with the script loaded and `init` run.
    fn new(s: &Script) -> Result<(State, Needs), String> {
        let libs = StdLib::STRING | StdLib::TABLE | StdLib::MATH;
        let lua = Lua::new_with(libs, LuaOptions::default()).map_err(|e| e.to_string())?;
        let g = lua.globals();
        for name in REMOVED {
            let f = lua
                .create_function(move |_, ()| -> mlua::Result<()> {
                    BLOCKED.fetch_add(1, Ordering::Relaxed);
                    Err(mlua::Error::runtime(format!("{name} is not allowed")))
                })
                .map_err(|e| e.to_string())?;
            g.set(name, f).map_err(|e| e.to_string())?;
        }
        register_api(&lua).map_err(|e| e.to_string())?;
        let used = Rc::new(Cell::new(0u64));
        let (u, max) = (used.clone(), s.max_instructions);
        lua.set_hook(
            HookTriggers::new().every_nth_instruction(HOOK_STEP),
            move |_, _| {
                u.set(u.get() + HOOK_STEP as u64);
                if u.get() > max {
                    return Err(mlua::Error::runtime("instruction limit reached"));
                }
                Ok(VmState::Continue)
            },
        )
        .map_err(|e| e.to_string())?;
        let mem = lua.used_memory();
        lua.set_memory_limit(mem + s.max_bytes)
            .map_err(|e| e.to_string())?;
        let name = s.path.display().to_string();
        lua.load(s.source.as_str())
            .set_name(format!("@{name}"))
            .exec()
            .map_err(|e| e.to_string())?;
        let init: Function = g
            .get("init")
            .map_err(|_| "the script defines no init function".to_string())?;
        let match_fn: Function = g
            .get("match")
            .map_err(|_| "the script defines no match function".to_string())?;
        let args = lua.create_table().map_err(|e| e.to_string())?;
        used.set(0);
        let needs: Table = init.call(args).map_err(|e| format!("init failed: {e}"))?;
        let needs = read_needs(&needs)?;
        Ok((
            State {
                lua,
                match_fn,
                used,
            },
            needs,
        ))
    }
}

/// Reads the `needs` table `init` returned.
fn read_needs(t: &Table) -> Result<Needs, String> {
    let mut n = Needs {
        packet: false,
        payload: false,
    };
    for pair in t.pairs::<Value, Value>() {
        let (k, v) = pair.map_err(|e| e.to_string())?;
        let key = match &k {
            Value::String(s) => s.to_string_lossy().to_string(),
            _ => continue,
        };
        let on = !matches!(v, Value::Nil | Value::Boolean(false));
        match key.as_str() {
            "packet" if on => n.packet = true,
            "payload" if on => n.payload = true,
            "packet" | "payload" => {}
            other => return Err(format!("needs \"{other}\": not supported by Osprey")),
        }
    }
    if !n.packet && !n.payload {
        return Err("needs neither \"packet\" nor \"payload\": not supported by Osprey".into());
    }
    Ok(n)
}

/// Name of the registry slot holding the current call's context table.
const CTX: &str = "osprey.lua.ctx";

/// Registers the Suricata API functions: each reads the current call's context.
fn register_api(lua: &Lua) -> mlua::Result<()> {
    let g = lua.globals();
    let ctx = |lua: &Lua| lua.named_registry_value::<Table>(CTX);
    g.set(
        "SCPacketPayload",
        lua.create_function(move |lua, ()| ctx(lua)?.get::<Value>("payload"))?,
    )?;
    g.set(
        "SCPacketTimestamp",
        lua.create_function(move |lua, ()| {
            let c = ctx(lua)?;
            Ok((c.get::<i64>("ts_s")?, c.get::<i64>("ts_us")?))
        })?,
    )?;
    g.set(
        "SCFlowTimestamps",
        lua.create_function(move |lua, ()| {
            let c = ctx(lua)?;
            if !c.get::<bool>("flow")? {
                return Ok(mlua::MultiValue::new());
            }
            let v = [c.get("first_s")?, 0, c.get("ts_s")?, c.get("ts_us")?];
            Ok(v.into_iter().map(Value::Integer).collect())
        })?,
    )?;
    for (name, flow) in [("SCPacketTuple", false), ("SCFlowTuple", true)] {
        g.set(
            name,
            lua.create_function(move |lua, ()| {
                let c = ctx(lua)?;
                if flow && !c.get::<bool>("flow")? {
                    return Ok(mlua::MultiValue::new());
                }
                let swap = flow && !c.get::<bool>("to_server")?;
                let (a, b) = if swap { ("dst", "src") } else { ("src", "dst") };
                let (pa, pb) = if swap { ("dp", "sp") } else { ("sp", "dp") };
                let mut v = mlua::MultiValue::new();
                for k in ["ipver", a, b, "proto", pa, pb] {
                    v.push_back(c.get::<Value>(k)?);
                }
                Ok(v)
            })?,
        )?;
    }
    g.set(
        "SCFlowAppLayerProto",
        lua.create_function(move |lua, ()| {
            let c = ctx(lua)?;
            if !c.get::<bool>("flow")? {
                return Ok(mlua::MultiValue::new());
            }
            let p: Value = c.get("alproto")?;
            Ok(std::iter::repeat_n(p, 5).collect())
        })?,
    )?;
    for name in [
        "SCLogInfo",
        "SCLogNotice",
        "SCLogWarning",
        "SCLogError",
        "SCLogDebug",
        "SCLogConfig",
        "SCLogPerf",
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
    Ok(())
}

/// The address of a packet side as Suricata's Lua API prints it.
fn addr(p: &wire::Packet, a: &[u8; 16]) -> String {
    if p.ip_version == 4 {
        std::net::Ipv4Addr::new(a[0], a[1], a[2], a[3]).to_string()
    } else {
        std::net::Ipv6Addr::from(*a).to_string()
    }
}

thread_local! {
    /// This thread's interpreters, by script id (`None`: creating it failed).
    static STATES: RefCell<HashMap<u64, Option<State>>> = RefCell::new(HashMap::new());
}

impl LuaC {
    /// Whether the script matches packet `p` (`frame`: its bytes).
    pub(crate) fn matches(&self, p: &wire::Packet, frame: &[u8], flow: Option<FlowInfo>) -> bool {
        let s = &self.script;
        let off = p.payload_off as usize;
        let payload = frame
            .get(off..off.saturating_add(p.payload_len as usize))
            .unwrap_or(&[]);
        if s.needs.payload && !s.needs.packet && payload.is_empty() {
            return false;
        }
        let r = STATES.with(|states| {
            let mut states = states.borrow_mut();
            let st = states.entry(s.id).or_insert_with(|| match State::new(s) {
                Ok((st, _)) => Some(st),
                Err(e) => {
                    ERRORS.fetch_add(1, Ordering::Relaxed);
                    tracing::warn!("lua script {}: {e}", s.path.display());
                    None
                }
            });
            let st = st.as_mut()?;
            Some(run(st, s, p, frame, payload, flow))
        });
        match r {
            Some(Ok(m)) => m != self.negated,
            Some(Err(e)) => {
                count_error(&e);
                tracing::debug!("lua script {}: {e}", s.path.display());
                false
            }
            None => false,
        }
    }
}

/// Counts a failed call by its cause.
fn count_error(e: &mlua::Error) {
    ERRORS.fetch_add(1, Ordering::Relaxed);
    let text = e.to_string();
    if matches!(e, mlua::Error::MemoryError(_)) || text.contains("not enough memory") {
        MEMORY_LIMIT.fetch_add(1, Ordering::Relaxed);
    } else if text.contains("instruction limit reached") {
        INSTRUCTION_LIMIT.fetch_add(1, Ordering::Relaxed);
    }
}

/// One `match` call: the context and `args` set, the result read.
fn run(
    st: &State,
    s: &Script,
    p: &wire::Packet,
    frame: &[u8],
    payload: &[u8],
    flow: Option<FlowInfo>,
) -> mlua::Result<bool> {
    let lua = &st.lua;
    let c = lua.create_table()?;
    let pl = lua.create_string(payload)?;
    c.set("payload", pl.clone())?;
    c.set("ts_s", p.ts.secs() as i64)?;
    c.set("ts_us", (p.ts.subsec_nanos() / 1000) as i64)?;
    c.set("ipver", p.ip_version as i64)?;
    c.set("src", addr(p, &p.src))?;
    c.set("dst", addr(p, &p.dst))?;
    c.set("proto", p.proto as i64)?;
    c.set("sp", p.sport as i64)?;
    c.set("dp", p.dport as i64)?;
    c.set("flow", flow.is_some())?;
    if let Some(f) = flow {
        c.set("to_server", f.to_server)?;
        c.set("first_s", f.counts.first_secs as i64)?;
        c.set("alproto", f.app_proto.name())?;
    }
    lua.set_named_registry_value(CTX, c)?;
    let args = lua.create_table()?;
    if s.needs.payload {
        args.set("payload", pl)?;
    }
    if s.needs.packet {
        args.set("packet", lua.create_string(frame)?)?;
    }
    st.used.set(0);
    let r: Value = st.match_fn.call(args)?;
    Ok(match r {
        Value::Integer(n) => n == 1,
        Value::Number(n) => n == 1.0,
        _ => false,
    })
}

#[cfg(test)]
mod tests;
