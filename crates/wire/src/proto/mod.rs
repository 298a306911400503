//! Typed, bounds-checked views over protocol headers, in the style of smoltcp's `wire`.
//!
//! Each view wraps any `T: AsRef<[u8]>`. [`new_checked`](ethernet::EthernetFrame::new_checked)
//! runs `check_len()`; after it succeeds no accessor can panic. Views never validate
//! semantics (checksums, flag combinations, port numbers): an IDS must see everything, so
//! that is left to the decoder, which records anomalies instead of rejecting.

pub mod ethernet;
pub mod gre;
pub mod icmp;
pub mod ipv4;
pub mod ipv6;
pub mod tcp;
pub mod udp;

/// Why a view could not be created.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Error {
    /// The buffer is shorter than the fixed header.
    Truncated,
    /// A length field inside the header is inconsistent with the buffer.
    Malformed,
}

impl core::fmt::Display for Error {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Error::Truncated => "truncated header",
            Error::Malformed => "malformed header",
        })
    }
}

impl std::error::Error for Error {}

/// Generates the constructor boilerplate shared by all views.
macro_rules! view {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct $name<T: AsRef<[u8]>> {
            buffer: T,
        }

        impl<T: AsRef<[u8]>> $name<T> {
            /// Wraps `buffer` without checking; accessors may panic until
            /// `check_len()` has succeeded.
            pub const fn new_unchecked(buffer: T) -> Self {
                $name { buffer }
            }

            /// Wraps `buffer` and runs `check_len()`.
            pub fn new_checked(buffer: T) -> Result<Self, crate::proto::Error> {
                let v = Self::new_unchecked(buffer);
                v.check_len()?;
                Ok(v)
            }

            /// The wrapped buffer.
            pub fn into_inner(self) -> T {
                self.buffer
            }

            #[inline]
            fn b(&self) -> &[u8] {
                self.buffer.as_ref()
            }
        }
    };
}
pub(crate) use view;

#[inline]
pub(crate) fn be16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}

#[inline]
pub(crate) fn be32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}
