//! SIP over UDP port 5060: a request (INVITE, REGISTER, OPTIONS, BYE, a method of the
//! needle letters) with its Via, From, To, Call-ID, CSeq and Content-Length headers
//! (an SDP body now and then) and the response (100, 180, 200, 404, 486, 603 with the
//! usual reason phrase, a reason of several words, or an empty one). The rule takes one or
//! two conditions of one side on the sticky buffers `sip.method`, `sip.uri`,
//! `sip.request_line`, `sip.protocol` (client) or `sip.stat_code`, `sip.stat_msg`,
//! `sip.response_line`, `sip.protocol` (server), in the forms of the HTTP buffer family;
//! a request-side buffer on the server's side is asked for too (it never matches).

use super::bufcond::{cond, Buf, Cond};
use super::httpbuf::buf;
use super::Flow;
use crate::case::Spec;
use crate::rulegen::{Family, Gen};

/// SIP request and response lines.
pub const SIP: Family = Family {
    name: "sip",
    keywords: &[
        "sip.method",
        "sip.uri",
        "sip.protocol",
        "sip.stat_code",
        "sip.stat_msg",
        "sip.request_line",
        "sip.response_line",
        "content",
        "nocase",
        "offset",
        "depth",
        "startswith",
        "endswith",
        "bsize",
        "isdataat",
        "distance",
        "within",
        "pcre",
        "flow",
    ],
    weight: 3,
    make: sip,
};

/// A message: its first line, the common headers, a body.
fn message(first: &str, call: &str, method: &str, body: &[u8]) -> Vec<u8> {
    let mut m = format!(
        "{first}\r\nVia: SIP/2.0/UDP 10.0.0.1:5060;branch=z9hG4bK{call}\r\n\
         From: <sip:alice@dt.test>;tag=1\r\nTo: <sip:bob@dt.test>\r\n\
         Call-ID: {call}@dt.test\r\nCSeq: 1 {method}\r\nMax-Forwards: 70\r\n"
    )
    .into_bytes();
    if !body.is_empty() {
        m.extend_from_slice(b"Content-Type: application/sdp\r\n");
    }
    m.extend_from_slice(format!("Content-Length: {}\r\n\r\n", body.len()).as_bytes());
    m.extend_from_slice(body);
    m
}

fn sip(g: &mut Gen<'_>) -> Spec {
    let intent = g.intent();
    let v6 = g.v6();
    let upper = |v: Vec<u8>| String::from_utf8_lossy(&v).to_ascii_uppercase();
    let method = match g.size(0, 5) {
        0 | 1 => "INVITE".to_string(),
        2 => "REGISTER".to_string(),
        3 => "OPTIONS".to_string(),
        4 => "BYE".to_string(),
        _ => {
            let n = g.size(3, 9);
            upper(g.needle(n))
        }
    };
    let un = g.size(3, 8);
    let user = String::from_utf8_lossy(&g.needle(un)).into_owned();
    let uri = match g.size(0, 2) {
        0 => format!("sip:{user}@dt.test"),
        1 => format!("sip:{user}@10.0.0.2:5060;transport=udp"),
        _ => format!("sips:{user}@dt.test"),
    };
    let proto = "SIP/2.0";
    let (code, reason) = match g.size(0, 7) {
        0 => ("100", "Trying".to_string()),
        1 => ("180", "Ringing".to_string()),
        2 | 3 => ("200", "OK".to_string()),
        4 => ("404", "Not Found".to_string()),
        5 => ("486", "Busy Here".to_string()),
        6 => ("603", String::new()),
        _ => {
            let n = g.size(2, 6);
            (
                "603",
                format!("Decline {}", String::from_utf8_lossy(&g.needle(n))),
            )
        }
    };
    let call = String::from_utf8_lossy(&g.needle(10)).into_owned();
    let req_line = format!("{method} {uri} {proto}");
    let resp_line = if reason.is_empty() {
        format!("{proto} {code} ")
    } else {
        format!("{proto} {code} {reason}")
    };
    let body: Vec<u8> = if method == "INVITE" && g.chance(0.5) {
        b"v=0\r\no=- 1 1 IN IP4 10.0.0.1\r\ns=-\r\nc=IN IP4 10.0.0.1\r\nt=0 0\r\nm=audio 4000 RTP/AVP 0\r\n"
            .to_vec()
    } else {
        Vec::new()
    };
    let req = message(&req_line, &call, &method, &body);
    let resp = message(&resp_line, &call, &method, &[]);
    let mut f = Flow::new(g.index, v6, 5060);
    if g.chance(0.5) {
        f.sport = 5060;
    }
    f.udp(true, &req);
    f.udp(false, &resp);
    let side_client = g.chance(0.5);
    let b = |s: &str| Some(s.as_bytes().to_vec());
    let bufs: Vec<Buf> = if side_client {
        vec![
            buf("sip.method", None, None, b(&method)),
            buf("sip.uri", None, None, b(&uri)),
            buf("sip.request_line", None, None, b(&req_line)),
            buf("sip.protocol", None, None, b(proto)),
            buf("sip.stat_code", None, None, None),
        ]
    } else {
        vec![
            buf("sip.stat_code", None, None, b(code)),
            buf("sip.stat_msg", None, None, b(&reason)),
            buf("sip.response_line", None, None, b(&resp_line)),
            buf("sip.protocol", None, None, b(proto)),
            buf("sip.method", None, None, None),
        ]
    };
    let mut conds: Vec<(String, Cond)> = Vec::new();
    for _ in 0..g.size(1, 2) {
        // The absent buffer (last) rarely.
        let i = if g.chance(0.08) {
            bufs.len() - 1
        } else {
            g.size(0, bufs.len() - 2)
        };
        let (form, c) = cond(g, &bufs[i]);
        conds.push((format!("{}-{form}", bufs[i].kw), c));
    }
    super::appval::udp_rule_case(g, intent, v6, &conds, side_client, "", "sip", f, 5060, req)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_parse_and_messages_start_with_their_line() {
        let (cases, ok) = crate::flows::sample_cases(200, sip);
        for c in &cases {
            assert!(c.spec.payload.ends_with(b"\r\n\r\n") || c.spec.payload.ends_with(b"0\r\n"));
            assert_eq!(c.frames(0).len(), 2);
        }
        assert!(ok >= 180, "{ok} of 200 parse");
    }
}
