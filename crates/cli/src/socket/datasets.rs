//! The socket's dataset commands, with Suricata 7.0.10's arguments (`setname`,
//! `settype`, `datavalue` in the set's text form: base64 for strings, hex for hashes,
//! addresses as text) and replies. They act on the sets of the running rules, shared
//! with the workers.

use super::commands::Reply;
use detect::lists::{Added, Dataset, Lists};
use serde_json::Value;
use std::sync::Arc;

/// The set `setname` of type `settype`.
fn set(lists: &Lists, args: &Value) -> Result<Arc<Dataset>, Reply> {
    let name = args.get("setname").and_then(Value::as_str);
    let kind = args.get("settype").and_then(Value::as_str);
    let (Some(name), Some(kind)) = (name, kind) else {
        return Err(Reply::nok("setname and settype must be strings"));
    };
    match (lists.get(name), rules::DatasetType::parse(kind)) {
        (Some(d), Some(k)) if d.kind() == k => Ok(d),
        (_, None) => Err(Reply::nok("unknown settype")),
        _ => Err(Reply::nok("set not found or wrong type")),
    }
}

/// `datavalue` in binary form, or the reply `bad` when it does not decode.
fn value(d: &Dataset, args: &Value, bad: &str) -> Result<Vec<u8>, Reply> {
    let v = args
        .get("datavalue")
        .and_then(Value::as_str)
        .ok_or_else(|| Reply::nok("datavalue is not a string"))?;
    d.decode(v).map_err(|_| Reply::nok(bad.to_string()))
}

/// Runs dataset command `name` on `lists`.
pub fn command(lists: &Lists, name: &str, args: &Value) -> Reply {
    if name == "dataset-dump" {
        let (_, errors) = lists.save_all();
        return match errors.first() {
            None => Reply::ok("datasets dump done"),
            Some(e) => Reply::nok(e.clone()),
        };
    }
    let d = match set(lists, args) {
        Ok(d) => d,
        Err(r) => return r,
    };
    let run = || -> Result<Reply, Reply> {
        Ok(match name {
            "dataset-add" => match d.add(&value(&d, args, "failed to add data")?, 0) {
                Added::New => Reply::ok("data added"),
                Added::Present => Reply::ok("data already in set"),
                Added::Memcap => Reply::nok("failed to add data"),
            },
            "dataset-remove" => {
                if d.remove(&value(&d, args, "failed to remove data")?) {
                    Reply::ok("data removed")
                } else {
                    Reply::nok("failed to remove data")
                }
            }
            "dataset-lookup" => {
                if d.contains(&value(&d, args, "item not found in set")?) {
                    Reply::ok("item found in set")
                } else {
                    Reply::nok("item not found in set")
                }
            }
            "dataset-clear" => {
                d.clear();
                Reply::ok("dataset cleared")
            }
            _ => Reply::nok("Unknown command"),
        })
    };
    run().unwrap_or_else(|r| r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ask(l: &Lists, cmd: &str, v: Value) -> (bool, String) {
        let r = command(l, cmd, &v);
        (r.ok, r.message.unwrap().as_str().unwrap().to_string())
    }

    #[test]
    fn replies_as_suricata() {
        let l = Lists::default();
        let spec = rules::SetSpec {
            name: "seen".into(),
            kind: Some(rules::DatasetType::String),
            ..Default::default()
        };
        l.for_rule(&spec, None, false).unwrap();
        let a = json!({"setname": "seen", "settype": "string", "datavalue": "YWJj"});
        assert_eq!(
            ask(&l, "dataset-add", a.clone()),
            (true, "data added".into())
        );
        assert_eq!(
            ask(&l, "dataset-add", a.clone()),
            (true, "data already in set".into())
        );
        assert_eq!(
            ask(&l, "dataset-lookup", a.clone()),
            (true, "item found in set".into())
        );
        assert_eq!(
            ask(&l, "dataset-remove", a.clone()),
            (true, "data removed".into())
        );
        assert_eq!(
            ask(&l, "dataset-remove", a.clone()),
            (false, "failed to remove data".into())
        );
        assert_eq!(
            ask(&l, "dataset-lookup", a.clone()),
            (false, "item not found in set".into())
        );
        let wrong = json!({"setname": "seen", "settype": "md5", "datavalue": "YWJj"});
        assert_eq!(
            ask(&l, "dataset-add", wrong),
            (false, "set not found or wrong type".into())
        );
        let bad = json!({"setname": "seen", "settype": "string", "datavalue": "%%%"});
        assert_eq!(
            ask(&l, "dataset-add", bad),
            (false, "failed to add data".into())
        );
        ask(&l, "dataset-add", a);
        assert_eq!(
            ask(
                &l,
                "dataset-clear",
                json!({"setname": "seen", "settype": "string"})
            ),
            (true, "dataset cleared".into())
        );
        assert!(l.get("seen").unwrap().is_empty());
        assert_eq!(
            ask(&l, "dataset-dump", json!(null)),
            (true, "datasets dump done".into())
        );
    }
}
