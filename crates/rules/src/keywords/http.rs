//! HTTP/1 and HTTP/2: sticky buffers and Snort-style buffer modifiers (`http_uri` ...);
//! the HTTP/2 options are in `http2.rs`.

use super::payload::HTTP;
use super::{Ctx, Keyword, Kind, Stickies, Value};
use crate::ast::{AppProto, Match};
use crate::buffers::Buffer;
use crate::diag::Reason;
use crate::parser::state::State;

/// HTTP/2 first (buffers Suricata registers for HTTP/2 and HTTP/1).
const HTTP2_FIRST: &[AppProto] = &[AppProto::Http2, AppProto::Http];

/// HTTP keywords.
pub(super) const KEYWORDS: &[Keyword] = &[
    Keyword::new(
        "http_uri",
        Value::None,
        Kind::BufferModifier(Buffer::HttpUri),
        move_content,
    )
    .protos(HTTP)
    .about(
        "content modifier: match in the normalised HTTP URI",
        "rules/http-keywords.html#http-uri-and-http-uri-raw",
    ),
    Keyword::new(
        "http_raw_uri",
        Value::None,
        Kind::BufferModifier(Buffer::HttpUriRaw),
        move_content,
    )
    .protos(HTTP)
    .about(
        "content modifier: match in the HTTP URI as sent",
        "rules/http-keywords.html#http_uri-and-http_raw-uri",
    ),
    Keyword::new(
        "http_method",
        Value::None,
        Kind::BufferModifier(Buffer::HttpMethod),
        move_content,
    )
    .protos(HTTP)
    .about(
        "content modifier: match in the HTTP request method",
        "rules/http-keywords.html#http-method",
    ),
    Keyword::new(
        "http_client_body",
        Value::None,
        Kind::BufferModifier(Buffer::HttpRequestBody),
        move_content,
    )
    .protos(HTTP)
    .about(
        "content modifier: match in the HTTP request body",
        "rules/http-keywords.html#http-client-body",
    ),
    Keyword::new(
        "http_server_body",
        Value::None,
        Kind::BufferModifier(Buffer::HttpResponseBody),
        move_content,
    )
    .protos(HTTP)
    .about(
        "content modifier: match in the HTTP response body",
        "rules/http-keywords.html#http-server-body",
    ),
    Keyword::new(
        "http_header",
        Value::None,
        Kind::BufferModifier(Buffer::HttpHeader),
        move_content,
    )
    .protos(HTTP)
    .about(
        "content modifier: match in the normalised HTTP headers",
        "rules/http-keywords.html#http-header-and-http-raw-header",
    ),
    Keyword::new(
        "http_raw_header",
        Value::None,
        Kind::BufferModifier(Buffer::HttpHeaderRaw),
        move_content,
    )
    .protos(HTTP)
    .about(
        "content modifier: match in the HTTP headers as sent",
        "rules/http-keywords.html#http-header-and-http-raw-header",
    ),
    Keyword::new(
        "http_cookie",
        Value::None,
        Kind::BufferModifier(Buffer::HttpCookie),
        move_content,
    )
    .aliases(&["http_raw_cookie"])
    .protos(HTTP)
    .about(
        "content modifier: match in the HTTP Cookie header",
        "rules/http-keywords.html#http-cookie",
    ),
    Keyword::new(
        "http_user_agent",
        Value::None,
        Kind::BufferModifier(Buffer::HttpUserAgent),
        move_content,
    )
    .protos(HTTP)
    .about(
        "content modifier: match in the HTTP User-Agent header",
        "rules/http-keywords.html#http-user-agent",
    ),
    Keyword::new(
        "http_host",
        Value::None,
        Kind::BufferModifier(Buffer::HttpHost),
        move_content,
    )
    .protos(HTTP)
    .about(
        "content modifier: match in the normalised HTTP Host",
        "rules/http-keywords.html#http-host-and-http-raw-host",
    ),
    Keyword::new(
        "http_raw_host",
        Value::None,
        Kind::BufferModifier(Buffer::HttpHostRaw),
        move_content,
    )
    .protos(HTTP)
    .about(
        "content modifier: match in the HTTP Host as sent",
        "rules/http-keywords.html#http-host-and-http-raw-host",
    ),
    Keyword::new(
        "http_stat_code",
        Value::None,
        Kind::BufferModifier(Buffer::HttpStatCode),
        move_content,
    )
    .protos(HTTP)
    .about(
        "content modifier: match in the HTTP response status code",
        "rules/http-keywords.html#http-stat-code",
    ),
    Keyword::new(
        "http_stat_msg",
        Value::None,
        Kind::BufferModifier(Buffer::HttpStatMsg),
        move_content,
    )
    .protos(HTTP)
    .about(
        "content modifier: match in the HTTP response status text",
        "rules/http-keywords.html#http-stat-msg",
    ),
];

/// HTTP buffers.
pub(super) const STICKY: Stickies = &[
    (
        &[
            Buffer::HttpUri,
            Buffer::HttpUriRaw,
            Buffer::HttpMethod,
            Buffer::HttpRequestLine,
            Buffer::HttpRequestBody,
            Buffer::HttpResponseBody,
            Buffer::HttpHeader,
            Buffer::HttpHeaderRaw,
            Buffer::HttpCookie,
            Buffer::HttpUserAgent,
            Buffer::HttpHost,
            Buffer::HttpHostRaw,
            Buffer::HttpAccept,
            Buffer::HttpAcceptEnc,
            Buffer::HttpAcceptLang,
            Buffer::HttpConnection,
            Buffer::HttpContentType,
            Buffer::HttpContentLen,
            Buffer::HttpReferer,
            Buffer::HttpStart,
            Buffer::HttpHeaderNames,
            Buffer::HttpProtocol,
            Buffer::HttpResponseLine,
            Buffer::HttpStatCode,
            Buffer::HttpStatMsg,
            Buffer::HttpServer,
            Buffer::HttpLocation,
        ],
        HTTP,
    ),
    (&[Buffer::Http2HeaderName], HTTP2_FIRST),
    // HTTP/1 headers too: Suricata 7.0.10 loads them in `http1` rules and matches
    // HTTP/1 transactions.
    (
        &[Buffer::HttpRequestHeader, Buffer::HttpResponseHeader],
        &[AppProto::Http2, AppProto::Http, AppProto::Http1],
    ),
];

/// `http_uri` ...: moves the preceding content (in the payload) to the buffer.
fn move_content(st: &mut State, c: &Ctx<'_>) {
    let (kw, o) = (c.kw, c.o);
    let Kind::BufferModifier(b) = c.def.kind else {
        return;
    };
    if st.sticky.is_some() {
        st.err(
            o.name_off,
            Reason::Semantic,
            kw,
            format!("'{kw}' used while a sticky buffer is set (reset with pkt_data first)"),
        );
        return;
    }
    let Some((blk, idx)) = st.last_content else {
        st.err(
            o.name_off,
            Reason::Semantic,
            kw,
            format!("'{kw}' needs a preceding content"),
        );
        return;
    };
    let cur = st.blocks[blk].buffer;
    if cur == b {
        return;
    }
    if cur != Buffer::Payload || !st.blocks[blk].transforms.is_empty() {
        st.err(
            o.name_off,
            Reason::Semantic,
            kw,
            format!("content is already in buffer {}", cur.name()),
        );
        return;
    }
    if let Match::Content(c) = &st.blocks[blk].matches[idx] {
        if c.rawbytes {
            st.err(
                o.name_off,
                Reason::Semantic,
                kw,
                format!("rawbytes cannot be used with '{kw}'"),
            );
            return;
        }
    }
    let m = st.blocks[blk].matches.remove(idx);
    let nb = st.block_for(b, &[]);
    st.push_match(nb, m);
}
