//! `bypass`: no condition, but when a rule holding it matches a packet of a flow, the
//! flow is bypassed (Suricata 7.0.10's local bypass in IDS and file modes): the
//! engine stops tracking, parsing, inspecting and logging the flow's later packets,
//! which are only counted (`flow_bypassed.local_pkts`/`local_bytes`), and the flow
//! record says `"state": "bypassed"`, `"bypass": "local"`.
//!
//! As in Suricata the request is made when the rule matches, before its alert is
//! counted against thresholds or suppressed by `noalert`, and the rest of the packet's
//! inspection goes on (the other rules matching it still alert). The keyword takes no
//! value and cannot share a rule with `filestore` (Suricata refuses both orders).
//!
//! The request lives in the flow's [`FlowDetect`](crate::FlowDetect)
//! ([`FlowDetect::bypass_requested`](crate::FlowDetect::bypass_requested)); the
//! engine bypasses the flow once the packet's inspection is over.

use crate::sig::{failed, Refusal};
use rules::ast::Opt;

/// The keyword's name.
pub(crate) const NAME: &str = "bypass";

/// Checks `bypass` with its value (none is taken) in a rule of options `options`
/// (which must not hold `filestore`).
pub(crate) fn compile(value: Option<&str>, options: &[Opt]) -> Result<(), Refusal> {
    if let Some(v) = value {
        return Err(failed(NAME, format!("{NAME}:{v}: takes no value")));
    }
    let filestore = options
        .iter()
        .any(|o| matches!(o, Opt::App(a) if a.name == "filestore"));
    if filestore {
        return Err(failed(NAME, "bypass can't work with filestore keyword"));
    }
    Ok(())
}

/// Whether a rule's options hold `bypass` (its matches bypass the flow).
pub(crate) fn of_rule(options: &[Opt]) -> bool {
    options
        .iter()
        .any(|o| matches!(o, Opt::Keyword { name, .. } if *name == NAME))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(src: &str) -> Vec<Opt> {
        rules::parse_rule(src)
            .unwrap_or_else(|e| panic!("{src}: {e:?}"))
            .options
    }

    #[test]
    fn takes_no_value_and_refuses_filestore() {
        let r = opts(r#"alert http any any -> any any (http.uri; content:"/a"; bypass; sid:1;)"#);
        assert!(of_rule(&r) && compile(None, &r).is_ok());
        assert!(compile(Some("1"), &r).is_err());
        let r = opts(r#"alert http any any -> any any (content:"/a"; sid:1;)"#);
        assert!(!of_rule(&r));
        for src in [
            r#"alert http any any -> any any (filestore; bypass; sid:1;)"#,
            r#"alert http any any -> any any (bypass; filestore; sid:1;)"#,
        ] {
            let e = compile(None, &opts(src)).unwrap_err();
            assert!(!e.unsupported && e.message.contains("filestore"), "{src}");
        }
    }
}
