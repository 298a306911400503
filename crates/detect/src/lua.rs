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
//! **Needs** ([`needs`]): `packet` and `payload` (`args["packet"]`, `args["payload"]`;
//! a payload script runs only on packets that have one; a script needing neither runs
//! on every packet with no arguments), the HTTP buffers (`http.uri`, `http.uri.raw`,
//! `http.request_line`, `http.request_headers[.raw]`, `http.request_cookie`,
//! `http.request_user_agent`, `http.request_body`, `http.response_headers[.raw]`,
//! `http.response_body`, `http.response_cookie`), `dns.rrname`, `dns.request`,
//! `dns.response`, `tls`, `ssh`, `buffer` (the sticky buffer the keyword follows) and
//! the `flowvar`/`flowint` name lists. A script needing a buffer runs once per instance
//! of it on each transaction (`args[<need>]`), one needing `tls`/`ssh`/`dns.*` once per
//! transaction: it is then a transaction rule of that protocol. `stream`, `bytevar`,
//! `smtp` and `dnp3` make the rule unsupported (reported, never evaluated differently);
//! a need Suricata does not know makes it fail, as Suricata's does ("unsupported data
//! type"), the output scripts' `type` (a file script's `needs["type"] = "file"`
//! included) among them: a rule's script cannot ask for files.
//!
//! **Functions** ([`api`]): the packet, flow and transaction getters of Suricata 7
//! (`SCPacket*`, `SCFlow*`, `HttpGet*`, `DnsGet*`, `TlsGet*`, `SshGet*`, `Hassh*`,
//! `Ja3*`), the flow variables ([`vars`]: `ScFlowvarGet/Set`, `ScFlowintGet/Set/Incr/
//! Decr`, also named `SC...`), the file functions as Suricata's detection engine
//! answers them ([`file`]: `SCFileInfo`, `SCFileState`, no file) and `SCLog*`. The
//! protocol getters read the transaction through the app layer's contract only
//! ([`txdata`], [`txdns`]). A script naming a function of Suricata's detection API
//! that Osprey does not provide makes its rule unsupported ([`coverage`]).
//!
//! **Sandbox**: only the `base`, `string`, `table` and `math` libraries are loaded,
//! and `dofile`, `loadfile`, `load`, `loadstring`, `require` and `module` are removed,
//! so scripts reach neither files, processes nor other modules (`os`, `io`, `package`
//! and `debug` do not exist). Each call is limited in instructions
//! ([`LuaConfig::max_instructions`]) and the interpreter in memory
//! ([`LuaConfig::max_bytes`]); a script over a limit, or raising an error, does not
//! match and is counted ([`counters`]); nothing panics.

mod api;
mod coverage;
mod file;
mod needs;
mod txdata;
mod txdns;
mod vars;

pub(crate) use vars::apply as apply_writes;

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use mlua::{Function, HookTriggers, Lua, LuaOptions, StdLib, Table, Value, VmState};

use crate::flowint::{FlowintOp, IntOp, Operand};
use crate::input::FlowInfo;
use crate::sig::{failed, unsupported, PktOpt, Refusal, Sig};
use crate::state::FlowDetect;
use api::put;
use needs::Needs;
use txdata::Uses;

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

/// A loaded script, shared by the workers.
#[derive(Debug)]
struct Script {
    /// Key of the per-thread interpreters.
    id: u64,
    /// The resolved file (for messages).
    path: PathBuf,
    source: String,
    /// The sticky buffer the keyword follows.
    sticky: Option<app::BufferId>,
    needs: Needs,
    /// The getter families the script calls.
    uses: Uses,
    max_instructions: u64,
    max_bytes: usize,
}

/// A compiled `lua` option.
#[derive(Debug, Clone)]
pub(crate) struct LuaC {
    script: Arc<Script>,
    negated: bool,
    /// The script's `needs["flowint"]` names, given the ids the rules' `flowint`
    /// keywords use when the detector is built ([`flowints_mut`]).
    ints: Vec<FlowintOp>,
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
    coverage::check(&source)
        .map_err(|e| unsupported("lua", format!("lua script {}: {e}", path.display())))?;
    let sticky = match opt.buffer {
        Some(b) => Some(
            crate::sig::app_buf(b)
                .ok_or_else(|| unsupported("lua", format!("lua after the {} buffer", b.name())))?,
        ),
        None => None,
    };
    let mut script = Script {
        id: IDS.fetch_add(1, Ordering::Relaxed),
        path,
        uses: Uses::of(&source),
        source,
        sticky,
        needs: Needs::default(),
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
    let ints = needs
        .flowints
        .iter()
        .map(|n| FlowintOp {
            name: n.clone(),
            id: 0,
            op: IntOp::IsSet,
            val: Operand::None,
        })
        .collect();
    script.needs = needs;
    USED.store(true, Ordering::Relaxed);
    Ok(LuaC {
        script: Arc::new(script),
        negated: opt.negated,
        ints,
    })
}

/// Adds `lua:[!]file` to `sig`: a packet option, or for a script that inspects
/// transactions a transaction condition of the script's protocol.
pub(crate) fn add(
    sig: &mut Sig,
    opt: &rules::keywords::LuaScript,
    cfg: &LuaConfig,
    rule_file: Option<&Path>,
) -> Result<(), Refusal> {
    let c = compile(opt, cfg, rule_file)?;
    let Some(t) = &c.script.needs.tx else {
        sig.pkt.push(PktOpt::Lua(c));
        return Ok(());
    };
    match sig.app_proto {
        Some(p) if p != t.proto => {
            return Err(unsupported(
                "lua",
                "lua script of another application protocol than the rule's buffers",
            ))
        }
        _ => sig.app_proto = Some(t.proto),
    }
    sig.lua_tx.push(c);
    Ok(())
}

/// Whether `s` alerts once per direction on a transaction (a Lua script that runs in
/// both, see [`needs::TxNeed::both`]).
pub(crate) fn per_direction(s: &Sig) -> bool {
    s.lua_tx
        .iter()
        .any(|l| l.script.needs.tx.as_ref().is_some_and(|t| t.both))
}

/// Whether one of `s`'s Lua scripts inspects a body (`http.request_body`,
/// `http.response_body`): it runs again on a transaction whose body grew, as a rule
/// with a body buffer does.
pub(crate) fn inspects_body(s: &Sig) -> bool {
    s.lua_tx.iter().any(|l| {
        l.script
            .needs
            .tx
            .as_ref()
            .and_then(|t| t.buf)
            .is_some_and(|b| b.is_body())
    })
}

/// The flow integers of `sig`'s `flowint` keywords and Lua scripts, to give them ids.
pub(crate) fn flowints_mut(sig: &mut Sig) -> impl Iterator<Item = &mut FlowintOp> {
    let pkt = sig.pkt.iter_mut().filter_map(|o| match o {
        PktOpt::Lua(l) => Some(l),
        _ => None,
    });
    sig.flowint.iter_mut().chain(
        pkt.chain(sig.lua_tx.iter_mut())
            .flat_map(|l| l.ints.iter_mut()),
    )
}

/// One interpreter running one script.
struct State {
    lua: Lua,
    /// `None`: the script defines no `match`; Suricata 7.0.10 loads such a rule and it
    /// never matches (difftest `lua/broken`).
    match_fn: Option<Function>,
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
        api::register(&lua).map_err(|e| e.to_string())?;
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
        let match_fn: Option<Function> = g.get("match").ok();
        let args = lua.create_table().map_err(|e| e.to_string())?;
        used.set(0);
        let needs: Table = init.call(args).map_err(|e| format!("init failed: {e}"))?;
        let needs = needs::read(&needs, s.sticky)?;
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

/// The address of a packet side as Suricata's Lua API prints it.
fn addr(p: &wire::Packet, a: &[u8; 16]) -> String {
    if p.ip_version == 4 {
        std::net::Ipv4Addr::new(a[0], a[1], a[2], a[3]).to_string()
    } else {
        std::net::Ipv6Addr::from(*a).to_string()
    }
}

/// `MM/DD/YYYY-HH:MM:SS.uuuuuu` (UTC), as Suricata's `SCPacketTimeString`.
fn time_string(secs: u64, usecs: u32) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Civil date from days since the epoch (proleptic Gregorian).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{m:02}/{d:02}/{y:04}-{:02}:{:02}:{:02}.{usecs:06}",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

thread_local! {
    /// This thread's interpreters, by script id (`None`: creating it failed).
    static STATES: RefCell<HashMap<u64, Option<State>>> = RefCell::new(HashMap::new());
}

/// What one call sees besides its arguments.
struct Call<'a> {
    p: &'a wire::Packet,
    flow: Option<FlowInfo>,
    fd: &'a FlowDetect,
    /// Packet getters answer (packet scripts only).
    packet: bool,
}

impl LuaC {
    /// Whether the script matches packet `p` (`frame`: its bytes).
    pub(crate) fn matches(
        &self,
        p: &wire::Packet,
        frame: &[u8],
        flow: Option<FlowInfo>,
        fd: &FlowDetect,
    ) -> bool {
        let s = &self.script;
        let off = p.payload_off as usize;
        let payload = frame
            .get(off..off.saturating_add(p.payload_len as usize))
            .unwrap_or(&[]);
        if s.needs.payload && !s.needs.packet && payload.is_empty() {
            return false;
        }
        let call = Call {
            p,
            flow,
            fd,
            packet: true,
        };
        let r = self.call(&call, |lua, c, args| {
            put(lua, c, "SCPacketPayload", [str_val(lua, payload)?]);
            if s.needs.payload {
                args.set("payload", lua.create_string(payload)?)?;
            }
            if s.needs.packet {
                args.set("packet", lua.create_string(frame)?)?;
            }
            Ok(())
        });
        r.is_some_and(|m| m != self.negated)
    }

    /// Whether the script matches transaction `tx` inspected in `dir` on the packet of
    /// `input`: on any instance of the buffer it needs. `app_both`: the rule is
    /// inspected in both directions (no `flow` direction).
    pub(crate) fn matches_tx(
        &self,
        tx: &dyn app::Transaction,
        dir: app::Direction,
        input: &crate::input::Input<'_>,
        fd: &FlowDetect,
        app_both: bool,
    ) -> bool {
        let s = &self.script;
        let Some(need) = &s.needs.tx else {
            return false;
        };
        // Suricata's named Lua needs are one protocol's transactions: the HTTP ones
        // HTTP/1's only, never HTTP/2's; a sticky buffer's script runs wherever the
        // buffer is, HTTP/2 included (checked on tests/data/h2c-doh.pcap).
        let h2 = input
            .flow
            .is_some_and(|f| f.app_proto == app::AppProto::Http2);
        let named = need.key != "buffer";
        if tx.proto() != need.proto || named && h2 && need.proto == app::AppProto::Http {
            return false;
        }
        if app_both && !need.both && need.dir.is_some_and(|d| d != dir) {
            return false;
        }
        let call = Call {
            p: input.packet,
            flow: input.flow,
            fd,
            packet: false,
        };
        let Some(b) = need.buf else {
            if need.dir == Some(app::Direction::ToClient) && !tx.complete(app::Direction::ToClient)
            {
                return false;
            }
            let r = self.call(&call, |lua, c, _| txdata::fill(lua, c, s.uses, tx, None));
            return r.is_some_and(|m| m != self.negated);
        };
        if need.both && need.dir.is_some() {
            // Runs in a direction once that direction has the buffer (the response
            // headers for a response-side inspection), with the side it needs.
            let mut here = false;
            tx.buffers(b, dir, &mut |_| here = true);
            if !here {
                return false;
            }
        }
        let mut bufs: Vec<Vec<u8>> = Vec::new();
        // An empty buffer is not inspected (Suricata runs no script on one: HTTP/2's
        // control streams have an empty `http.uri`).
        tx.buffers(b, need.dir.unwrap_or(dir), &mut |x| {
            if !x.is_empty() {
                bufs.push(x.to_vec())
            }
        });
        let body = matches!(
            need.key.as_str(),
            "http.request_body" | "http.response_body"
        );
        let mut any = false;
        for x in &bufs {
            let r = self.call(&call, |lua, c, args| {
                args.set(need.key.as_str(), lua.create_string(x)?)?;
                args.set("offset", 1)?;
                let body = body.then_some((need.key.as_str(), &x[..]));
                txdata::fill(lua, c, s.uses, tx, body)
            });
            if r == Some(true) {
                any = true;
                break;
            }
        }
        !bufs.is_empty() && any != self.negated
    }

    /// Runs `match` with the context `fill` completes; `None` when the call failed.
    fn call(
        &self,
        call: &Call<'_>,
        fill: impl FnOnce(&Lua, &Table, &Table) -> mlua::Result<()>,
    ) -> Option<bool> {
        let s = &self.script;
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
            vars::load(&s.needs.flowvars, &self.ints, Some(call.fd));
            Some(run(st, call, fill))
        });
        match r {
            Some(Ok(m)) => Some(m),
            Some(Err(e)) => {
                count_error(&e);
                tracing::debug!("lua script {}: {e}", s.path.display());
                None
            }
            None => None,
        }
    }
}

fn str_val(lua: &Lua, b: &[u8]) -> mlua::Result<Value> {
    Ok(Value::String(lua.create_string(b)?))
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
    call: &Call<'_>,
    fill: impl FnOnce(&Lua, &Table, &Table) -> mlua::Result<()>,
) -> mlua::Result<bool> {
    let lua = &st.lua;
    let (c, args) = (lua.create_table()?, lua.create_table()?);
    let p = call.p;
    let (secs, usecs) = (p.ts.secs(), p.ts.subsec_nanos() / 1000);
    let tuple = |swap: bool| -> mlua::Result<[Value; 6]> {
        let (a, b) = if swap {
            (&p.dst, &p.src)
        } else {
            (&p.src, &p.dst)
        };
        let (pa, pb) = if swap {
            (p.dport, p.sport)
        } else {
            (p.sport, p.dport)
        };
        Ok([
            Value::Integer(i64::from(p.ip_version)),
            str_val(lua, addr(p, a).as_bytes())?,
            str_val(lua, addr(p, b).as_bytes())?,
            Value::Integer(i64::from(p.proto)),
            Value::Integer(i64::from(pa)),
            Value::Integer(i64::from(pb)),
        ])
    };
    if call.packet {
        put(
            lua,
            &c,
            "SCPacketTimestamp",
            [
                Value::Integer(secs as i64),
                Value::Integer(i64::from(usecs)),
            ],
        );
        put(
            lua,
            &c,
            "SCPacketTimeString",
            [str_val(lua, time_string(secs, usecs).as_bytes())?],
        );
        put(lua, &c, "SCPacketTuple", tuple(false)?);
    }
    if let Some(f) = call.flow {
        put(lua, &c, "SCFlowTuple", tuple(!f.to_server)?);
        let n = &f.counts;
        put(
            lua,
            &c,
            "SCFlowTimestamps",
            [
                Value::Integer(n.first_secs as i64),
                Value::Integer(secs as i64),
                Value::Integer(i64::from(n.first_usecs)),
                Value::Integer(i64::from(usecs)),
            ],
        );
        let alp = str_val(lua, f.app_proto.name().as_bytes())?;
        let unknown = str_val(lua, b"unknown")?;
        put(
            lua,
            &c,
            "SCFlowAppLayerProto",
            [alp.clone(), alp.clone(), alp, unknown.clone(), unknown],
        );
        put(
            lua,
            &c,
            "SCFlowStats",
            [
                Value::Integer(i64::from(n.pkts[0])),
                Value::Integer(n.bytes[0] as i64),
                Value::Integer(i64::from(n.pkts[1])),
                Value::Integer(n.bytes[1] as i64),
            ],
        );
        put(
            lua,
            &c,
            "SCFlowHasAlerts",
            [Value::Boolean(call.fd.alerted)],
        );
    }
    fill(lua, &c, &args)?;
    lua.set_named_registry_value(api::CTX, c)?;
    st.used.set(0);
    let Some(match_fn) = &st.match_fn else {
        return Ok(false);
    };
    let r: Value = match_fn.call(args)?;
    Ok(match r {
        Value::Integer(n) => n == 1,
        Value::Number(n) => n == 1.0,
        _ => false,
    })
}

#[cfg(test)]
mod tests;
