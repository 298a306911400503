//! Snort 2.9 options whose meaning the Snort manual documents and Suricata has no
//! equivalent for: kept verbatim.

use super::{verbatim, Keyword};

/// Snort-only keywords.
pub(super) const KEYWORDS: &[Keyword] = &[
    verbatim("logto"),
    verbatim("session"),
    verbatim("resp"),
    verbatim("react"),
    verbatim("activates"),
    verbatim("activated_by"),
    verbatim("count"),
    verbatim("http_encode"),
    verbatim("cvs"),
    verbatim("sd_pattern"),
    verbatim("file_type"),
    verbatim("file_group"),
    verbatim("sip_method"),
    verbatim("sip_stat_code"),
    verbatim("sip_header"),
    verbatim("sip_body"),
    verbatim("gtp_type"),
    verbatim("gtp_info"),
    verbatim("gtp_version"),
    verbatim("modbus_func"),
    verbatim("modbus_unit"),
    verbatim("modbus_data"),
    verbatim("stream_reassemble"),
    verbatim("protected_content"),
    verbatim("hash"),
    verbatim("length"),
];
