//! `multipart/form-data` request bodies (form uploads), as Suricata tracks them: each
//! part whose `Content-Disposition` names a `filename` is one file of the transaction,
//! named so and fed the part's content (up to the delimiter before the next part); the
//! other parts are no files. The parser works on the kept request body, remembering
//! how far it got, so a delimiter split across two reads is found.

use crate::files::{FileConfig, FileId, FileState, Files};
use crate::Direction;

/// Where the parser is in the body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Before the first delimiter.
    Preamble,
    /// Just after a delimiter: `--` ends the body, else the line ends.
    Delimiter,
    /// In a part's headers.
    Headers,
    /// In a part's content, feeding its file when it is one.
    Data(Option<FileId>),
    /// After the closing delimiter.
    Done,
}

/// The parser's state (plain data: the body and the boundary are passed in).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Multipart {
    pos: usize,
    phase: Phase,
}

/// Longest boundary accepted (RFC 2046: 70 characters).
const MAX_BOUNDARY: usize = 70;

/// The `boundary` parameter of a `multipart/form-data` `Content-Type` value.
pub(crate) fn boundary(ct: &[u8]) -> Option<Vec<u8>> {
    let mut params = ct.split(|&b| b == b';');
    let kind = params.next().map(trim)?;
    if !kind.eq_ignore_ascii_case(b"multipart/form-data") {
        return None;
    }
    for p in params.map(trim) {
        let Some(eq) = p.iter().position(|&b| b == b'=') else {
            continue;
        };
        if !trim(&p[..eq]).eq_ignore_ascii_case(b"boundary") {
            continue;
        }
        let v = trim(&p[eq + 1..]);
        let v = v
            .strip_prefix(b"\"")
            .map(|v| v.strip_suffix(b"\"").unwrap_or(v))
            .unwrap_or(v);
        return (!v.is_empty() && v.len() <= MAX_BOUNDARY).then(|| v.to_vec());
    }
    None
}

fn trim(v: &[u8]) -> &[u8] {
    let s = v
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(v.len());
    let e = v
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(s, |p| p + 1);
    &v[s..e.max(s)]
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(hay, needle)
}

/// The `filename` of a part's headers (`Content-Disposition`).
fn part_filename(headers: &[u8]) -> Option<Vec<u8>> {
    headers.split(|&b| b == b'\n').find_map(|line| {
        let colon = line.iter().position(|&b| b == b':')?;
        trim(&line[..colon])
            .eq_ignore_ascii_case(b"content-disposition")
            .then(|| super::files::disposition_filename(trim(&line[colon + 1..])))
            .flatten()
    })
}

impl Multipart {
    /// A parser at the start of a body.
    pub(crate) fn new() -> Self {
        Multipart {
            pos: 0,
            phase: Phase::Preamble,
        }
    }

    /// The file of the part being read, if it is one.
    pub(crate) fn open_file(&self) -> Option<FileId> {
        match self.phase {
            Phase::Data(f) => f,
            _ => None,
        }
    }

    /// Parses what `body` (the kept body so far) holds past the last call, opening,
    /// feeding and closing the parts' files in `files`; returns how many files the
    /// transaction could not hold.
    pub(crate) fn advance(
        &mut self,
        body: &[u8],
        boundary: &[u8],
        files: &mut Files,
        cfg: &FileConfig,
    ) -> u64 {
        let mut refused = 0;
        let dash = [&b"--"[..], boundary].concat();
        let delim = [&b"\r\n"[..], &dash].concat();
        loop {
            let rest = body.get(self.pos..).unwrap_or_default();
            match self.phase {
                Phase::Preamble => {
                    let Some(i) = find(rest, &dash) else {
                        self.pos += rest.len().saturating_sub(dash.len() - 1);
                        return refused;
                    };
                    self.pos += i + dash.len();
                    self.phase = Phase::Delimiter;
                }
                Phase::Delimiter => {
                    if rest.len() < 2 {
                        return refused;
                    }
                    if rest.starts_with(b"--") {
                        self.phase = Phase::Done;
                        continue;
                    }
                    let Some(e) = find(rest, b"\n") else {
                        return refused;
                    };
                    self.pos += e + 1;
                    self.phase = Phase::Headers;
                }
                Phase::Headers => {
                    let (hdr, skip) = if rest.starts_with(b"\r\n") {
                        (&rest[..0], 2)
                    } else {
                        match find(rest, b"\r\n\r\n") {
                            Some(e) => (&rest[..e], e + 4),
                            None => return refused,
                        }
                    };
                    let file = part_filename(hdr).and_then(|n| {
                        let id = files.open(cfg, &n, Direction::ToServer);
                        refused += u64::from(id.is_none());
                        id
                    });
                    self.pos += skip;
                    self.phase = Phase::Data(file);
                }
                Phase::Data(file) => match find(rest, &delim) {
                    Some(i) => {
                        if let Some(id) = file {
                            files.append(id, &rest[..i]);
                            files.close(id, FileState::Closed);
                        }
                        self.pos += i + delim.len();
                        self.phase = Phase::Delimiter;
                    }
                    None => {
                        // Keep back what could be the start of a delimiter.
                        let safe = rest.len().saturating_sub(delim.len() - 1);
                        if let Some(id) = file {
                            files.append(id, &rest[..safe]);
                        }
                        self.pos += safe;
                        return refused;
                    }
                },
                Phase::Done => return refused,
            }
        }
    }

    /// The body ended (`state`: how its message ended, or cut at the body limit): the
    /// part being read gets what was kept back and ends in `state`, or `TRUNCATED`
    /// when its delimiter never came.
    pub(crate) fn finish(&mut self, body: &[u8], files: &mut Files, state: FileState) {
        if let Phase::Data(Some(id)) = self.phase {
            files.append(id, body.get(self.pos..).unwrap_or_default());
            let s = if state == FileState::Closed {
                FileState::Truncated
            } else {
                state
            };
            files.close(id, s);
            self.pos = body.len();
            self.phase = Phase::Data(None);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A form with a text field and two files, as browsers send it.
    const BODY: &[u8] = b"--XyZ\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nfield\r\n\
--XyZ\r\nContent-Disposition: form-data; name=\"f1\"; filename=\"AAAApicture1.jpg\"\r\n\
Content-Type: image/jpeg\r\n\r\n\xff\xd8 one\r\n--XyZ\r\n\
Content-Disposition: form-data; name=\"f2\"; filename=\"b.txt\"\r\n\r\ntwo\r\n--Xy\r\n--XyZ--\r\n";

    fn parse_in_steps(step: usize) -> Files {
        let mut files = Files::default();
        let mut mp = Multipart::new();
        let cfg = FileConfig::default();
        let mut end = 0;
        while end < BODY.len() {
            end = (end + step).min(BODY.len());
            assert_eq!(mp.advance(&BODY[..end], b"XyZ", &mut files, &cfg), 0);
        }
        mp.finish(BODY, &mut files, FileState::Closed);
        files
    }

    #[test]
    fn parts_with_a_filename_are_files_however_the_body_is_split() {
        for step in [1, 2, 3, 7, 64, BODY.len()] {
            let files = parse_in_steps(step);
            let got: Vec<_> = files
                .iter()
                .map(|f| (f.name().to_vec(), f.head().to_vec(), f.state()))
                .collect();
            assert_eq!(
                got,
                [
                    (
                        b"AAAApicture1.jpg".to_vec(),
                        b"\xff\xd8 one".to_vec(),
                        FileState::Closed
                    ),
                    (
                        b"b.txt".to_vec(),
                        b"two\r\n--Xy".to_vec(),
                        FileState::Closed
                    ),
                ],
                "step {step}"
            );
        }
    }

    #[test]
    fn an_unfinished_part_is_truncated() {
        let body = &BODY[..BODY.len() - 9];
        let mut files = Files::default();
        let mut mp = Multipart::new();
        mp.advance(body, b"XyZ", &mut files, &FileConfig::default());
        assert!(mp.open_file().is_some());
        mp.finish(body, &mut files, FileState::Closed);
        let last = files.iter().last().unwrap();
        assert_eq!(last.state(), FileState::Truncated);
        assert_eq!(last.head(), b"two\r\n--Xy\r\n");
    }

    #[test]
    fn boundaries_are_read_from_the_content_type() {
        assert_eq!(
            boundary(b"multipart/form-data; boundary=\"----abc\""),
            Some(b"----abc".to_vec())
        );
        assert_eq!(
            boundary(b"Multipart/Form-Data;charset=x; BOUNDARY = q"),
            Some(b"q".to_vec())
        );
        assert_eq!(boundary(b"multipart/mixed; boundary=q"), None);
        assert_eq!(boundary(b"multipart/form-data"), None);
    }

    #[test]
    fn arbitrary_bodies_never_panic() {
        use proptest::prelude::*;
        proptest!(|(body in proptest::collection::vec(any::<u8>(), 0..256), cut in 0usize..256)| {
            let mut files = Files::default();
            let mut mp = Multipart::new();
            let cfg = FileConfig::default();
            let cut = cut.min(body.len());
            mp.advance(&body[..cut], b"ab", &mut files, &cfg);
            mp.advance(&body, b"ab", &mut files, &cfg);
            mp.finish(&body, &mut files, FileState::Closed);
            prop_assert!(files.iter().all(|f| f.state() != FileState::Open));
        });
    }
}
