//! Files: `file.data`, `file.name`, `file.magic` and the file options kept verbatim.

use super::{verbatim, Keyword, Stickies};
use crate::buffers::Buffer;

/// File keywords.
pub(super) const KEYWORDS: &[Keyword] = &[
    verbatim("filemd5"),
    verbatim("filesha1"),
    verbatim("filesha256"),
    verbatim("filesize"),
    verbatim("filestore"),
    verbatim("filemagic"),
    verbatim("fileext"),
];

/// File buffers (`filename` with a value is kept verbatim, as Snort's option).
pub(super) const STICKY: Stickies = &[(
    &[Buffer::FileData, Buffer::FileName, Buffer::FileMagic],
    &[],
)];
