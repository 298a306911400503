//! Flow variables from Lua: `ScFlowvarGet`/`ScFlowvarSet` and `ScFlowintGet`/
//! `ScFlowintSet`/`ScFlowintIncr`/`ScFlowintDecr` (each also as `SC...`), each naming
//! a variable by its index in the script's `needs["flowvar"]` / `needs["flowint"]` list.
//!
//! A script changes the flow at once, as Suricata's do: the writes of this thread's
//! current packet are kept here, read back by later calls on the same packet, and
//! stored on the flow's [`FlowDetect`] when the packet's inspection ends
//! ([`apply`]). Flow integers share the ids of the rules' `flowint` keywords.

use std::cell::RefCell;
use std::sync::Arc;

use mlua::{Lua, Value};

use crate::flowint::FlowintOp;
use crate::state::FlowDetect;

/// The variables of the call in progress and the writes of the packet.
#[derive(Default)]
struct Vars {
    /// The script's flow variables (by index): name and current value.
    vars: Vec<(Arc<str>, Option<Vec<u8>>)>,
    /// The script's flow integers (by index): id and current value.
    ints: Vec<(u32, Option<u32>)>,
    /// Writes of this packet not yet on the flow, oldest first.
    var_writes: Vec<(Arc<str>, Vec<u8>)>,
    int_writes: Vec<(u32, u32)>,
}

thread_local! {
    static VARS: RefCell<Vars> = RefCell::new(Vars::default());
}

/// Loads the current values of a script's variables before its `match` runs: this
/// packet's writes first, else the flow's.
pub(super) fn load(names: &[Arc<str>], ints: &[FlowintOp], fd: Option<&FlowDetect>) {
    VARS.with(|v| {
        let mut v = v.borrow_mut();
        let v = &mut *v;
        v.vars.clear();
        for n in names {
            let val = v
                .var_writes
                .iter()
                .rev()
                .find(|(w, _)| w == n)
                .map(|(_, x)| x.clone())
                .or_else(|| {
                    fd?.vars()
                        .flow()
                        .find(|(w, _)| *w == &**n)
                        .map(|(_, x)| x.to_vec())
                });
            v.vars.push((n.clone(), val));
        }
        v.ints.clear();
        for o in ints {
            let val = v
                .int_writes
                .iter()
                .rev()
                .find(|(id, _)| *id == o.id)
                .map(|(_, x)| *x)
                .or_else(|| fd?.int(o.id));
            v.ints.push((o.id, val));
        }
    });
}

/// Stores this thread's pending writes on the flow (the packet's inspection ends).
pub(crate) fn apply(fd: &mut FlowDetect) {
    VARS.with(|v| {
        let mut v = v.borrow_mut();
        if v.var_writes.is_empty() && v.int_writes.is_empty() {
            return;
        }
        let mut c: crate::vars::Captured = v
            .var_writes
            .drain(..)
            .map(|(n, x)| (crate::vars::VarKind::Flow, n, x))
            .collect();
        fd.vars.commit(&mut c);
        for (id, x) in v.int_writes.drain(..) {
            fd.set_int(id, x);
        }
    });
}

fn index(i: i64, len: usize) -> mlua::Result<usize> {
    usize::try_from(i)
        .ok()
        .filter(|&i| i < len)
        .ok_or_else(|| mlua::Error::runtime(format!("variable index {i} is not declared in needs")))
}

/// Registers the variable functions.
pub(super) fn register(lua: &Lua) -> mlua::Result<()> {
    let g = lua.globals();
    g.set(
        "ScFlowvarGet",
        lua.create_function(|lua, i: i64| {
            VARS.with(|v| {
                let v = v.borrow();
                let i = index(i, v.vars.len())?;
                match &v.vars[i].1 {
                    Some(x) => Ok(Value::String(lua.create_string(x)?)),
                    None => Ok(Value::Nil),
                }
            })
        })?,
    )?;
    g.set(
        "ScFlowvarSet",
        lua.create_function(|_, (i, val, len): (i64, mlua::LuaString, Option<i64>)| {
            VARS.with(|v| {
                let mut v = v.borrow_mut();
                let i = index(i, v.vars.len())?;
                let b = val.as_bytes();
                let n = len.map_or(b.len(), |l| (l.max(0) as usize).min(b.len()));
                let x = b[..n].to_vec();
                let name = v.vars[i].0.clone();
                v.vars[i].1 = Some(x.clone());
                v.var_writes.push((name, x));
                Ok(())
            })
        })?,
    )?;
    g.set(
        "ScFlowintGet",
        lua.create_function(|_, i: i64| {
            VARS.with(|v| {
                let v = v.borrow();
                let i = index(i, v.ints.len())?;
                Ok(v.ints[i].1.map(f64::from))
            })
        })?,
    )?;
    g.set(
        "ScFlowintSet",
        lua.create_function(|_, (i, x): (i64, f64)| {
            set_int(i, |_| x as u32)?;
            Ok(())
        })?,
    )?;
    g.set(
        "ScFlowintIncr",
        lua.create_function(|_, i: i64| set_int(i, |c| c.map_or(1, |c| c.wrapping_add(1))))?,
    )?;
    g.set(
        "ScFlowintDecr",
        lua.create_function(|_, i: i64| set_int(i, |c| c.map_or(0, |c| c.wrapping_sub(1))))?,
    )?;
    // Suricata 7.0.10 also names each `SC...` (same behaviour, checked on
    // tests/data/http-files.pcap).
    for name in ALIASED {
        let f: mlua::Function = g.get(name)?;
        g.set(name.replacen("Sc", "SC", 1), f)?;
    }
    Ok(())
}

/// The functions Suricata also registers with an `SC` prefix.
const ALIASED: [&str; 6] = [
    "ScFlowvarGet",
    "ScFlowvarSet",
    "ScFlowintGet",
    "ScFlowintSet",
    "ScFlowintIncr",
    "ScFlowintDecr",
];

/// Sets flow integer `i` to `f(current)`; returns the new value.
fn set_int(i: i64, f: impl FnOnce(Option<u32>) -> u32) -> mlua::Result<f64> {
    VARS.with(|v| {
        let mut v = v.borrow_mut();
        let i = index(i, v.ints.len())?;
        let (id, cur) = v.ints[i];
        let new = f(cur);
        v.ints[i].1 = Some(new);
        v.int_writes.push((id, new));
        Ok(f64::from(new))
    })
}
