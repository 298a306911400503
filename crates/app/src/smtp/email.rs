//! The message of one mail as far as its headers: the top-level header lines of the
//! `DATA` / `BDAT` content (folded lines joined), of which `From`, `To`, `Cc` and
//! `Subject` are kept, and how far the message got (Suricata's `email.status`). MIME
//! bodies and attachments are not parsed.

use crate::util::trim;

/// The most bytes kept of one header value (folded lines included); the rest is
/// dropped.
pub const MAX_HEADER_VALUE: usize = 4096;

/// How far a message got (Suricata's `email.status` names).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Status {
    /// Nothing read yet: ready for the first header.
    #[default]
    HeaderReady,
    /// In the headers.
    HeaderStarted,
    /// Headers over (the blank line): in the body.
    BodyStarted,
    /// The message ended (`.` or the last `BDAT` chunk).
    ParseDone,
    /// The message could not be parsed (its content was cut: a gap, a rejected or
    /// inconsistent chunk).
    ParseError,
}

impl Status {
    /// The name Suricata writes.
    pub fn name(self) -> &'static str {
        match self {
            Status::HeaderStarted => "HEADER_STARTED",
            Status::HeaderReady => "HEADER_READY",
            Status::BodyStarted => "BODY_STARTED",
            Status::ParseDone => "PARSE_DONE",
            Status::ParseError => "PARSE_ERROR",
        }
    }
}

/// The kept headers of a message and its status.
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
    /// The header whose value folded lines continue.
    current: Option<Field>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Field {
    From,
    To,
    Cc,
    Subject,
    Other,
}

impl Email {
    fn slot(&mut self, f: Field) -> Option<&mut Option<Vec<u8>>> {
        match f {
            Field::From => Some(&mut self.from),
            Field::To => Some(&mut self.to),
            Field::Cc => Some(&mut self.cc),
            Field::Subject => Some(&mut self.subject),
            Field::Other => None,
        }
    }

    /// One line of the message content (dot-unstuffed, without its line end).
    pub fn line(&mut self, line: &[u8]) {
        if matches!(self.status, Status::HeaderReady | Status::HeaderStarted) {
            self.header_line(line)
        }
    }

    fn header_line(&mut self, line: &[u8]) {
        if line.is_empty() {
            self.status = Status::BodyStarted;
            self.current = None;
            return;
        }
        self.status = Status::HeaderStarted;
        if matches!(line[0], b' ' | b'\t') {
            if let Some(v) = self
                .current
                .and_then(|f| self.slot(f))
                .and_then(|v| v.as_mut())
            {
                let room = MAX_HEADER_VALUE.saturating_sub(v.len());
                v.extend_from_slice(&line[..line.len().min(room)]);
            }
            return;
        }
        let Some(colon) = memchr::memchr(b':', line) else {
            self.current = None;
            return;
        };
        let name = trim(&line[..colon]);
        let field = match name.to_ascii_lowercase().as_slice() {
            b"from" => Field::From,
            b"to" => Field::To,
            b"cc" => Field::Cc,
            b"subject" => Field::Subject,
            _ => Field::Other,
        };
        self.current = Some(field);
        if let Some(slot) = self.slot(field) {
            let v = trim(&line[colon + 1..]);
            *slot = Some(v[..v.len().min(MAX_HEADER_VALUE)].to_vec());
        }
    }

    /// The message ended (one that could not be parsed stays so, as Suricata
    /// reports a message whose MIME parsing failed).
    pub fn done(&mut self) {
        if self.status != Status::ParseError {
            self.status = Status::ParseDone;
        }
    }
}

/// The addresses of an address-list header (`To`, `Cc`), each trimmed.
pub fn addresses(v: &[u8]) -> impl Iterator<Item = &[u8]> {
    v.split(|&b| b == b',').map(trim).filter(|a| !a.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_with_folding_then_body() {
        let mut e = Email::default();
        assert_eq!(e.status.name(), "HEADER_READY");
        for l in [
            &b"Received: from x"[..],
            b"From: \"Gurpartap Singh\" <gurpartap@patriots.in>",
            b"To: <raj_deol2002in@yahoo.co.in>,",
            b"\t<b@c>",
            b"Subject: hi",
        ] {
            e.line(l);
        }
        assert_eq!(e.status, Status::HeaderStarted);
        e.line(b"");
        assert_eq!(e.status, Status::BodyStarted);
        e.line(b"From: not a header");
        assert_eq!(e.status, Status::BodyStarted);
        assert_eq!(
            e.from.as_deref(),
            Some(&b"\"Gurpartap Singh\" <gurpartap@patriots.in>"[..])
        );
        let to: Vec<_> = addresses(e.to.as_deref().unwrap()).collect();
        assert_eq!(to, [&b"<raj_deol2002in@yahoo.co.in>"[..], b"<b@c>"]);
        assert_eq!(e.subject.as_deref(), Some(&b"hi"[..]));
        e.done();
        assert_eq!(e.status.name(), "PARSE_DONE");
    }
}
