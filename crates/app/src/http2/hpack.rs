//! HPACK header decompression (RFC 7541): the static and dynamic tables, integer and
//! string literals, and a decoder that turns a header block into name/value fields.
//!
//! Limits keep hostile blocks harmless: the dynamic table never grows past
//! [`TABLE_LIMIT`] bytes whatever size updates say, integers longer than a few bytes
//! are refused, and the caller caps how many fields and how many bytes one block may
//! produce (an indexed field costs one byte on the wire but may repeat a large table
//! entry, the "HPACK bomb"). Past those caps the block is still decoded so the dynamic
//! table stays in step with the sender's, but further fields are dropped.

use std::collections::VecDeque;

use super::huffman::{self, HuffmanError};

/// Hard cap on the dynamic table size (bytes as RFC 7541 counts them: name + value +
/// 32 per entry). Peers rarely go past 64 KiB; a size update beyond it is an error.
pub const TABLE_LIMIT: usize = 64 * 1024;

/// The default dynamic table size before any update (`SETTINGS_HEADER_TABLE_SIZE`).
pub const DEFAULT_TABLE_SIZE: usize = 4096;

/// RFC 7541 Appendix A, indices 1..=61.
const STATIC: [(&[u8], &[u8]); 61] = [
    (b":authority", b""),
    (b":method", b"GET"),
    (b":method", b"POST"),
    (b":path", b"/"),
    (b":path", b"/index.html"),
    (b":scheme", b"http"),
    (b":scheme", b"https"),
    (b":status", b"200"),
    (b":status", b"204"),
    (b":status", b"206"),
    (b":status", b"304"),
    (b":status", b"400"),
    (b":status", b"404"),
    (b":status", b"500"),
    (b"accept-charset", b""),
    (b"accept-encoding", b"gzip, deflate"),
    (b"accept-language", b""),
    (b"accept-ranges", b""),
    (b"accept", b""),
    (b"access-control-allow-origin", b""),
    (b"age", b""),
    (b"allow", b""),
    (b"authorization", b""),
    (b"cache-control", b""),
    (b"content-disposition", b""),
    (b"content-encoding", b""),
    (b"content-language", b""),
    (b"content-length", b""),
    (b"content-location", b""),
    (b"content-range", b""),
    (b"content-type", b""),
    (b"cookie", b""),
    (b"date", b""),
    (b"etag", b""),
    (b"expect", b""),
    (b"expires", b""),
    (b"from", b""),
    (b"host", b""),
    (b"if-match", b""),
    (b"if-modified-since", b""),
    (b"if-none-match", b""),
    (b"if-range", b""),
    (b"if-unmodified-since", b""),
    (b"last-modified", b""),
    (b"link", b""),
    (b"location", b""),
    (b"max-forwards", b""),
    (b"proxy-authenticate", b""),
    (b"proxy-authorization", b""),
    (b"range", b""),
    (b"referer", b""),
    (b"refresh", b""),
    (b"retry-after", b""),
    (b"server", b""),
    (b"set-cookie", b""),
    (b"strict-transport-security", b""),
    (b"transfer-encoding", b""),
    (b"user-agent", b""),
    (b"vary", b""),
    (b"via", b""),
    (b"www-authenticate", b""),
];

/// Why a header block did not decode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HpackError {
    /// The block ended inside a field.
    Truncated,
    /// An index of 0 or past the end of the tables.
    BadIndex,
    /// An integer longer than the decoder accepts.
    IntegerOverflow,
    /// A Huffman string that did not decode.
    Huffman(HuffmanError),
    /// A dynamic table size update above [`TABLE_LIMIT`] or after the first field.
    SizeUpdate,
}

/// One decoded header field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    /// The name (lowercase in conforming HTTP/2, kept as sent).
    pub name: Vec<u8>,
    /// The value.
    pub value: Vec<u8>,
}

/// What one header block produced.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Block {
    /// The fields kept, in order.
    pub fields: Vec<Field>,
    /// Fields were dropped at the caller's count or size cap.
    pub truncated: bool,
    /// The block failed to decode at some point; `fields` holds what came before.
    pub error: Option<HpackError>,
    /// The dynamic table size updates the block began with (new sizes, in order).
    pub size_updates: Vec<usize>,
}

/// The decoding context of one direction of a connection.
#[derive(Clone, Debug)]
pub struct Decoder {
    /// Newest entry first.
    table: VecDeque<(Vec<u8>, Vec<u8>)>,
    size: usize,
    max_size: usize,
}

impl Default for Decoder {
    fn default() -> Self {
        Decoder {
            table: VecDeque::new(),
            size: 0,
            max_size: DEFAULT_TABLE_SIZE,
        }
    }
}

fn entry_size(name: &[u8], value: &[u8]) -> usize {
    name.len() + value.len() + 32
}

/// Reads an integer with an `n`-bit prefix at `b[*pos]`.
fn integer(b: &[u8], pos: &mut usize, n: u32) -> Result<usize, HpackError> {
    let mask = (1usize << n) - 1;
    let first = *b.get(*pos).ok_or(HpackError::Truncated)?;
    *pos += 1;
    let mut v = usize::from(first) & mask;
    if v < mask {
        return Ok(v);
    }
    // At most 4 continuation bytes: values up to 2^28, far beyond any sane length.
    for i in 0..4 {
        let c = *b.get(*pos).ok_or(HpackError::Truncated)?;
        *pos += 1;
        v += usize::from(c & 0x7f) << (7 * i);
        if c & 0x80 == 0 {
            return Ok(v);
        }
    }
    Err(HpackError::IntegerOverflow)
}

/// Reads a string literal; `limit` caps the decoded length (a Huffman string may
/// expand to 8/5 of its wire size).
fn string(b: &[u8], pos: &mut usize, limit: usize) -> Result<Vec<u8>, HpackError> {
    let huff = *b.get(*pos).ok_or(HpackError::Truncated)? & 0x80 != 0;
    let len = integer(b, pos, 7)?;
    let end = pos.checked_add(len).ok_or(HpackError::Truncated)?;
    let raw = b.get(*pos..end).ok_or(HpackError::Truncated)?;
    *pos = end;
    if huff {
        let mut out = Vec::with_capacity(len.min(limit));
        huffman::decode(raw, &mut out, limit).map_err(HpackError::Huffman)?;
        Ok(out)
    } else {
        Ok(raw.to_vec())
    }
}

impl Decoder {
    /// A decoder with the default table size.
    pub fn new() -> Self {
        Self::default()
    }

    /// The current dynamic table size in RFC 7541 bytes.
    pub fn table_size(&self) -> usize {
        self.size
    }

    /// Entries in the dynamic table.
    pub fn table_len(&self) -> usize {
        self.table.len()
    }

    fn get(&self, index: usize) -> Result<(&[u8], &[u8]), HpackError> {
        match index {
            0 => Err(HpackError::BadIndex),
            1..=61 => Ok(STATIC[index - 1]),
            _ => self
                .table
                .get(index - 62)
                .map(|(n, v)| (n.as_slice(), v.as_slice()))
                .ok_or(HpackError::BadIndex),
        }
    }

    fn evict_to(&mut self, max: usize) {
        while self.size > max {
            match self.table.pop_back() {
                Some((n, v)) => self.size -= entry_size(&n, &v),
                None => {
                    self.size = 0;
                    break;
                }
            }
        }
    }

    fn insert(&mut self, name: &[u8], value: &[u8]) {
        let sz = entry_size(name, value);
        if sz > self.max_size {
            // RFC 7541 4.4: an entry larger than the table empties it.
            self.table.clear();
            self.size = 0;
            return;
        }
        self.evict_to(self.max_size - sz);
        self.table.push_front((name.to_vec(), value.to_vec()));
        self.size += sz;
    }

    /// Decodes one complete header block. At most `max_fields` fields and
    /// `max_bytes` bytes of names and values are kept.
    pub fn decode(&mut self, b: &[u8], max_fields: usize, max_bytes: usize) -> Block {
        let mut out = Block::default();
        let mut kept = 0usize;
        let mut pos = 0;
        let mut seen_field = false;
        while pos < b.len() {
            let r = self.field(b, &mut pos, &mut seen_field, max_bytes);
            match r {
                Ok(Some(f)) => {
                    let sz = f.name.len() + f.value.len();
                    if out.truncated || out.fields.len() >= max_fields || kept + sz > max_bytes {
                        out.truncated = true;
                    } else {
                        kept += sz;
                        out.fields.push(f);
                    }
                }
                Ok(None) => out.size_updates.push(self.max_size),
                Err(e) => {
                    out.error = Some(e);
                    break;
                }
            }
        }
        out
    }

    /// One representation: `Some(field)`, or `None` for a table size update.
    fn field(
        &mut self,
        b: &[u8],
        pos: &mut usize,
        seen_field: &mut bool,
        limit: usize,
    ) -> Result<Option<Field>, HpackError> {
        let first = b[*pos];
        if first & 0x80 != 0 {
            // Indexed field.
            *seen_field = true;
            let i = integer(b, pos, 7)?;
            let (n, v) = self.get(i)?;
            return Ok(Some(Field {
                name: n.to_vec(),
                value: v.to_vec(),
            }));
        }
        if first & 0xe0 == 0x20 {
            // Dynamic table size update: only before the first field.
            let n = integer(b, pos, 5)?;
            if *seen_field || n > TABLE_LIMIT {
                return Err(HpackError::SizeUpdate);
            }
            self.max_size = n;
            self.evict_to(n);
            return Ok(None);
        }
        *seen_field = true;
        // Literal with incremental indexing (6-bit index), or without indexing / never
        // indexed (4-bit index).
        let (prefix, index) = if first & 0xc0 == 0x40 {
            (6, true)
        } else {
            (4, false)
        };
        let i = integer(b, pos, prefix)?;
        let name = if i == 0 {
            string(b, pos, limit)?
        } else {
            self.get(i)?.0.to_vec()
        };
        let value = string(b, pos, limit)?;
        if index {
            self.insert(&name, &value);
        }
        Ok(Some(Field { name, value }))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    fn pairs(b: &Block) -> Vec<(String, String)> {
        b.fields
            .iter()
            .map(|f| {
                (
                    String::from_utf8_lossy(&f.name).into_owned(),
                    String::from_utf8_lossy(&f.value).into_owned(),
                )
            })
            .collect()
    }

    fn hex(s: &str) -> Vec<u8> {
        let s: String = s.split_whitespace().collect();
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    /// Encodes fields as literals without indexing (raw strings), for tests elsewhere.
    pub(crate) fn literal_block(fields: &[(&str, &str)]) -> Vec<u8> {
        let mut out = Vec::new();
        for (n, v) in fields {
            out.push(0x00);
            for s in [n, v] {
                assert!(s.len() < 127);
                out.push(s.len() as u8);
                out.extend_from_slice(s.as_bytes());
            }
        }
        out
    }

    #[test]
    fn rfc7541_c3_requests_without_huffman() {
        let mut d = Decoder::new();
        let b = d.decode(&hex("828684410f7777772e6578616d706c652e636f6d"), 100, 1000);
        assert_eq!(
            pairs(&b),
            [
                (":method", "GET"),
                (":scheme", "http"),
                (":path", "/"),
                (":authority", "www.example.com")
            ]
            .map(|(a, b)| (a.to_string(), b.to_string()))
        );
        assert_eq!(d.table_size(), 57);
        let b = d.decode(&hex("828684be58086e6f2d6361636865"), 100, 1000);
        assert_eq!(b.fields.len(), 5);
        assert_eq!(b.fields[3].value, b"www.example.com");
        assert_eq!(b.fields[4].value, b"no-cache");
        assert_eq!(d.table_size(), 110);
        let b = d.decode(
            &hex("828785bf400a637573746f6d2d6b65790c637573746f6d2d76616c7565"),
            100,
            1000,
        );
        assert_eq!(b.fields[1].value, b"https");
        assert_eq!(b.fields[2].value, b"/index.html");
        assert_eq!(b.fields[3].value, b"www.example.com");
        assert_eq!(b.fields[4].name, b"custom-key");
        assert_eq!(d.table_size(), 164);
        assert_eq!(b.error, None);
    }

    #[test]
    fn rfc7541_c4_requests_with_huffman() {
        let mut d = Decoder::new();
        let b = d.decode(&hex("828684418cf1e3c2e5f23a6ba0ab90f4ff"), 100, 1000);
        assert_eq!(b.fields[3].value, b"www.example.com");
        let b = d.decode(&hex("828684be5886a8eb10649cbf"), 100, 1000);
        assert_eq!(b.fields[4].value, b"no-cache");
    }

    #[test]
    fn rfc7541_c5_eviction() {
        let mut d = Decoder::new();
        d.max_size = 256;
        let b = d.decode(
            &hex(
                "4803333032580770726976617465611d4d6f6e2c203231204f637420323031332032303a31333a323120474d546e1768747470733a2f2f7777772e6578616d706c652e636f6d",
            ),
            100,
            1000,
        );
        assert_eq!(b.fields[0].value, b"302");
        assert_eq!(d.table_size(), 222);
        let b = d.decode(&hex("4803333037c1c0bf"), 100, 1000);
        assert_eq!(b.fields[0].value, b"307");
        assert_eq!(b.fields[3].value, b"https://www.example.com");
        assert_eq!(d.table_size(), 222);
        assert_eq!(d.table_len(), 4);
    }

    #[test]
    fn caps_and_errors() {
        let mut d = Decoder::new();
        // Index 0 and an index past the tables.
        assert_eq!(d.decode(&[0x80], 10, 100).error, Some(HpackError::BadIndex));
        assert_eq!(
            d.decode(&[0xbf, 0x00], 10, 100).error,
            Some(HpackError::BadIndex)
        );
        // A literal that runs past the block.
        assert_eq!(
            d.decode(&[0x00, 0x05, b'a'], 10, 100).error,
            Some(HpackError::Truncated)
        );
        // An endless integer.
        assert_eq!(
            d.decode(&[0xff, 0xff, 0xff, 0xff, 0xff, 0xff], 10, 100)
                .error,
            Some(HpackError::IntegerOverflow)
        );
        // A size update past the cap, and one after a field.
        assert_eq!(
            d.decode(&[0x3f, 0xe1, 0xff, 0x07], 10, 100).error,
            Some(HpackError::SizeUpdate)
        );
        assert_eq!(
            d.decode(&[0x82, 0x20], 10, 100).error,
            Some(HpackError::SizeUpdate)
        );
        // The field cap keeps decoding (and indexing) but drops fields.
        let blk = [0x82; 50];
        let b = d.decode(&blk, 3, 1000);
        assert_eq!(b.fields.len(), 3);
        assert!(b.truncated);
        let b = d.decode(&literal_block(&[("a", "bbbb"), ("c", "d")]), 10, 4);
        assert_eq!(b.fields.len(), 0);
        assert!(b.truncated);
    }
}
