//! Framing of the command socket's byte stream into messages.
//!
//! Suricata's client sends JSON objects, the greeting without a newline and the commands
//! with one, and a message may arrive in several reads. Osprey's own older clients send
//! plain lines (`reload-rules\n`). A message starting with `{` or `[` is read as one JSON
//! value, however it is split or terminated; anything else is a line.

use serde_json::Value;

/// The largest message accepted (bytes); a longer one is refused and the connection
/// closed, so a client cannot make the buffer grow without bound.
pub const MAX_MESSAGE: usize = 64 * 1024;

/// One message taken from the stream.
#[derive(Debug, PartialEq)]
pub enum Frame {
    /// A complete JSON value.
    Json(Value),
    /// A plain text line (without its newline, trimmed).
    Line(String),
}

/// Why the stream cannot go on: the connection is answered with an error and closed.
#[derive(Debug, PartialEq)]
pub enum FrameError {
    /// Bytes that are not JSON where JSON began (the position is lost).
    Invalid(String),
    /// A message longer than [`MAX_MESSAGE`].
    TooLong,
}

/// Collects the bytes read and cuts them into messages.
#[derive(Debug, Default)]
pub struct Framer {
    buf: Vec<u8>,
}

impl Framer {
    /// Adds bytes read from the connection.
    pub fn push(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
    }

    /// The next complete message, `Ok(None)` until more bytes are needed.
    pub fn next_frame(&mut self) -> Result<Option<Frame>, FrameError> {
        let start = self
            .buf
            .iter()
            .position(|b| !b.is_ascii_whitespace())
            .unwrap_or(self.buf.len());
        self.buf.drain(..start);
        let Some(&first) = self.buf.first() else {
            return Ok(None);
        };
        if first == b'{' || first == b'[' {
            let mut stream = serde_json::Deserializer::from_slice(&self.buf).into_iter::<Value>();
            return match stream.next() {
                Some(Ok(v)) => {
                    let used = stream.byte_offset();
                    self.buf.drain(..used);
                    Ok(Some(Frame::Json(v)))
                }
                Some(Err(e)) if e.is_eof() => self.incomplete(),
                Some(Err(e)) => Err(FrameError::Invalid(e.to_string())),
                None => Ok(None),
            };
        }
        match self.buf.iter().position(|&b| b == b'\n') {
            Some(end) => {
                let line = String::from_utf8_lossy(&self.buf[..end]).trim().to_string();
                self.buf.drain(..=end);
                Ok(Some(Frame::Line(line)))
            }
            None => self.incomplete(),
        }
    }

    fn incomplete(&self) -> Result<Option<Frame>, FrameError> {
        if self.buf.len() > MAX_MESSAGE {
            Err(FrameError::TooLong)
        } else {
            Ok(None)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn frames(chunks: &[&[u8]]) -> Vec<Result<Option<Frame>, FrameError>> {
        let mut f = Framer::default();
        let mut out = Vec::new();
        for c in chunks {
            f.push(c);
            loop {
                let r = f.next_frame();
                let stop = !matches!(r, Ok(Some(_)));
                out.push(r);
                if stop {
                    break;
                }
            }
        }
        out
    }

    #[test]
    fn json_without_newline_and_split() {
        let r = frames(&[
            b"{\"version\": \"0.2\"}",
            b"{\"comm",
            b"and\": \"uptime\"}\n",
        ]);
        assert_eq!(r[0], Ok(Some(Frame::Json(json!({"version": "0.2"})))));
        assert_eq!(r[1], Ok(None));
        assert_eq!(r[2], Ok(None), "half a message waits");
        assert_eq!(r[3], Ok(Some(Frame::Json(json!({"command": "uptime"})))));
        assert_eq!(r[4], Ok(None));
    }

    #[test]
    fn two_messages_in_one_read() {
        let r = frames(&[b"{\"command\":\"version\"}\n{\"command\":\"uptime\"}"]);
        assert_eq!(r[0], Ok(Some(Frame::Json(json!({"command": "version"})))));
        assert_eq!(r[1], Ok(Some(Frame::Json(json!({"command": "uptime"})))));
    }

    #[test]
    fn plain_lines() {
        let r = frames(&[b"shut", b"down\r\n  reload-rules\n"]);
        assert_eq!(r[0], Ok(None));
        assert_eq!(r[1], Ok(Some(Frame::Line("shutdown".into()))));
        assert_eq!(r[2], Ok(Some(Frame::Line("reload-rules".into()))));
    }

    #[test]
    fn garbage_and_huge_input() {
        let r = frames(&[b"{\"command\": nope}"]);
        assert!(matches!(r[0], Err(FrameError::Invalid(_))), "{r:?}");
        let big = vec![b'a'; MAX_MESSAGE + 1];
        assert_eq!(frames(&[&big])[0], Err(FrameError::TooLong));
        let mut open = b"{\"command\": \"".to_vec();
        open.extend(vec![b'x'; MAX_MESSAGE]);
        assert_eq!(frames(&[&open])[0], Err(FrameError::TooLong));
        let binary: Vec<u8> = (0..=255u8).chain([b'\n']).collect();
        assert!(matches!(frames(&[&binary])[0], Ok(Some(Frame::Line(_)))));
    }
}
