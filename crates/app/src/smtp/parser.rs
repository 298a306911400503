//! SMTP's line layer: a bounded line splitter per direction (RFC 5321 lines end in
//! CRLF; a bare LF is taken too, as mail servers do) and the parsing of one command or
//! reply line.

use crate::util::trim;

/// The longest line kept (Suricata 7's SMTP line limit): the rest of a longer line, up
/// to its LF, is dropped and the line is reported as truncated.
pub const MAX_LINE: usize = 4096;

/// The longest message content line kept (`DATA`): Suricata 7 hands longer lines
/// than [`MAX_LINE`] whole to its MIME decoder.
pub const MAX_DATA_LINE: usize = 64 * 1024;

/// One direction's partial line.
#[derive(Clone, Debug, Default)]
pub struct LineBuf {
    buf: Vec<u8>,
    /// The line in progress passed [`MAX_LINE`]: its bytes up to LF are dropped.
    cut: bool,
}

/// A complete line from [`LineBuf::next_line`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Line<'a> {
    /// The line without its CRLF / LF (at most [`MAX_LINE`] bytes).
    pub text: &'a [u8],
    /// Bytes of the line dropped past [`MAX_LINE`].
    pub truncated: bool,
}

impl LineBuf {
    /// Takes bytes from `data` up to and including the next LF. Returns how many bytes
    /// were taken and whether a line is complete ([`LineBuf::line`] then has it until
    /// [`LineBuf::clear`]).
    pub fn feed(&mut self, data: &[u8]) -> (usize, bool) {
        self.feed_max(data, MAX_LINE)
    }

    /// [`LineBuf::feed`] with a line limit of `max` bytes (message content lines may
    /// be longer than command lines).
    pub fn feed_max(&mut self, data: &[u8], max: usize) -> (usize, bool) {
        let (take, done) = match memchr::memchr(b'\n', data) {
            Some(i) => (i + 1, true),
            None => (data.len(), false),
        };
        let room = max + 2 - self.buf.len().min(max + 2);
        let keep = take.min(room);
        self.buf.extend_from_slice(&data[..keep]);
        if keep < take {
            self.cut = true;
        }
        (take, done)
    }

    /// The complete line in the buffer.
    pub fn line(&self) -> Line<'_> {
        self.line_max(MAX_LINE)
    }

    /// [`LineBuf::line`] of a line fed with the limit `max`.
    pub fn line_max(&self, max: usize) -> Line<'_> {
        if self.buf.len() > max {
            // Cut as is: a line end past the limit is not part of the text.
            return Line {
                text: &self.buf[..max],
                truncated: true,
            };
        }
        let mut t = &self.buf[..];
        if t.last() == Some(&b'\n') {
            t = &t[..t.len() - 1];
        }
        if t.last() == Some(&b'\r') {
            t = &t[..t.len() - 1];
        }
        Line {
            text: t,
            truncated: self.cut,
        }
    }

    /// Forgets the line (after it was handled).
    pub fn clear(&mut self) {
        self.buf.clear();
        self.cut = false;
    }

    /// Whether a partial line is held.
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }
}

/// The client commands the state machine knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verb {
    /// `EHLO` / `HELO`.
    Helo,
    /// `MAIL FROM:`.
    MailFrom,
    /// `RCPT TO:`.
    RcptTo,
    /// `DATA`.
    Data,
    /// `BDAT <size> [LAST]`.
    Bdat,
    /// `RSET`.
    Rset,
    /// `QUIT`.
    Quit,
    /// `STARTTLS`.
    StartTls,
    /// Not a command: the `.` ending a `DATA` message (the server answers it).
    DataEnd,
    /// Anything else (`NOOP`, `AUTH`, `VRFY`, ...).
    Other,
}

/// A parsed command line: its verb and its argument (the text after the verb, or
/// after `FROM:` / `TO:`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Command<'a> {
    /// The verb.
    pub verb: Verb,
    /// The argument, trimmed.
    pub arg: &'a [u8],
}

fn starts_ci(line: &[u8], p: &[u8]) -> bool {
    line.len() >= p.len() && line[..p.len()].eq_ignore_ascii_case(p)
}

/// Parses a command line.
pub fn command(line: &[u8]) -> Command<'_> {
    let word_end = line
        .iter()
        .position(|&b| b == b' ' || b == b'\t')
        .unwrap_or(line.len());
    let word = &line[..word_end];
    let rest = trim(&line[word_end..]);
    // Upper-cased on the stack: every verb known is at most 8 bytes, a longer word is
    // none of them.
    let mut upper = [0u8; 8];
    let word = match upper.get_mut(..word.len()) {
        Some(u) => {
            u.copy_from_slice(word);
            u.make_ascii_uppercase();
            &u[..]
        }
        None => b"",
    };
    let verb = match word {
        b"EHLO" | b"HELO" => Verb::Helo,
        b"MAIL" if starts_ci(rest, b"FROM:") => Verb::MailFrom,
        b"RCPT" if starts_ci(rest, b"TO:") => Verb::RcptTo,
        b"DATA" => Verb::Data,
        b"BDAT" => Verb::Bdat,
        b"RSET" => Verb::Rset,
        b"QUIT" => Verb::Quit,
        b"STARTTLS" => Verb::StartTls,
        _ => Verb::Other,
    };
    let arg = match verb {
        Verb::MailFrom => trim(&rest[5..]),
        Verb::RcptTo => trim(&rest[3..]),
        _ => rest,
    };
    Command { verb, arg }
}

/// The path of a `MAIL FROM` / `RCPT TO` argument, without its parameters
/// (`<a@b> SIZE=525` gives `<a@b>`).
pub fn path(arg: &[u8]) -> &[u8] {
    let end = arg
        .iter()
        .position(|&b| b == b' ' || b == b'\t')
        .unwrap_or(arg.len());
    &arg[..end]
}

/// The chunk size and `LAST` flag of a `BDAT` argument; `None` if the size is not a
/// number.
pub fn bdat_arg(arg: &[u8]) -> Option<(u64, bool)> {
    let mut it = arg
        .split(|&b| b == b' ' || b == b'\t')
        .filter(|w| !w.is_empty());
    let size = std::str::from_utf8(it.next()?).ok()?.parse().ok()?;
    let last = it.next().is_some_and(|w| w.eq_ignore_ascii_case(b"LAST"));
    Some((size, last))
}

/// Whether `code` is a reply code of RFC 5321 (4.2.3) or of the AUTH extension
/// (RFC 4954): Suricata 7 takes any other as an invalid reply (sv-ether.pcap: `472`
/// and `521` are).
pub fn known_code(code: u16) -> bool {
    matches!(
        code,
        211 | 214
            | 220
            | 221
            | 235
            | 250
            | 251
            | 252
            | 334
            | 354
            | 421
            | 432
            | 450
            | 451
            | 452
            | 454
            | 455
            | 500
            | 501
            | 502
            | 503
            | 504
            | 530
            | 534
            | 535
            | 538
            | 550
            | 551
            | 552
            | 553
            | 554
            | 555
    )
}

/// A parsed reply line: its 3-digit code and whether more lines follow (`250-`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reply {
    /// The reply code (200..599 as sent; any three digits are taken).
    pub code: u16,
    /// A `-` after the code: a multi-line reply continues.
    pub more: bool,
}

/// Parses a reply line; `None` when it does not start with three digits followed by
/// the end of the line, a space or a `-`.
pub fn reply(line: &[u8]) -> Option<Reply> {
    if line.len() < 3 || !line[..3].iter().all(u8::is_ascii_digit) {
        return None;
    }
    let code = line[..3]
        .iter()
        .fold(0u16, |n, &d| n * 10 + u16::from(d - b'0'));
    let more = match line.get(3) {
        None | Some(b' ') | Some(b'\t') => false,
        Some(b'-') => true,
        Some(_) => return None,
    };
    Some(Reply { code, more })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_split_across_segments_and_bounded() {
        let mut l = LineBuf::default();
        assert_eq!(l.feed(b"EHLO a"), (6, false));
        assert_eq!(l.feed(b"b\r\nMAIL"), (3, true));
        assert_eq!(
            l.line(),
            Line {
                text: b"EHLO ab",
                truncated: false
            }
        );
        l.clear();
        let long = vec![b'x'; MAX_LINE + 100];
        assert_eq!(l.feed(&long), (long.len(), false));
        assert_eq!(l.feed(b"yy\n"), (3, true));
        let line = l.line();
        assert!(line.truncated);
        assert_eq!(line.text.len(), MAX_LINE);
    }

    #[test]
    fn commands_as_sent() {
        // From sv-ether.pcap (frames of the flow to 188.125.69.79:25).
        assert_eq!(
            command(b"EHLO sd-26634.localdomain"),
            Command {
                verb: Verb::Helo,
                arg: b"sd-26634.localdomain"
            }
        );
        assert_eq!(
            command(b"MAIL FROM:<rmkml@yahoo.fr> SIZE=1234"),
            Command {
                verb: Verb::MailFrom,
                arg: b"<rmkml@yahoo.fr> SIZE=1234"
            }
        );
        assert_eq!(command(b"rcpt to: <a@b>").verb, Verb::RcptTo);
        assert_eq!(command(b"rcpt to: <a@b>").arg, b"<a@b>");
        assert_eq!(command(b"MAIL").verb, Verb::Other);
        assert_eq!(command(b"data").verb, Verb::Data);
        assert_eq!(command(b"STARTTLS").verb, Verb::StartTls);
        assert_eq!(command(b"StartTls").verb, Verb::StartTls);
        assert_eq!(command(b"STARTTLSX").verb, Verb::Other);
        assert_eq!(command(b"VERYLONGCOMMAND x").verb, Verb::Other);
        assert_eq!(command(b" QUIT").verb, Verb::Other);
        assert_eq!(command(b"Quit").verb, Verb::Quit);
        assert_eq!(bdat_arg(b"86 LAST"), Some((86, true)));
        assert_eq!(bdat_arg(b"1024"), Some((1024, false)));
        assert_eq!(bdat_arg(b"x"), None);
    }

    #[test]
    fn replies() {
        assert_eq!(
            reply(b"220 mta1.example ESMTP"),
            Some(Reply {
                code: 220,
                more: false
            })
        );
        assert_eq!(
            reply(b"250-PIPELINING"),
            Some(Reply {
                code: 250,
                more: true
            })
        );
        assert_eq!(
            reply(b"354"),
            Some(Reply {
                code: 354,
                more: false
            })
        );
        assert_eq!(reply(b"25"), None);
        assert_eq!(reply(b"abc def"), None);
        assert_eq!(reply(b"250x"), None);
    }
}
