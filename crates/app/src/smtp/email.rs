//! The message of one mail: its status (Suricata's `email.status`), the `From`, `To`,
//! `Cc` and `Subject` of its header, and what its MIME structure holds (attachment
//! names, URLs, the body's MD5), read by [`super::mime`].

use super::mime::url::UrlFlags;
use super::mime::{Parser, Sink};
use crate::util::trim;

/// How far a message got (Suricata's `email.status` names).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Status {
    /// Nothing read yet, or a multipart boundary: ready for an entity's header.
    #[default]
    HeaderReady,
    /// In an entity's header.
    HeaderStarted,
    /// Header over (the blank line): in a body.
    BodyStarted,
    /// The closing boundary of a multipart entity.
    BodyEndBound,
    /// The message ended (`.` or the last `BDAT` chunk).
    ParseDone,
    /// The message could not be parsed (its content was cut: a gap, a rejected or
    /// inconsistent chunk; or its MIME structure failed).
    ParseError,
}

impl Status {
    /// The name Suricata writes.
    pub fn name(self) -> &'static str {
        match self {
            Status::HeaderStarted => "HEADER_STARTED",
            Status::HeaderReady => "HEADER_READY",
            Status::BodyStarted => "BODY_STARTED",
            Status::BodyEndBound => "BODY_END_BOUND",
            Status::ParseDone => "PARSE_DONE",
            Status::ParseError => "PARSE_ERROR",
        }
    }
}

/// What is known of a message.
#[derive(Clone, Debug, Default)]
pub struct Email {
    /// How far it got.
    pub status: Status,
    /// `From`.
    pub from: Option<Vec<u8>>,
    /// `To`.
    pub to: Option<Vec<u8>>,
    /// `Cc`.
    pub cc: Option<Vec<u8>>,
    /// `Subject`.
    pub subject: Option<Vec<u8>>,
    /// Names of the attachments (the message's direct children with a file name).
    pub attachments: Vec<Vec<u8>>,
    /// URLs found in text bodies, in Suricata's order.
    pub urls: Vec<Vec<u8>>,
    /// What the URLs of the message's own body are (when it has any).
    pub url_flags: Option<UrlFlags>,
    /// MD5 of the body (`body-md5`), once the message ended.
    pub body_md5: Option<[u8; 16]>,
    mime: Parser,
}

impl Email {
    /// One line of the message content (dot-unstuffed, without its line end; `cut`:
    /// its end was dropped at the SMTP line limit).
    pub fn line(&mut self, line: &[u8], cut: bool, sink: &mut Sink<'_>) {
        let mut p = std::mem::take(&mut self.mime);
        p.line(self, line, cut, sink);
        self.mime = p;
    }

    /// The message ended (one that could not be parsed stays so, as Suricata
    /// reports a message whose MIME parsing failed).
    pub fn done(&mut self, sink: &mut Sink<'_>) {
        let mut p = std::mem::take(&mut self.mime);
        p.done(self, sink);
        self.mime = p;
        if self.status != Status::ParseError {
            self.status = Status::ParseDone;
        }
    }

    /// Whether a multipart entity is open: Suricata lists attachments and URLs only
    /// once none is.
    pub fn in_multipart(&self) -> bool {
        self.mime.in_multipart()
    }

    /// The message was cut short (a gap, the end of the flow): its open files are
    /// truncated; the status stays where it got.
    pub fn cut(&mut self, sink: &mut Sink<'_>) {
        let mut p = std::mem::take(&mut self.mime);
        p.cut(self, sink);
        self.mime = p;
    }
}

/// The addresses of an address-list header (`To`, `Cc`), each trimmed.
pub fn addresses(v: &[u8]) -> impl Iterator<Item = &[u8]> {
    v.split(|&b| b == b',').map(trim).filter(|a| !a.is_empty())
}
