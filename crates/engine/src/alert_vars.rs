//! The flow's and the packet's variables (`flowint`, `flowvar`, `pktvar`) in an alert
//! record: `metadata.flowints`, one object of the integers by name, then
//! `metadata.flowvars` and `metadata.pktvars`, lists of one-key objects, each in the
//! order the names were first set, after `metadata.flowbits`, as Suricata 7 writes
//! them (`metadata` itself right after `pkt_src`).

use serde_json::{Map, Value};

fn list<'a>(vars: impl Iterator<Item = (&'a str, &'a [u8])>) -> Vec<Value> {
    vars.map(|(n, v)| {
        let mut o = Map::new();
        o.insert(n.into(), output::eve::bytes_str(v).into());
        Value::Object(o)
    })
    .collect()
}

/// Whether [`add`] would add anything: the flow state `fd` holds a flow or packet
/// variable, or a flow integer with a name in `det`.
pub(crate) fn any(fd: &detect::FlowDetect, det: &detect::Detector) -> bool {
    let vars = fd.vars();
    vars.flow().next().is_some()
        || vars.pkt().next().is_some()
        || fd
            .flowints()
            .into_iter()
            .any(|(id, _)| det.flowint_name(id).is_some())
}

/// Adds the variables of the flow state `fd` (names from `det`) to the alert record
/// `record`.
pub(crate) fn add(record: &mut Value, fd: &detect::FlowDetect, det: &detect::Detector) {
    let vars = fd.vars();
    let flow = list(vars.flow());
    let pkt = list(vars.pkt());
    let mut ints = Map::new();
    for (id, v) in fd.flowints() {
        if let Some(n) = det.flowint_name(id) {
            ints.insert(n.into(), v.into());
        }
    }
    if flow.is_empty() && pkt.is_empty() && ints.is_empty() {
        return;
    }
    let Value::Object(o) = record else { return };
    if !o.contains_key("metadata") {
        // Rebuilt to put `metadata` where Suricata writes it.
        let old = std::mem::take(o);
        for (k, v) in old {
            let after = k == "pkt_src";
            o.insert(k, v);
            if after {
                o.insert("metadata".into(), Value::Object(Map::new()));
            }
        }
    }
    if let Some(Value::Object(md)) = o.get_mut("metadata") {
        if !ints.is_empty() {
            md.insert("flowints".into(), Value::Object(ints));
        }
        if !flow.is_empty() {
            md.insert("flowvars".into(), Value::Array(flow));
        }
        if !pkt.is_empty() {
            md.insert("pktvars".into(), Value::Array(pkt));
        }
    }
}
