//! `http.header.raw` needs a direction: Suricata 7.0.10 refuses a rule that inspects the
//! raw headers (the sticky buffer, the `http_raw_header` modifier or pcre's `/D` flag)
//! without `flow:to_server` or `flow:to_client` ("http_raw_header signature without a
//! flow direction"), even when another buffer of the rule (`http.uri`, `http.stat_code`)
//! implies one, except that the `http.response_body` sticky buffer anywhere in the rule
//! gives it the to-client direction (the `http_server_body` modifier does not: Osprey,
//! which does not tell the two apart, loads that rare form). Found by the differential
//! harness's `httpbuf` family
//! (tests/parity/difftest/fixed/dt-1-httpbuf-31).

use rules::{Buffer, BufferMatches, Flow};

use crate::sig::{failed, Refusal};

/// Refuses a raw-header buffer in a rule whose `flow` names no direction.
pub(crate) fn check(
    bm: &BufferMatches,
    all: &[BufferMatches],
    flow: Option<&Flow>,
) -> Result<(), Refusal> {
    if bm.buffer != Buffer::HttpHeaderRaw
        || flow.is_some_and(|f| f.to_server || f.to_client)
        || all.iter().any(|b| b.buffer == Buffer::HttpResponseBody)
    {
        return Ok(());
    }
    Err(failed(
        "http.header.raw",
        "http_raw_header signature without a flow direction (use flow:to_server or flow:to_client)",
    ))
}

#[cfg(test)]
mod tests {
    fn refused(opts: &str) -> bool {
        crate::testutil::refused(&format!("alert http any any -> any any ({opts} sid:1;)"))
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
        // http.response_body gives the rule a direction (Suricata 7.0.10, either order).
        assert!(!refused(
            "http.header.raw; content:\"a\"; http.response_body; content:\"b\";"
        ));
        assert!(!refused(
            "http.response_body; content:\"b\"; http.header.raw; content:\"a\";"
        ));
        assert!(refused(
            "http.header.raw; content:\"a\"; file_data; content:\"b\";"
        ));
        assert!(refused(
            "http.header.raw; content:\"a\"; http.request_body; content:\"b\";"
        ));
    }
}
