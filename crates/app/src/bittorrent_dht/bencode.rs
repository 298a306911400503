//! A bounded bencode reader (BEP 3): integers, byte strings, lists and dictionaries,
//! borrowing from the input; nesting deeper than [`MAX_DEPTH`] or anything malformed
//! is an error.

/// The deepest nesting read.
pub const MAX_DEPTH: usize = 16;

/// A bencoded value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Bencode<'a> {
    /// `i<n>e`.
    Int(i64),
    /// `<len>:<bytes>`.
    Bytes(&'a [u8]),
    /// `l...e`.
    List(Vec<Bencode<'a>>),
    /// `d...e`: keys and values in order.
    Dict(Vec<(&'a [u8], Bencode<'a>)>),
}

impl<'a> Bencode<'a> {
    /// A dictionary's value for `key`.
    pub fn get(&self, key: &str) -> Option<&Bencode<'a>> {
        match self {
            Bencode::Dict(d) => d.iter().find(|(k, _)| *k == key.as_bytes()).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The bytes of a byte string.
    pub fn bytes(&self) -> Option<&'a [u8]> {
        match self {
            Bencode::Bytes(b) => Some(b),
            _ => None,
        }
    }

    /// The value of an integer.
    pub fn int(&self) -> Option<i64> {
        match self {
            Bencode::Int(n) => Some(*n),
            _ => None,
        }
    }
}

/// Reads one value at the start of `data`: the value and what follows it.
pub fn parse(data: &[u8]) -> Option<(Bencode<'_>, &[u8])> {
    value(data, 0)
}

fn value(data: &[u8], depth: usize) -> Option<(Bencode<'_>, &[u8])> {
    if depth > MAX_DEPTH {
        return None;
    }
    match *data.first()? {
        b'i' => {
            let end = data.iter().position(|&c| c == b'e')?;
            let s = std::str::from_utf8(&data[1..end]).ok()?;
            Some((Bencode::Int(s.parse().ok()?), &data[end + 1..]))
        }
        b'l' => {
            let mut rest = &data[1..];
            let mut items = Vec::new();
            while *rest.first()? != b'e' {
                let (v, r) = value(rest, depth + 1)?;
                items.push(v);
                rest = r;
            }
            Some((Bencode::List(items), &rest[1..]))
        }
        b'd' => {
            let mut rest = &data[1..];
            let mut items = Vec::new();
            while *rest.first()? != b'e' {
                let (k, r) = string(rest)?;
                let (v, r) = value(r, depth + 1)?;
                items.push((k, v));
                rest = r;
            }
            Some((Bencode::Dict(items), &rest[1..]))
        }
        b'0'..=b'9' => string(data).map(|(s, r)| (Bencode::Bytes(s), r)),
        _ => None,
    }
}

fn string(data: &[u8]) -> Option<(&[u8], &[u8])> {
    let colon = data.iter().take(20).position(|&c| c == b':')?;
    let len: usize = std::str::from_utf8(&data[..colon]).ok()?.parse().ok()?;
    let start = colon + 1;
    let end = start.checked_add(len)?;
    Some((data.get(start..end)?, &data[end..]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn values() {
        let (v, rest) = parse(b"d1:ai-3e1:bl2:xyi7eee!").unwrap();
        assert_eq!(rest, b"!");
        assert_eq!(v.get("a").and_then(Bencode::int), Some(-3));
        assert_eq!(
            v.get("b"),
            Some(&Bencode::List(vec![Bencode::Bytes(b"xy"), Bencode::Int(7)]))
        );
        for bad in [
            &b"d1:a"[..],
            b"i12",
            b"5:ab",
            b"x",
            b"l",
            b"99999999999999999999999:a",
        ] {
            assert!(parse(bad).is_none(), "{bad:?}");
        }
        let deep = [b"l".repeat(MAX_DEPTH + 2), b"e".repeat(MAX_DEPTH + 2)].concat();
        assert!(parse(&deep).is_none());
    }

    proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(data in proptest::collection::vec(any::<u8>(), 0..300)) {
            let _ = parse(&data);
        }
    }
}
