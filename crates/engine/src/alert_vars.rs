//! The flow's and the packet's variables (`flowvar`, `pktvar`) in an alert record:
//! `metadata.flowvars` and `metadata.pktvars`, lists of one-key objects in the order
//! the names were first set, after `metadata.flowbits`, as Suricata 7 writes them
//! (`metadata` itself right after `pkt_src`).

use serde_json::{Map, Value};

fn list<'a>(vars: impl Iterator<Item = (&'a str, &'a [u8])>) -> Vec<Value> {
    vars.map(|(n, v)| {
        let mut o = Map::new();
        o.insert(n.into(), output::eve::bytes_str(v).into());
        Value::Object(o)
    })
    .collect()
}

/// Adds the variables of `vars` to the alert record `record`.
pub(crate) fn add(record: &mut Value, vars: &detect::FlowVars) {
    let flow = list(vars.flow());
    let pkt = list(vars.pkt());
    if flow.is_empty() && pkt.is_empty() {
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
        if !flow.is_empty() {
            md.insert("flowvars".into(), Value::Array(flow));
        }
        if !pkt.is_empty() {
            md.insert("pktvars".into(), Value::Array(pkt));
        }
    }
}
