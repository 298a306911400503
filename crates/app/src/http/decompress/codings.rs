//! `Content-Encoding` values read as libhtp reads them: which codings, in which
//! order, within the layer limit, with lzma counted as `lzma-enabled` allows.

use crate::util::{contains_nocase, trim};

/// A content coding libhtp undoes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Coding {
    Gzip,
    Deflate,
    /// lzma-alone data (only with `lzma-enabled`).
    Lzma,
}

/// libhtp's lzma settings, as Suricata's `libhtp.default-config` names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LzmaLimits {
    /// `lzma-enabled`: how many lzma layers a `Content-Encoding` list may hold (0:
    /// lzma is passed through; `yes` is 1, a number sets it).
    pub layers: usize,
    /// `lzma-memlimit`: the most an lzma dictionary may grow to (1 MiB).
    pub memlimit: usize,
    /// `compression-bomb-limit`: decompressed bytes past which a body whose output is
    /// over 2048 times its input is a compression bomb (1 MiB).
    pub bomb_limit: usize,
}

impl Default for LzmaLimits {
    fn default() -> Self {
        LzmaLimits {
            layers: 0,
            memlimit: 1 << 20,
            bomb_limit: 1 << 20,
        }
    }
}

/// The codings of an HTTP/1 `Content-Encoding` value with libhtp's lzma rules: a
/// value that is exactly `lzma` (any case) is one lzma layer when lzma is enabled (else
/// passed through); in a list, `lzma` (spelt so) is a layer only while fewer than
/// `lzma.layers` layers come before it, otherwise the list ends there and libhtp
/// reports a compression bomb (the `bool`).
pub(crate) fn codings_http1(value: &[u8], limit: usize, lzma: &LzmaLimits) -> (Codings, bool) {
    // NUL bytes are skipped; a copy without them only when there are some.
    let exactly_lzma = if memchr::memchr(0, value).is_some() {
        let v: Vec<u8> = value.iter().copied().filter(|&b| b != 0).collect();
        trim(&v).eq_ignore_ascii_case(b"lzma")
    } else {
        trim(value).eq_ignore_ascii_case(b"lzma")
    };
    if exactly_lzma {
        let mut c = Codings::new();
        if lzma.layers > 0 && limit > 0 {
            c.push(Coding::Lzma);
        }
        return (c, false);
    }
    codings_with(value, limit, Some(lzma.layers))
}

/// The codings named by a `Content-Encoding` value, in the order libhtp undoes them:
/// as listed (not last applied first: each layer finds the format its bytes are in,
/// and one whose bytes are in the other format reports the tries that failed first),
/// at most `limit` of them; `identity` is skipped, and an
/// unknown token ends the list (what follows is passed through).
pub(crate) fn codings(value: &[u8], limit: usize) -> Codings {
    codings_with(value, limit, None).0
}

/// [`codings`], with `lzma` tokens as libhtp's HTTP/1 list takes them when
/// `lzma_layers` is given ([`codings_http1`]).
fn codings_with(value: &[u8], limit: usize, lzma_layers: Option<usize>) -> (Codings, bool) {
    let mut v = Codings::new();
    // NUL bytes are ignored (a copy without them only when there are some).
    let value: std::borrow::Cow<'_, [u8]> = if value.contains(&0) {
        value.iter().copied().filter(|&b| b != 0).collect()
    } else {
        value.into()
    };
    for tok in value.split(|&b| b == b',') {
        if v.len() >= limit {
            break;
        }
        let t = trim(tok);
        let c = if t.eq_ignore_ascii_case(b"gzip") || t.eq_ignore_ascii_case(b"x-gzip") {
            Coding::Gzip
        } else if t.eq_ignore_ascii_case(b"deflate") || t.eq_ignore_ascii_case(b"x-deflate") {
            Coding::Deflate
        } else if t.is_empty() || t.eq_ignore_ascii_case(b"identity") {
            continue;
        } else if t == b"lzma" && lzma_layers.is_some() {
            if lzma_layers.is_some_and(|n| v.len() >= n) {
                return (v, true);
            }
            Coding::Lzma
        } else if contains_nocase(t, b"gzip") {
            Coding::Gzip
        } else if contains_nocase(t, b"deflate") {
            Coding::Deflate
        } else {
            break;
        };
        v.push(c);
    }
    (v, false)
}

/// The codings of one header: held inline up to four layers (the default limit is
/// two).
pub(crate) type Codings = smallvec::SmallVec<[Coding; 4]>;
