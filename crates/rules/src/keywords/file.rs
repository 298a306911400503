//! Files: `file.data`, `file.name`, `file.magic` and the file options kept verbatim.

use super::{verbatim, Keyword, Stickies};
use crate::buffers::Buffer;

/// File keywords.
pub(super) const KEYWORDS: &[Keyword] = &[
    verbatim("filemd5").about(
        "match files whose MD5 is in a list",
        "rules/file-keywords.html#filemd5",
    ),
    verbatim("filesha1").about(
        "match files whose SHA-1 is in a list",
        "rules/file-keywords.html#filesha1",
    ),
    verbatim("filesha256").about(
        "match files whose SHA-256 is in a list",
        "rules/file-keywords.html#filesha256",
    ),
    verbatim("filesize").about(
        "compare the size of a file",
        "rules/file-keywords.html#filesize",
    ),
    verbatim("filestore").about(
        "store the file on disk",
        "rules/file-keywords.html#filestore",
    ),
    verbatim("filemagic").about(
        "match the file's libmagic type (old form of file.magic)",
        "rules/file-keywords.html#filemagic",
    ),
    verbatim("fileext").about(
        "match the extension of the file name",
        "rules/file-keywords.html#fileext",
    ),
];

/// File buffers (`filename` with a value is kept verbatim, as Snort's option).
pub(super) const STICKY: Stickies = &[(
    &[Buffer::FileData, Buffer::FileName, Buffer::FileMagic],
    &[],
)];
