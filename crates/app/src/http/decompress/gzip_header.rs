//! The gzip member header as zlib reads it: its length (optional fields included)
//! and the flags zlib refuses.

/// Result of the length check of a gzip header.
pub(super) enum GzHdr {
    Need,
    Len(usize),
    Bad,
}

/// Whether zlib takes gzip header `h` (whole, [`gzip_header_len`] long): no reserved
/// flag set, and a header CRC, if any, that matches.
pub(super) fn zlib_accepts_header(h: &[u8]) -> bool {
    let flags = h[3];
    if flags & 0xe0 != 0 {
        return false;
    }
    if flags & 2 != 0 && h.len() >= 12 {
        let (data, crc) = h.split_at(h.len() - 2);
        let mut c = flate2::Crc::new();
        c.update(data);
        return c.sum() as u16 == u16::from_le_bytes([crc[0], crc[1]]);
    }
    true
}

pub(super) fn gzip_header_len(h: &[u8]) -> GzHdr {
    if h.len() < 10 {
        return GzHdr::Need;
    }
    if h[0] != 0x1f || h[1] != 0x8b || h[2] != 8 {
        return GzHdr::Bad;
    }
    let flags = h[3];
    let mut pos = 10;
    if flags & 4 != 0 {
        if h.len() < pos + 2 {
            return GzHdr::Need;
        }
        pos += 2 + usize::from(u16::from_le_bytes([h[pos], h[pos + 1]]));
    }
    for bit in [8u8, 16] {
        if flags & bit != 0 {
            match h.get(pos..).and_then(|r| memchr::memchr(0, r)) {
                Some(z) => pos += z + 1,
                None => return GzHdr::Need,
            }
        }
    }
    if flags & 2 != 0 {
        pos += 2;
    }
    if h.len() < pos {
        GzHdr::Need
    } else {
        GzHdr::Len(pos)
    }
}
