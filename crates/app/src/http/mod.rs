//! HTTP/1.x over reassembled TCP streams, parsed the way Suricata's libhtp does (IDS
//! personality), producing Suricata's `http.*` inspection buffers.
//!
//! - [`parser`]: zero-copy parsers for single lines (request/status line, header,
//!   chunk size, Content-Length);
//! - [`uri`]: URI splitting and normalization for `http.uri`;
//! - `decompress`: gzip/deflate body decoding with an output cap;
//! - `files`: bodies as files ([`crate::Files`]);
//! - `events`: libhtp's warnings as Suricata's events, and the checks that find them;
//! - [`state`]: the per-flow streaming state machine ([`HttpState`]);
//! - [`tx`]: transactions and their buffers ([`HttpTx`]);
//! - `probe`: protocol detection (request methods, `HTTP/`);
//! - `header_bufs`: the `http.request_header`/`http.response_header` multi-buffers;
//! - `proto`: the buffer table and the protocol contract ([`crate::Protocol`],
//!   [`crate::Transaction`]);
//! - [`log`]: the EVE `http` object.

mod connect;
pub(crate) mod decompress;
mod events;
pub(crate) mod files;
mod header_bufs;
pub mod log;
pub(crate) mod lzma;
pub(crate) mod multipart;
pub mod parser;
mod probe;
mod proto;
pub mod state;
pub mod tx;
pub(crate) mod uri;

#[cfg(test)]
mod stream_tests;

pub use decompress::LzmaLimits;
pub use parser::ProtocolVersion;
pub(crate) use probe::{probe, METHODS};
pub(crate) use proto::{field_too_long_event, new_state, BUFFERS, EVENTS};
pub use state::{HttpBox, HttpState};
pub use tx::{Header, HttpTx, Message, Progress};

use crate::Direction;

/// Suricata's HTTP inspection buffers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HttpBuffer {
    /// `http.method`.
    Method,
    /// `http.uri` (normalized).
    Uri,
    /// `http.uri.raw`.
    UriRaw,
    /// `http.request_line`.
    RequestLine,
    /// `http.protocol`.
    Protocol,
    /// `http.header` (normalized, cookie excluded).
    Header,
    /// `http.header.raw`.
    HeaderRaw,
    /// `http.header_names`.
    HeaderNames,
    /// `http.cookie` (Cookie to server, Set-Cookie to client).
    Cookie,
    /// `http.user_agent`.
    UserAgent,
    /// `http.host` (lowercased, port stripped).
    Host,
    /// `http.host.raw`.
    HostRaw,
    /// `http.accept`.
    Accept,
    /// `http.accept_enc`.
    AcceptEnc,
    /// `http.accept_lang`.
    AcceptLang,
    /// `http.referer`.
    Referer,
    /// `http.connection`.
    Connection,
    /// `http.content_type`.
    ContentType,
    /// `http.content_len`.
    ContentLen,
    /// `http.request_body` (`http_client_body`).
    RequestBody,
    /// `http.stat_code`.
    StatCode,
    /// `http.stat_msg`.
    StatMsg,
    /// `http.response_line`.
    ResponseLine,
    /// `http.response_body` and HTTP `file_data` (dechunked, decompressed).
    ResponseBody,
    /// `http.server`.
    Server,
    /// `http.location`.
    Location,
    /// `http.start`: the request or response line and the headers (`Name: value\r\n`
    /// each, then `\r\n`).
    Start,
}

/// Every buffer, in declaration order.
pub const ALL_BUFFERS: [HttpBuffer; 27] = [
    HttpBuffer::Method,
    HttpBuffer::Uri,
    HttpBuffer::UriRaw,
    HttpBuffer::RequestLine,
    HttpBuffer::Protocol,
    HttpBuffer::Header,
    HttpBuffer::HeaderRaw,
    HttpBuffer::HeaderNames,
    HttpBuffer::Cookie,
    HttpBuffer::UserAgent,
    HttpBuffer::Host,
    HttpBuffer::HostRaw,
    HttpBuffer::Accept,
    HttpBuffer::AcceptEnc,
    HttpBuffer::AcceptLang,
    HttpBuffer::Referer,
    HttpBuffer::Connection,
    HttpBuffer::ContentType,
    HttpBuffer::ContentLen,
    HttpBuffer::RequestBody,
    HttpBuffer::StatCode,
    HttpBuffer::StatMsg,
    HttpBuffer::ResponseLine,
    HttpBuffer::ResponseBody,
    HttpBuffer::Server,
    HttpBuffer::Location,
    HttpBuffer::Start,
];

impl HttpBuffer {
    /// Suricata's sticky-buffer name.
    pub fn name(self) -> &'static str {
        match self {
            HttpBuffer::Method => "http.method",
            HttpBuffer::Uri => "http.uri",
            HttpBuffer::UriRaw => "http.uri.raw",
            HttpBuffer::RequestLine => "http.request_line",
            HttpBuffer::Protocol => "http.protocol",
            HttpBuffer::Header => "http.header",
            HttpBuffer::HeaderRaw => "http.header.raw",
            HttpBuffer::HeaderNames => "http.header_names",
            HttpBuffer::Cookie => "http.cookie",
            HttpBuffer::UserAgent => "http.user_agent",
            HttpBuffer::Host => "http.host",
            HttpBuffer::HostRaw => "http.host.raw",
            HttpBuffer::Accept => "http.accept",
            HttpBuffer::AcceptEnc => "http.accept_enc",
            HttpBuffer::AcceptLang => "http.accept_lang",
            HttpBuffer::Referer => "http.referer",
            HttpBuffer::Connection => "http.connection",
            HttpBuffer::ContentType => "http.content_type",
            HttpBuffer::ContentLen => "http.content_len",
            HttpBuffer::RequestBody => "http.request_body",
            HttpBuffer::StatCode => "http.stat_code",
            HttpBuffer::StatMsg => "http.stat_msg",
            HttpBuffer::ResponseLine => "http.response_line",
            HttpBuffer::ResponseBody => "http.response_body",
            HttpBuffer::Server => "http.server",
            HttpBuffer::Location => "http.location",
            HttpBuffer::Start => "http.start",
        }
    }

    /// The buffer for a sticky-buffer name or a legacy content modifier
    /// (`http_uri`, `http_raw_header`, `http_client_body`, `file_data`, ...).
    pub fn from_name(name: &str) -> Option<HttpBuffer> {
        if let Some(b) = ALL_BUFFERS.iter().find(|b| b.name() == name) {
            return Some(*b);
        }
        Some(match name {
            "http_method" => HttpBuffer::Method,
            "http_uri" | "uricontent" => HttpBuffer::Uri,
            "http_raw_uri" => HttpBuffer::UriRaw,
            "http_request_line" => HttpBuffer::RequestLine,
            "http_protocol" => HttpBuffer::Protocol,
            "http_header" => HttpBuffer::Header,
            "http_raw_header" => HttpBuffer::HeaderRaw,
            "http_header_names" => HttpBuffer::HeaderNames,
            "http_cookie" => HttpBuffer::Cookie,
            "http_user_agent" => HttpBuffer::UserAgent,
            "http_host" => HttpBuffer::Host,
            "http_raw_host" => HttpBuffer::HostRaw,
            "http_accept" => HttpBuffer::Accept,
            "http_accept_enc" => HttpBuffer::AcceptEnc,
            "http_accept_lang" => HttpBuffer::AcceptLang,
            "http_referer" => HttpBuffer::Referer,
            "http_connection" => HttpBuffer::Connection,
            "http_content_type" => HttpBuffer::ContentType,
            "http_content_len" => HttpBuffer::ContentLen,
            "http_client_body" | "http.request_body" => HttpBuffer::RequestBody,
            "http_stat_code" => HttpBuffer::StatCode,
            "http_stat_msg" => HttpBuffer::StatMsg,
            "http_response_line" => HttpBuffer::ResponseLine,
            "http_server_body" | "file_data" | "file.data" => HttpBuffer::ResponseBody,
            "http_server" => HttpBuffer::Server,
            "http_location" => HttpBuffer::Location,
            "http_start" => HttpBuffer::Start,
            _ => return None,
        })
    }

    /// The direction the buffer is taken from when it is not ambiguous: request-only
    /// buffers give `Some(ToServer)`, response-only `Some(ToClient)`, header buffers
    /// that exist on both sides `None` (the rule's flow direction decides).
    pub fn direction(self) -> Option<Direction> {
        use HttpBuffer::*;
        match self {
            Method | Uri | UriRaw | RequestLine | UserAgent | Host | HostRaw | Accept
            | AcceptEnc | AcceptLang | Referer | RequestBody => Some(Direction::ToServer),
            StatCode | StatMsg | ResponseLine | ResponseBody | Server | Location => {
                Some(Direction::ToClient)
            }
            Protocol | Header | HeaderRaw | HeaderNames | Cookie | Connection | ContentType
            | ContentLen | Start => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for b in ALL_BUFFERS {
            assert_eq!(HttpBuffer::from_name(b.name()), Some(b));
        }
        assert_eq!(
            HttpBuffer::from_name("file_data"),
            Some(HttpBuffer::ResponseBody)
        );
        assert_eq!(
            HttpBuffer::from_name("http_raw_header"),
            Some(HttpBuffer::HeaderRaw)
        );
        assert_eq!(HttpBuffer::from_name("nope"), None);
        assert_eq!(HttpBuffer::Uri.direction(), Some(Direction::ToServer));
        assert_eq!(HttpBuffer::Header.direction(), None);
    }
}
