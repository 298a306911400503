//! Modbus/TCP on port 502 (opt-in in Suricata, enabled for the batch by
//! `oracle::APP_LAYER_SETS`): one to three requests with their responses, each behind
//! its MBAP header (transaction id, protocol 0, length, unit id at 0, 255 or between):
//! reads of coils, discrete inputs, holding and input registers, single and multiple
//! writes of coils and registers, mask write, read/write multiple registers,
//! diagnostics with a sub-function, a user-defined or unassigned function code, an
//! exception response now and then; addresses and quantities at 0 and at their limits.
//! The rule takes one `modbus` keyword on the last request in one of its forms: a
//! function code (with a sub-function for diagnostics), a category with or without
//! `!`, an access type with its table, address (inside, at the end of the range and one
//! past) and written value, a unit (`N`, `<N`, `>N`, `A<>B`) alone or before the rest;
//! and now and then the Snort names `modbus_func`/`modbus_unit`/`modbus_data`, which
//! Suricata refuses.

use super::bufcond::Cond;
use super::Flow;
use crate::case::{Spec, L4};
use crate::rulegen::{base, Family, Gen};

/// Modbus requests and responses.
pub const MODBUS: Family = Family {
    name: "modbus",
    keywords: &[
        "modbus",
        "modbus_func",
        "modbus_unit",
        "modbus_data",
        "flow",
    ],
    weight: 1,
    make: modbus,
};

/// What a request accesses: read (1) or write (2), the table (coils 8, discretes 4,
/// input 16, holding 32), the first address, the number of items, the first written
/// value.
#[derive(Clone, Copy, Debug)]
struct Access {
    rw: u8,
    table: u8,
    addr: u16,
    qty: u16,
    value: Option<u16>,
}

/// One request: unit, function, sub-function, access, PDU; and its response's PDU.
struct Req {
    unit: u8,
    func: u8,
    sub: Option<u16>,
    access: Vec<Access>,
    pdu: Vec<u8>,
    resp: Vec<u8>,
}

/// An MBAP header and PDU.
fn adu(tid: u16, unit: u8, pdu: &[u8]) -> Vec<u8> {
    let mut v = tid.to_be_bytes().to_vec();
    v.extend_from_slice(&[0, 0]);
    v.extend_from_slice(&((pdu.len() + 1) as u16).to_be_bytes());
    v.push(unit);
    v.extend_from_slice(pdu);
    v
}

fn be(parts: &[u16]) -> Vec<u8> {
    parts.iter().flat_map(|p| p.to_be_bytes()).collect()
}

/// An address with `qty` items after it that stays in 16 bits: 0, the last one, or
/// between.
fn address(g: &mut Gen<'_>, qty: u16) -> u16 {
    let last = 65_535 - (qty - 1);
    match g.size(0, 3) {
        0 => 0,
        1 => last,
        _ => g.num(1, u64::from(last)) as u16,
    }
}

fn request(g: &mut Gen<'_>) -> Req {
    let unit = g.pick(&[0u8, 1, 17, 247, 255]);
    let mut r = Req {
        unit,
        func: 0,
        sub: None,
        access: Vec::new(),
        pdu: Vec::new(),
        resp: Vec::new(),
    };
    let kind = g.size(0, 11);
    match kind {
        0..=3 => {
            // Reads: coils, discrete inputs, holding, input registers.
            let (func, table, max) = [
                (1u8, 8u8, 2000u16),
                (2, 4, 2000),
                (3, 32, 125),
                (4, 16, 125),
            ][kind];
            let qty = g.pick(&[1u16, 2, 10, max]);
            let addr = address(g, qty);
            r.func = func;
            r.access.push(Access {
                rw: 1,
                table,
                addr,
                qty,
                value: None,
            });
            r.pdu = [vec![func], be(&[addr, qty])].concat();
            let n = if func <= 2 {
                usize::from(qty).div_ceil(8)
            } else {
                2 * usize::from(qty)
            };
            r.resp = [vec![func, n as u8], g.filler(n)].concat();
            if n > 255 {
                r.resp = vec![func | 0x80, 3];
            }
        }
        4 | 5 => {
            // Write a single coil or register.
            let (func, table) = if kind == 4 { (5u8, 8u8) } else { (6, 32) };
            let addr = address(g, 1);
            let value = if func == 5 {
                g.pick(&[0xFF00u16, 0])
            } else {
                g.pick(&[0u16, 1, 255, 65_535])
            };
            r.func = func;
            r.access.push(Access {
                rw: 2,
                table,
                addr,
                qty: 1,
                value: Some(value),
            });
            r.pdu = [vec![func], be(&[addr, value])].concat();
            r.resp = r.pdu.clone();
        }
        6 | 7 => {
            // Write multiple coils or registers.
            let (func, table) = if kind == 6 { (15u8, 8u8) } else { (16, 32) };
            let qty = g.pick(&[1u16, 2, 5]);
            let addr = address(g, qty);
            let values: Vec<u16> = (0..qty).map(|_| g.num(0, 65_535) as u16).collect();
            let data = if func == 15 {
                g.filler(usize::from(qty).div_ceil(8))
            } else {
                be(&values)
            };
            r.func = func;
            r.access.push(Access {
                rw: 2,
                table,
                addr,
                qty,
                value: (func == 16).then(|| values[0]),
            });
            r.pdu = [vec![func], be(&[addr, qty]), vec![data.len() as u8], data].concat();
            r.resp = [vec![func], be(&[addr, qty])].concat();
        }
        8 => {
            // Mask write register.
            let addr = address(g, 1);
            r.func = 22;
            r.access.push(Access {
                rw: 2,
                table: 32,
                addr,
                qty: 1,
                value: None,
            });
            r.pdu = [vec![22], be(&[addr, 0x00F2, 0x0025])].concat();
            r.resp = r.pdu.clone();
        }
        9 => {
            // Read/write multiple registers.
            let (rq, wq) = (g.pick(&[1u16, 3]), g.pick(&[1u16, 2]));
            let (ra, wa) = (address(g, rq), address(g, wq));
            let values: Vec<u16> = (0..wq).map(|_| g.num(0, 65_535) as u16).collect();
            r.func = 23;
            r.access.push(Access {
                rw: 1,
                table: 32,
                addr: ra,
                qty: rq,
                value: None,
            });
            r.access.push(Access {
                rw: 2,
                table: 32,
                addr: wa,
                qty: wq,
                value: Some(values[0]),
            });
            r.pdu = [
                vec![23],
                be(&[ra, rq, wa, wq]),
                vec![(2 * wq) as u8],
                be(&values),
            ]
            .concat();
            r.resp = [vec![23, (2 * rq) as u8], g.filler(2 * usize::from(rq))].concat();
        }
        10 => {
            // Diagnostics with a sub-function.
            let sub = g.pick(&[0u16, 1, 4, 10, 20, 65_535]);
            r.func = 8;
            r.sub = Some(sub);
            r.pdu = [vec![8], be(&[sub, 0])].concat();
            r.resp = r.pdu.clone();
        }
        _ => {
            // A user-defined, unassigned or reserved code with some data.
            let func = g.pick(&[65u8, 72, 100, 110, 9, 40, 127, 0, 125, 126]);
            r.func = func;
            let n = g.size(0, 4);
            r.pdu = [vec![func], g.filler(n)].concat();
            r.resp = vec![func | 0x80, 1];
        }
    }
    if g.chance(0.1) {
        // An exception response.
        r.resp = vec![r.func | 0x80, g.pick(&[1u8, 2, 3, 4])];
    }
    r
}

/// A unit condition: `N`, `<N`, `>N` or `A<>B` hitting `u`, and its just-missing twin.
fn unit_cond(g: &mut Gen<'_>, u: u8) -> (String, String) {
    let u = u16::from(u);
    match g.size(0, 3) {
        1 if u < 255 => (format!("unit <{}", u + 1), format!("unit <{u}")),
        2 if u > 0 => (format!("unit >{}", u - 1), format!("unit >{u}")),
        3 if u > 0 && u < 255 => (
            format!("unit {}<>{}", u - 1, u + 1),
            format!("unit {u}<>{}", u + 2),
        ),
        _ => (format!("unit {u}"), format!("unit {}", (u + 1) % 256)),
    }
}

/// The table word of an access.
fn table_word(t: u8) -> &'static str {
    match t {
        4 => "discretes",
        8 => "coils",
        16 => "input",
        _ => "holding",
    }
}

/// The category a function code is in (Suricata's documentation: public assigned,
/// public unassigned, user-defined 65-72 and 100-110, reserved).
fn category(f: u8) -> &'static str {
    match f {
        65..=72 | 100..=110 => "user",
        8 | 9 | 10 | 13 | 14 | 41 | 42 | 90 | 91 | 125..=127 => "reserved",
        1..=6 | 11 | 12 | 15..=17 | 20..=24 | 43 => "assigned",
        _ => "unassigned",
    }
}

/// The `modbus` condition on request `r` (without unit).
fn what(g: &mut Gen<'_>, r: &Req) -> (&'static str, String, String) {
    let form = if r.access.is_empty() {
        g.pick(&["function", "category"])
    } else {
        g.pick(&[
            "function", "category", "access", "access", "address", "value",
        ])
    };
    match form {
        "function" => {
            let other = if r.func == 3 { 4 } else { 3 };
            match r.sub {
                Some(s) if g.chance(0.7) => (
                    "subfunction",
                    format!("function 8, subfunction {s}"),
                    format!("function 8, subfunction {}", s.wrapping_add(1)),
                ),
                _ => (
                    "function",
                    format!("function {}", r.func),
                    format!("function {other}"),
                ),
            }
        }
        "category" => {
            let c = category(r.func);
            let others: Vec<&str> = ["assigned", "unassigned", "public", "user", "reserved"]
                .into_iter()
                .filter(|o| *o != c && !(*o == "public" && matches!(c, "assigned" | "unassigned")))
                .collect();
            let o = others[g.size(0, others.len() - 1)];
            if g.chance(0.3) {
                (
                    "category",
                    format!("function !{o}"),
                    format!("function !{c}"),
                )
            } else if g.chance(0.2) {
                ("category", "function all".into(), format!("function !{c}"))
            } else {
                ("category", format!("function {c}"), format!("function {o}"))
            }
        }
        "access" => {
            let a = r.access[g.size(0, r.access.len() - 1)];
            let rw = if a.rw == 1 { "read" } else { "write" };
            let other = if a.rw == 1 { "write" } else { "read" };
            if g.chance(0.4) {
                ("access", format!("access {rw}"), format!("access {other}"))
            } else {
                let t = table_word(a.table);
                let ot = if a.table == 32 { "coils" } else { "holding" };
                (
                    "access",
                    format!("access {rw} {t}"),
                    format!("access {rw} {ot}"),
                )
            }
        }
        "address" => {
            let a = r.access[g.size(0, r.access.len() - 1)];
            let rw = if a.rw == 1 { "read" } else { "write" };
            let t = table_word(a.table);
            let last = u32::from(a.addr) + u32::from(a.qty) - 1;
            let (h, m) = match g.size(0, 4) {
                0 => (format!("{}", a.addr), format!("{}", last + 1)),
                1 => (format!("{last}"), format!("{}", last + 1)),
                2 if a.addr > 0 => (format!(">{}", a.addr - 1), format!(">{last}")),
                3 => (format!("<{}", last + 1), format!("<{}", a.addr)),
                _ => (
                    format!("{}<>{}", i64::from(a.addr) - 1, last + 1),
                    format!("{}<>{}", last, last + 2),
                ),
            };
            (
                "address",
                format!("access {rw} {t}, address {h}"),
                format!("access {rw} {t}, address {m}"),
            )
        }
        _ => {
            let a = r.access[g.size(0, r.access.len() - 1)];
            let t = table_word(a.table);
            let v = u32::from(a.value.unwrap_or(0));
            let (h, m) = match g.size(0, 2) {
                0 => (format!("{v}"), format!("{}", v + 1)),
                1 => (format!("<{}", v + 1), format!("<{v}")),
                _ if v > 0 => (format!(">{}", v - 1), format!(">{v}")),
                _ => (format!("{v}"), format!("{}", v + 1)),
            };
            (
                "value",
                format!("access write {t}, address {}, value {h}", a.addr),
                format!("access write {t}, address {}, value {m}", a.addr),
            )
        }
    }
}

fn modbus(g: &mut Gen<'_>) -> Spec {
    let intent = g.intent();
    let v6 = g.v6();
    let mut f = Flow::new(g.index, v6, 502);
    let n = g.size(1, 3);
    let reqs: Vec<Req> = (0..n).map(|_| request(g)).collect();
    let mut msgs = Vec::new();
    for (i, r) in reqs.iter().enumerate() {
        let tid = g.pick(&[0u16, 1, 65_535]).wrapping_add(i as u16);
        msgs.push((true, adu(tid, r.unit, &r.pdu)));
        if i + 1 < n || g.chance(0.9) {
            msgs.push((false, adu(tid, r.unit, &r.resp)));
        }
    }
    let first = msgs[0].1.clone();
    super::session::tcp(g, &mut f, &msgs);
    let r = &reqs[g.size(0, n - 1)];
    let (name, cond) = if g.chance(0.06) {
        let kw = g.pick(&["modbus_func", "modbus_unit", "modbus_data"]);
        let v = match kw {
            "modbus_func" => r.func.to_string(),
            "modbus_unit" => r.unit.to_string(),
            _ => "\"a\"".to_string(),
        };
        let c = format!("{kw}:{v};");
        (
            "snort",
            Cond {
                hit: c.clone(),
                miss: c,
            },
        )
    } else {
        let with_unit = g.chance(0.3);
        let (name, h, m) = if with_unit && g.chance(0.3) {
            let (uh, um) = unit_cond(g, r.unit);
            ("unit", uh, um)
        } else {
            what(g, r)
        };
        let (h, m) = if with_unit && name != "unit" {
            let (uh, um) = unit_cond(g, r.unit);
            if g.chance(0.5) {
                (format!("{uh}, {h}"), format!("{um}, {h}"))
            } else {
                (format!("{uh}, {h}"), format!("{uh}, {m}"))
            }
        } else {
            (h, m)
        };
        (
            name,
            Cond {
                hit: format!("modbus: {h};"),
                miss: format!("modbus: {m};"),
            },
        )
    };
    let texts = super::bufcond::texts(g, intent, std::iter::once(&cond));
    let flow = super::bufcond::flow_opt(g, true);
    let rproto = g.pick(&["modbus", "modbus", "tcp"]);
    let s = base(name, intent, v6, L4::Tcp, rproto);
    let opts = format!("{flow}{}", texts.join(" "));
    super::bufcond::tcp_case(s, f, 502, opts, false, first)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adus_have_their_length_and_requests_their_access() {
        assert_eq!(
            adu(7, 1, &[3, 0, 0, 0, 1]),
            [0, 7, 0, 0, 0, 6, 1, 3, 0, 0, 0, 1]
        );
        let mut rng = gen::rng::Rng::new(4);
        let mut g = Gen {
            rng: &mut rng,
            index: 0,
        };
        for _ in 0..300 {
            let r = request(&mut g);
            assert_eq!(r.pdu[0], r.func);
            for a in &r.access {
                assert!(u32::from(a.addr) + u32::from(a.qty) <= 65_536);
            }
            assert!(r.pdu.len() <= 253 && r.resp.len() <= 253);
        }
    }

    #[test]
    fn rules_parse_mostly_and_flows_are_written() {
        let (cases, ok) = crate::flows::sample_cases(200, modbus);
        assert!(ok >= 170, "{ok} of 200 parse");
        // Handshake, one request and its acknowledgement, the FIN exchange at least.
        assert!(cases.iter().all(|c| c.frames(0).len() >= 8));
    }
}
