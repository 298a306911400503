//! RFB messages of the handshake (RFC 6143): the protocol version line and ServerInit
//! with its pixel format.

/// A protocol version, `RFB xxx.yyy\n`, kept as the digits sent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Version {
    /// Major version (`003`).
    pub major: String,
    /// Minor version (`008`).
    pub minor: String,
}

/// The 12-byte version line; `None` if it is not one.
pub fn version(b: &[u8]) -> Option<Version> {
    if b.len() != 12 || &b[..4] != b"RFB " || b[7] != b'.' || b[11] != b'\n' {
        return None;
    }
    let digits = |d: &[u8]| {
        d.iter()
            .all(u8::is_ascii_digit)
            .then(|| String::from_utf8_lossy(d).into_owned())
    };
    Some(Version {
        major: digits(&b[4..7])?,
        minor: digits(&b[8..11])?,
    })
}

/// ServerInit's pixel format (RFC 6143 7.4).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PixelFormat {
    /// Bits per pixel.
    pub bits_per_pixel: u8,
    /// Depth.
    pub depth: u8,
    /// Big-endian flag.
    pub big_endian: bool,
    /// True-colour flag.
    pub true_color: bool,
    /// Red maximum.
    pub red_max: u16,
    /// Green maximum.
    pub green_max: u16,
    /// Blue maximum.
    pub blue_max: u16,
    /// Red shift.
    pub red_shift: u8,
    /// Green shift.
    pub green_shift: u8,
    /// Blue shift.
    pub blue_shift: u8,
}

/// ServerInit's width, height and pixel format (its first 20 bytes).
pub fn server_init(b: &[u8]) -> Option<(u16, u16, PixelFormat)> {
    let b = b.get(..20)?;
    let be16 = |i: usize| u16::from_be_bytes([b[i], b[i + 1]]);
    Some((
        be16(0),
        be16(2),
        PixelFormat {
            bits_per_pixel: b[4],
            depth: b[5],
            big_endian: b[6] != 0,
            true_color: b[7] != 0,
            red_max: be16(8),
            green_max: be16(10),
            blue_max: be16(12),
            red_shift: b[14],
            green_shift: b[15],
            blue_shift: b[16],
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn versions() {
        let v = version(b"RFB 003.889\n").unwrap();
        assert_eq!((v.major.as_str(), v.minor.as_str()), ("003", "889"));
        assert!(version(b"RFB 003.88a\n").is_none());
        assert!(version(b"RFB 003.008").is_none());
    }

    proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(data in proptest::collection::vec(any::<u8>(), 0..64)) {
            let _ = version(&data);
            let _ = server_init(&data);
        }
    }
}
