//! The EVE `dnp3` object as Suricata 7.0.10 writes it: `type` (`request`,
//! `response` or `unsolicited_response`), the link `control` bits and function, `src`
//! and `dst`, the `application` (control bits and sequence, function code, objects
//! with their decoded points, `complete`) and, for responses, the internal
//! indications by name.

use serde_json::{Map, Value};

use super::objects::{layout, Field, Layout};
use super::parser::{le, prefix_len, Object};
use super::state::Dnp3Tx;

/// The `dnp3` object of a transaction.
pub fn dnp3_object(tx: &Dnp3Tx) -> Value {
    let mut o = Map::new();
    let kind = if tx.request {
        "request"
    } else if tx.fragment.function == 130 {
        "unsolicited_response"
    } else {
        "response"
    };
    o.insert("type".into(), kind.into());
    let c = tx.link.control;
    let mut ctl = Map::new();
    ctl.insert("dir".into(), (c & 0x80 != 0).into());
    ctl.insert("pri".into(), (c & 0x40 != 0).into());
    ctl.insert("fcb".into(), (c & 0x20 != 0).into());
    ctl.insert("fcv".into(), (c & 0x10 != 0).into());
    ctl.insert("function_code".into(), (c & 0x0F).into());
    o.insert("control".into(), ctl.into());
    o.insert("src".into(), tx.link.src.into());
    o.insert("dst".into(), tx.link.dst.into());
    let f = &tx.fragment;
    let mut app = Map::new();
    let mut actl = Map::new();
    actl.insert("fir".into(), (f.control & 0x80 != 0).into());
    actl.insert("fin".into(), (f.control & 0x40 != 0).into());
    actl.insert("con".into(), (f.control & 0x20 != 0).into());
    actl.insert("uns".into(), (f.control & 0x10 != 0).into());
    actl.insert("sequence".into(), (f.control & 0x0F).into());
    app.insert("control".into(), actl.into());
    app.insert("function_code".into(), f.function.into());
    if !f.objects.is_empty() {
        let objs: Vec<Value> = f.objects.iter().map(|ob| object(ob, &tx.data)).collect();
        app.insert("objects".into(), objs.into());
    }
    app.insert("complete".into(), f.complete.into());
    o.insert("application".into(), app.into());
    if let Some(iin) = f.iin {
        let mut i = Map::new();
        let names: Vec<Value> = rules::keywords::DNP3_INDICATIONS
            .iter()
            .enumerate()
            .filter(|(k, _)| iin & (0x8000 >> k) != 0)
            .map(|(_, n)| Value::from(*n))
            .collect();
        if !names.is_empty() {
            i.insert("indicators".into(), names.into());
        }
        o.insert("iin".into(), i.into());
    }
    Value::Object(o)
}

/// One object with its points.
fn object(ob: &Object, data: &[u8]) -> Value {
    let mut o = Map::new();
    o.insert("group".into(), ob.group.into());
    o.insert("variation".into(), ob.variation.into());
    o.insert("qualifier".into(), ob.qualifier.into());
    o.insert("prefix_code".into(), ob.prefix_code().into());
    o.insert("range_code".into(), ob.range_code().into());
    o.insert("start".into(), ob.start.into());
    o.insert("stop".into(), ob.stop.into());
    o.insert("count".into(), ob.count.into());
    if let (Some((at, n)), Some(l)) = (ob.points, layout(ob.group, ob.variation)) {
        let pts = points(ob, l, data.get(at..at + n).unwrap_or_default());
        if !pts.is_empty() {
            o.insert("points".into(), pts.into());
        }
    }
    Value::Object(o)
}

/// The decoded points of `ob` from its bytes `b`.
fn points(ob: &Object, l: Layout, b: &[u8]) -> Vec<Value> {
    let mut out = Vec::new();
    let count = ob.count as usize;
    match l {
        Layout::Packed(bits, name) => {
            let per_byte = 8 / usize::from(bits);
            let n = count.min(b.len() * per_byte);
            let mask = (1u16 << bits) - 1;
            for i in 0..n {
                let byte = b[i / per_byte];
                let v = (u16::from(byte) >> ((i % per_byte) * usize::from(bits))) & mask;
                let mut p = point_head(0, u64::from(ob.start) + i as u64);
                p.insert(name.into(), v.into());
                out.push(p.into());
            }
        }
        Layout::Fixed(fields) => {
            let plen = prefix_len(ob.prefix_code());
            let size = plen + fields.iter().map(|f| f.size()).sum::<usize>();
            for (i, pb) in b.chunks_exact(size).take(count).enumerate() {
                let prefix = le(pb, 0, plen).unwrap_or(0);
                let index = match ob.prefix_code() {
                    1..=3 => prefix,
                    _ => u64::from(ob.start) + i as u64,
                };
                let mut p = point_head(prefix, index);
                let mut at = plen;
                for f in fields {
                    field(&mut p, *f, &pb[at..at + f.size()]);
                    at += f.size();
                }
                out.push(p.into());
            }
        }
    }
    out
}

fn point_head(prefix: u64, index: u64) -> Map<String, Value> {
    let mut p = Map::new();
    p.insert("prefix".into(), prefix.into());
    p.insert("index".into(), index.into());
    p
}

/// Writes field `f` read from its bytes `b` into point `p`.
fn field(p: &mut Map<String, Value>, f: Field, b: &[u8]) {
    let u = le(b, 0, b.len()).unwrap_or(0);
    let (name, v): (&str, Value) = match f {
        Field::Bits(parts) => {
            let mut shift = 0;
            for (name, w) in parts {
                let v = (u >> shift) & ((1 << w) - 1);
                p.insert((*name).into(), v.into());
                shift += w;
            }
            return;
        }
        Field::U8(n) | Field::U16(n) | Field::U32(n) | Field::T48(n) => (n, u.into()),
        Field::I16(n) => (n, ((u as u16 as i16 as i64) as u64).into()),
        Field::I32(n) => (n, ((u as u32 as i32 as i64) as u64).into()),
        Field::F32(n) => (n, f64::from(f32::from_bits(u as u32)).into()),
        Field::F64(n) => (n, f64::from_bits(u).into()),
    };
    p.insert(name.into(), v);
}
