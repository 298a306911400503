//! The MIME structure of a message (RFC 2045/2046), read line by line as the SMTP
//! `DATA` content arrives: the header of each entity (folded lines joined, values
//! bounded by `header-value-depth`), nested `multipart/*` entities split at their
//! boundaries, `message/rfc822` entities opened as a new entity, and leaf bodies
//! decoded (base64, quoted-printable) into the transaction's [`Files`] (a leaf with a
//! file name is an attachment) or scanned for URLs (text bodies).
//!
//! What Suricata 7.0.10 reports of the structure follows its output on sv-ether.pcap
//! and on crafted mails: `attachment` lists the names of the first entity's direct
//! children only, `url` the URLs of the first entity and of its direct children (each
//! entity's own in reverse order), and the `has_*_url` flags only when the first
//! entity itself has URLs; all three only once no multipart entity is open (a message
//! in progress, or one whose closing boundary never came, has none).
//!
//! - [`decode`]: base64 and quoted-printable; [`header`]: media types and parameters;
//!   [`url`]: URL extraction.

pub mod decode;
pub mod header;
pub mod url;

use md5::{Digest, Md5};

use super::email::{Email, Status};
use super::events as ev;
use crate::util::trim;
use crate::{Direction, FileConfig, FileId, FileState, Files};
use decode::Base64;
use url::UrlFlags;

/// `app-layer.protocols.smtp.mime` of `suricata.yaml`, with Suricata's defaults when
/// it is absent.
#[derive(Clone, Debug)]
pub struct MimeConfig {
    /// `decode-mime`: parse the MIME structure at all (otherwise only the message's
    /// own header is read).
    pub decode_mime: bool,
    /// `decode-base64`.
    pub decode_base64: bool,
    /// `decode-quoted-printable`.
    pub decode_quoted_printable: bool,
    /// `header-value-depth`: bytes kept of one header value.
    pub header_value_depth: usize,
    /// `extract-urls`.
    pub extract_urls: bool,
    /// `extract-urls-schemes` (lower case, without `://`).
    pub extract_urls_schemes: Vec<Vec<u8>>,
    /// `log-url-scheme`: URLs keep their scheme.
    pub log_url_scheme: bool,
    /// `body-md5`: compute the MD5 of the message body.
    pub body_md5: bool,
}

impl Default for MimeConfig {
    fn default() -> Self {
        MimeConfig {
            decode_mime: true,
            decode_base64: true,
            decode_quoted_printable: true,
            header_value_depth: 2000,
            // Off unless configured, as Suricata 7.0.10 runs without the setting (the
            // stock suricata.yaml turns it on).
            extract_urls: false,
            extract_urls_schemes: vec![b"http".to_vec()],
            log_url_scheme: false,
            body_md5: false,
        }
    }
}

/// Longest line of a message (RFC 5322 §2.1.1): longer ones raise
/// `smtp.mime_long_line`.
pub const MAX_LINE: usize = 998;
/// Longest encoded line (RFC 2045 §6.7, §6.8): longer ones raise
/// `smtp.mime_long_enc_line`.
pub const MAX_ENC_LINE: usize = 76;
/// Longest boundary taken; a longer one raises `smtp.mime_long_boundary` and ends
/// the MIME parsing of the message (`smtp.mime_parse_failed`).
pub const MAX_BOUNDARY: usize = 254;
/// Longest attachment name kept; longer ones are cut (`smtp.mime_long_filename`).
pub const MAX_FILENAME: usize = 255;
/// Nested multipart entities followed at most; deeper ones are not split.
pub const MAX_DEPTH: usize = 32;
/// URLs and attachment names kept per message at most.
pub const MAX_LIST: usize = 256;
/// Bytes of decoded text held while looking for a line end (URL extraction).
pub const MAX_TEXT: usize = 64 * 1024;

/// What the parser writes to besides the message: the configuration, the
/// transaction's files and the events raised (indices of `smtp`'s event table).
pub struct Sink<'a> {
    /// The MIME options.
    pub cfg: &'a MimeConfig,
    /// How files are tracked.
    pub files_cfg: &'a FileConfig,
    /// The transaction's files.
    pub files: &'a mut Files,
    /// Events raised.
    pub events: &'a mut Vec<usize>,
}

/// The header being read (continued by folded lines).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Field {
    From,
    To,
    Cc,
    Subject,
    ContentType,
    Encoding,
    Disposition,
    Other,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Enc {
    #[default]
    Plain,
    Base64,
    Qp,
}

/// What is done with an entity's body.
#[derive(Clone, Debug, Default)]
enum Body {
    /// Not read (a multipart's preamble or epilogue, or no MIME decoding).
    #[default]
    Skip,
    /// A leaf: decoded into its file and/or scanned for URLs.
    Leaf(Box<Leaf>),
}

#[derive(Clone, Debug, Default)]
struct Leaf {
    enc: Enc,
    file: Option<FileId>,
    /// Scanned for URLs.
    text: bool,
    /// The line end before the next line belongs to the content.
    pending_crlf: bool,
    b64: Base64,
    /// Decoded text not yet scanned (no line end yet).
    line: Vec<u8>,
    urls: Vec<Vec<u8>>,
    /// The decoded bytes of the body line being read (kept between lines, so that a
    /// body does not allocate per line).
    decoded: Vec<u8>,
}

/// One entity being read.
#[derive(Clone, Debug, Default)]
struct Part {
    /// 0 for the message itself, 1 for its children...
    depth: usize,
    in_body: bool,
    field: Option<(Field, Vec<u8>)>,
    content_type: Vec<u8>,
    encoding: Vec<u8>,
    disposition: Vec<u8>,
    body: Body,
}

impl Part {
    fn new(depth: usize) -> Self {
        Part {
            depth,
            ..Part::default()
        }
    }
}

/// The running MD5 of the body.
#[derive(Clone, Default)]
struct BodyHash(Option<Md5>);

impl core::fmt::Debug for BodyHash {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(if self.0.is_some() { "md5" } else { "-" })
    }
}

/// The MIME parsing state of one message.
#[derive(Clone, Debug, Default)]
pub struct Parser {
    part: Part,
    /// Open multipart boundaries, outermost first, with their entity's depth.
    bounds: Vec<(Vec<u8>, usize)>,
    failed: bool,
    md5: BodyHash,
    /// Events raised (once per message each).
    raised: u64,
}

impl Parser {
    fn event(&mut self, sink: &mut Sink<'_>, i: usize) {
        if self.raised & 1 << i == 0 {
            self.raised |= 1 << i;
            sink.events.push(i);
        }
    }

    /// One line of the message (dot-unstuffed, without its line end; `cut`: the SMTP
    /// line limit dropped its end).
    pub fn line(&mut self, e: &mut Email, line: &[u8], cut: bool, sink: &mut Sink<'_>) {
        if self.failed {
            return;
        }
        if let Some(h) = &mut self.md5.0 {
            h.update(line);
            h.update(b"\r\n");
        }
        if let Some(rest) = line.strip_prefix(b"--") {
            if let Some(i) = self.bounds.iter().rposition(|(b, _)| rest.starts_with(b)) {
                let closing = rest[self.bounds[i].0.len()..].starts_with(b"--");
                self.end_part(e, sink, FileState::Closed);
                let depth = self.bounds[i].1;
                self.bounds.truncate(i + 1);
                if closing {
                    self.bounds.pop();
                    self.part = Part::new(depth);
                    self.part.in_body = true;
                    e.status = Status::BodyEndBound;
                } else {
                    self.part = Part::new(depth + 1);
                    e.status = Status::HeaderReady;
                }
                return;
            }
        }
        let long = line.len() > MAX_LINE || cut;
        if self.part.in_body {
            // Suricata 7.0.10 reports a long line of a body it decodes or scans, not
            // one of a plain attachment (sv-ether.pcap flow 1.1.205.22:4053).
            if long && matches!(&self.part.body, Body::Leaf(l) if l.text || l.enc != Enc::Plain) {
                self.event(sink, ev::MIME_LONG_LINE);
            }
            self.body_line(line, sink);
        } else {
            if long {
                self.event(sink, ev::MIME_LONG_LINE);
            }
            self.header_line(e, line, sink);
        }
    }

    fn header_line(&mut self, e: &mut Email, line: &[u8], sink: &mut Sink<'_>) {
        if line.is_empty() {
            self.end_field(e);
            return self.end_header(e, sink);
        }
        e.status = Status::HeaderStarted;
        let depth = sink.cfg.header_value_depth;
        if matches!(line[0], b' ' | b'\t') {
            if let Some((_, v)) = &mut self.part.field {
                let room = depth.saturating_sub(v.len());
                v.extend_from_slice(&line[..line.len().min(room)]);
            }
            return;
        }
        self.end_field(e);
        let Some(colon) = memchr::memchr(b':', line) else {
            return;
        };
        let field = match trim(&line[..colon]).to_ascii_lowercase().as_slice() {
            b"from" => Field::From,
            b"to" => Field::To,
            b"cc" => Field::Cc,
            b"subject" => Field::Subject,
            b"content-type" => Field::ContentType,
            b"content-transfer-encoding" => Field::Encoding,
            b"content-disposition" => Field::Disposition,
            _ => Field::Other,
        };
        let v = &line[colon + 1..];
        let v = if field == Field::Other {
            Vec::new()
        } else {
            v[..v.len().min(depth)].to_vec()
        };
        self.part.field = Some((field, v));
    }

    /// The header in progress is complete.
    fn end_field(&mut self, e: &mut Email) {
        let Some((field, v)) = self.part.field.take() else {
            return;
        };
        let v = trim(&v).to_vec();
        let root = self.part.depth == 0;
        match field {
            Field::From if root => e.from = Some(v),
            Field::To if root => e.to = Some(v),
            Field::Cc if root => e.cc = Some(v),
            Field::Subject if root => e.subject = Some(v),
            Field::ContentType => self.part.content_type = v,
            Field::Encoding => self.part.encoding = v,
            Field::Disposition => self.part.disposition = v,
            _ => {}
        }
    }

    /// The blank line after an entity's header: what its body is.
    fn end_header(&mut self, e: &mut Email, sink: &mut Sink<'_>) {
        e.status = Status::BodyStarted;
        self.part.in_body = true;
        let depth = self.part.depth;
        if depth == 0 && sink.cfg.body_md5 {
            self.md5.0 = Some(Md5::new());
        }
        if !sink.cfg.decode_mime {
            return;
        }
        let ct = &self.part.content_type;
        let media = header::media_type(ct);
        if media.starts_with(b"multipart/") && self.bounds.len() < MAX_DEPTH {
            if let Some(b) = header::param(ct, b"boundary") {
                if b.len() > MAX_BOUNDARY {
                    // Suricata 7.0.10 reports both twice (sv-ether.pcap flow
                    // 192.168.111.128:49601, and crafted mails whatever follows).
                    sink.events
                        .extend([ev::MIME_LONG_BOUNDARY, ev::MIME_PARSE_FAILED]);
                    sink.events
                        .extend([ev::MIME_PARSE_FAILED, ev::MIME_LONG_BOUNDARY]);
                    self.failed = true;
                    e.status = Status::ParseError;
                    return;
                }
                self.bounds.push((b, depth));
                return;
            }
        }
        if media == b"message/rfc822" && depth < MAX_DEPTH {
            self.part = Part::new(depth + 1);
            return;
        }
        let name = header::param(&self.part.disposition, b"filename")
            .or_else(|| header::param(ct, b"name"));
        let enc = match trim(&self.part.encoding).to_ascii_lowercase().as_slice() {
            b"base64" if sink.cfg.decode_base64 => Enc::Base64,
            b"quoted-printable" if sink.cfg.decode_quoted_printable => Enc::Qp,
            _ => Enc::Plain,
        };
        let text = name.is_none()
            && sink.cfg.extract_urls
            && (media.is_empty() || media.starts_with(b"text/"));
        let file = name.and_then(|mut n| {
            if n.len() > MAX_FILENAME {
                n.truncate(MAX_FILENAME);
                self.event(sink, ev::MIME_LONG_FILENAME);
            }
            if depth == 1 && e.attachments.len() < MAX_LIST {
                e.attachments.push(n.clone());
            }
            sink.files.open(sink.files_cfg, &n, Direction::ToServer)
        });
        if file.is_some() || text {
            self.part.body = Body::Leaf(Box::new(Leaf {
                enc,
                file,
                text,
                ..Leaf::default()
            }));
        }
    }

    fn body_line(&mut self, line: &[u8], sink: &mut Sink<'_>) {
        let Body::Leaf(leaf) = &mut self.part.body else {
            return;
        };
        let mut out = std::mem::take(&mut leaf.decoded);
        out.clear();
        if leaf.pending_crlf {
            out.extend_from_slice(b"\r\n");
        }
        let (mut long, mut bad_b64, mut bad_qp) = (false, false, false);
        match leaf.enc {
            Enc::Plain => leaf.pending_crlf = true,
            Enc::Base64 => {
                long = line.len() > MAX_ENC_LINE;
                bad_b64 = leaf.b64.line(line, &mut out);
            }
            Enc::Qp => {
                // A hard line end is content at once (also the last one before a
                // boundary, as Suricata counts quoted-printable files).
                long = line.len() > MAX_ENC_LINE;
                let (soft, invalid) = decode::qp_line(line, &mut out);
                if !soft {
                    out.extend_from_slice(b"\r\n");
                }
                bad_qp = invalid;
            }
        }
        if leaf.enc == Enc::Plain {
            out.extend_from_slice(line);
        }
        leaf.feed(&out, sink);
        leaf.decoded = out;
        for (hit, i) in [
            (long, ev::MIME_LONG_ENC_LINE),
            (bad_b64, ev::MIME_INVALID_BASE64),
            (bad_qp, ev::MIME_INVALID_QP),
        ] {
            if hit {
                self.event(sink, i);
            }
        }
    }

    /// The entity being read ended: its file ends in `state`, its URLs are kept.
    fn end_part(&mut self, e: &mut Email, sink: &mut Sink<'_>, state: FileState) {
        self.end_field(e);
        let depth = self.part.depth;
        let mut body = std::mem::take(&mut self.part.body);
        let Body::Leaf(leaf) = &mut body else {
            return;
        };
        let mut out = Vec::new();
        leaf.b64.flush(&mut out);
        leaf.feed(&out, sink);
        leaf.scan_rest(sink);
        if let Some(id) = leaf.file {
            sink.files.close(id, state);
        }
        if depth > 1 || leaf.urls.is_empty() {
            return;
        }
        let room = MAX_LIST.saturating_sub(e.urls.len());
        let urls = leaf.urls.drain(..).rev().take(room);
        if depth == 0 {
            let mut flags = UrlFlags::default();
            let urls: Vec<_> = urls.collect();
            urls.iter().for_each(|u| flags.add(u));
            e.url_flags = Some(flags);
            e.urls.splice(0..0, urls);
        } else {
            e.urls.extend(urls);
        }
    }

    /// The message ended (`.`): the entity being read is complete.
    pub fn done(&mut self, e: &mut Email, sink: &mut Sink<'_>) {
        self.end_part(e, sink, FileState::Closed);
        if !self.bounds.is_empty() && !self.failed {
            // A multipart entity never closed.
            self.event(sink, ev::MIME_MALFORMED_MSG);
        }
        self.finish(e);
    }

    /// The message was cut (a gap, the end of the flow): the file being written is
    /// truncated, and nothing more is parsed.
    pub fn cut(&mut self, e: &mut Email, sink: &mut Sink<'_>) {
        self.end_part(e, sink, FileState::Truncated);
        sink.files.close_all(FileState::Truncated);
        self.failed = true;
    }

    /// Whether a multipart entity is open (its closing boundary not seen yet).
    pub fn in_multipart(&self) -> bool {
        !self.bounds.is_empty()
    }

    fn finish(&mut self, e: &mut Email) {
        if let Some(h) = self.md5.0.take() {
            e.body_md5 = Some(h.finalize().into());
        }
    }
}

impl Leaf {
    /// Decoded bytes: to the file, and to the URL scan line by line.
    fn feed(&mut self, data: &[u8], sink: &mut Sink<'_>) {
        if data.is_empty() {
            return;
        }
        if let Some(id) = self.file {
            sink.files.append(id, data);
        }
        if !self.text {
            return;
        }
        self.line.extend_from_slice(data);
        if let Some(end) = memchr::memrchr(b'\n', &self.line) {
            let rest = self.line.split_off(end + 1);
            let done = std::mem::replace(&mut self.line, rest);
            self.scan(&done, sink);
        }
        if self.line.len() > MAX_TEXT {
            self.scan_rest(sink);
        }
    }

    fn scan_rest(&mut self, sink: &mut Sink<'_>) {
        let done = std::mem::take(&mut self.line);
        self.scan(&done, sink);
    }

    fn scan(&mut self, text: &[u8], sink: &mut Sink<'_>) {
        if !self.text || text.is_empty() {
            return;
        }
        let cfg = sink.cfg;
        let urls = &mut self.urls;
        url::scan(
            text,
            &cfg.extract_urls_schemes,
            cfg.log_url_scheme,
            &mut |u| {
                if urls.len() < MAX_LIST {
                    urls.push(u)
                }
            },
        );
    }
}

#[cfg(test)]
mod tests;
