//! `http.header.raw` needs a direction: Suricata 7.0.10 refuses a rule that inspects the
//! raw headers (the sticky buffer, the `http_raw_header` modifier or pcre's `/D` flag)
//! without `flow:to_server` or `flow:to_client` ("http_raw_header signature without a
//! flow direction"), even when another buffer of the rule (`http.uri`, `http.stat_code`)
//! implies one, except that the `http.response_body` sticky buffer anywhere in the rule
//! gives it the to-client direction. The `http_server_body` modifier and pcre's `/Q`
//! flag, which read the same buffer, do not. Found by the differential harness's
//! `httpbuf` family (tests/parity/difftest/fixed/dt-1-httpbuf-31 and
//! dt-3190052247-3699).

use crate::ast::Opt;
use crate::buffers::Buffer;
use crate::diag::{Diagnostic, Reason};

use super::state::State;

/// Refuses a raw-header buffer in a rule whose `flow` names no direction.
pub(super) fn check(st: &mut State, end: usize) {
    let directed = st.options.iter().any(|o| match o {
        Opt::Flow(f) => f.to_server || f.to_client,
        _ => false,
    });
    if directed
        || st.response_body_sticky
        || !st.blocks.iter().any(|b| b.buffer == Buffer::HttpHeaderRaw)
    {
        return;
    }
    st.diags.push((
        end,
        Diagnostic::error(
            Reason::Semantic,
            Some("http.header.raw"),
            "http_raw_header signature without a flow direction (use flow:to_server or flow:to_client)",
        ),
    ));
}

#[cfg(test)]
mod tests {
    fn refused(opts: &str) -> bool {
        let rule = format!("alert http any any -> any any ({opts} sid:1;)");
        let (set, _) = crate::RuleSet::load_str(
            &rule,
            None,
            &crate::Vars::suricata_default(),
            &Default::default(),
        );
        set.rules.is_empty()
    }

    #[test]
    fn raw_headers_without_a_direction_are_refused() {
        assert!(refused("http.header.raw; content:\"a\";"));
        assert!(refused("content:\"a\"; http_raw_header;"));
        assert!(refused("pcre:\"/a/D\";"));
        assert!(refused("flow:established; http.header.raw; content:\"a\";"));
        assert!(refused(
            "http.header.raw; content:\"a\"; http.uri; content:\"b\";"
        ));
        assert!(refused(
            "http.stat_code; content:\"2\"; http.header.raw; content:\"a\";"
        ));
        assert!(!refused("flow:to_server; http.header.raw; content:\"a\";"));
        assert!(!refused("http.header.raw; content:\"a\"; flow:to_client;"));
        assert!(!refused("flow:to_client; pcre:\"/a/D\";"));
        assert!(!refused("http.header; content:\"a\";"));
        // The http.response_body sticky buffer gives the rule a direction (Suricata
        // 7.0.10, either order); its modifier and pcre's /Q do not.
        assert!(!refused(
            "http.header.raw; content:\"a\"; http.response_body; content:\"b\";"
        ));
        assert!(!refused(
            "http.response_body; content:\"b\"; http.header.raw; content:\"a\";"
        ));
        assert!(refused(
            "http.header.raw; content:\"a\"; content:\"b\"; http_server_body;"
        ));
        assert!(refused("pcre:\"/SET/iD\"; pcre:\"/91ii/Q\";"));
        assert!(refused("pcre:\"/91ii/Q\"; pcre:\"/SET/iD\";"));
        assert!(refused(
            "http.header.raw; content:\"a\"; file_data; content:\"b\";"
        ));
        assert!(refused(
            "http.header.raw; content:\"a\"; http.request_body; content:\"b\";"
        ));
    }
}
