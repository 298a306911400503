//! Errors for inputs that cannot be read at all (bad records are counted instead).

use std::io;
use std::path::PathBuf;

/// Why a packet source could not be opened or read. `Display` is one line.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CaptureError {
    /// Opening or reading the input failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The input (`-` for standard input).
        path: PathBuf,
        /// The operating-system error.
        source: io::Error,
    },
    /// The input is empty.
    #[error("{}: empty file, not a pcap or pcapng capture", path.display())]
    Empty {
        /// The input.
        path: PathBuf,
    },
    /// The first bytes are not a pcap or pcapng magic number.
    #[error("{}: not a pcap or pcapng file (magic {magic:#010x}){hint}", path.display())]
    BadMagic {
        /// The input.
        path: PathBuf,
        /// The first four bytes, big-endian.
        magic: u32,
        /// Extra explanation for formats we recognise but do not read (e.g. gzip).
        hint: &'static str,
    },
    /// The file header or first section header is cut short or inconsistent.
    #[error("{}: bad {format} header: {reason}", path.display())]
    BadHeader {
        /// The input.
        path: PathBuf,
        /// `pcap` or `pcapng`.
        format: &'static str,
        /// What is wrong.
        reason: &'static str,
    },
    /// Live capture could not be set up (interface, socket, ring, fanout).
    #[error("live capture on {iface}: {what}: {source}")]
    Live {
        /// The interface.
        iface: String,
        /// The step that failed.
        what: &'static str,
        /// The operating-system error.
        source: io::Error,
    },
    /// A capture filter expression libpcap cannot compile (for this link type).
    #[error("capture filter `{expr}`: {message} (link type {})", link.0)]
    Filter {
        /// The expression.
        expr: String,
        /// The link type it was compiled for.
        link: wire::LinkType,
        /// libpcap's message.
        message: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_one_line() {
        let e = CaptureError::BadMagic {
            path: "x.pcap".into(),
            magic: 0x1f8b0800,
            hint: " (gzip-compressed: decompress it first)",
        };
        assert_eq!(
            e.to_string(),
            "x.pcap: not a pcap or pcapng file (magic 0x1f8b0800) (gzip-compressed: decompress it first)"
        );
        assert!(!e.to_string().contains('\n'));
    }
}
