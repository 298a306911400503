//! Snort 2.9 options whose meaning the Snort manual documents and Suricata has no
//! equivalent for: kept verbatim.

use super::{verbatim, Keyword};

/// Snort-only keywords.
pub(super) const KEYWORDS: &[Keyword] = &[
    verbatim("logto").about(
        "Snort: log to a separate file",
        "rules/differences-from-snort.html",
    ),
    verbatim("session").about(
        "Snort: log session data",
        "rules/differences-from-snort.html",
    ),
    verbatim("resp").about(
        "Snort: active response",
        "rules/differences-from-snort.html",
    ),
    verbatim("react").about(
        "Snort: active response with a web page",
        "rules/differences-from-snort.html",
    ),
    verbatim("activates").about(
        "Snort 2: activate a dynamic rule",
        "rules/differences-from-snort.html",
    ),
    verbatim("activated_by").about(
        "Snort 2: rule activated by another",
        "rules/differences-from-snort.html",
    ),
    verbatim("count").about(
        "Snort 2: packets logged by a dynamic rule",
        "rules/differences-from-snort.html",
    ),
    verbatim("http_encode").about(
        "Snort: match the HTTP encoding type",
        "rules/differences-from-snort.html",
    ),
    verbatim("cvs").about(
        "Snort: detect CVS attacks",
        "rules/differences-from-snort.html",
    ),
    verbatim("sd_pattern").about(
        "Snort: detect sensitive data (credit card numbers ...)",
        "rules/differences-from-snort.html",
    ),
    verbatim("file_type").about(
        "Snort 3: match the file type",
        "rules/differences-from-snort.html",
    ),
    verbatim("file_group").about(
        "Snort 3: match a group of file types",
        "rules/differences-from-snort.html",
    ),
    verbatim("sip_method").about(
        "Snort: match the SIP method",
        "rules/sip-keywords.html#sip-method",
    ),
    verbatim("sip_stat_code").about(
        "Snort: match the SIP status code",
        "rules/differences-from-snort.html",
    ),
    verbatim("sip_header").about(
        "Snort: match in the SIP headers",
        "rules/differences-from-snort.html",
    ),
    verbatim("sip_body").about(
        "Snort: match in the SIP body",
        "rules/differences-from-snort.html",
    ),
    verbatim("gtp_type").about(
        "Snort: match the GTP message type",
        "rules/differences-from-snort.html",
    ),
    verbatim("gtp_info").about(
        "Snort: match a GTP information element",
        "rules/differences-from-snort.html",
    ),
    verbatim("gtp_version").about(
        "Snort: match the GTP version",
        "rules/differences-from-snort.html",
    ),
    verbatim("modbus_func").about(
        "Snort: match the Modbus function code",
        "rules/differences-from-snort.html",
    ),
    verbatim("modbus_unit").about(
        "Snort: match the Modbus unit id",
        "rules/differences-from-snort.html",
    ),
    verbatim("modbus_data").about(
        "Snort: match in the Modbus data",
        "rules/differences-from-snort.html",
    ),
    verbatim("stream_reassemble").about(
        "Snort: turn reassembly on or off for the flow",
        "rules/differences-from-snort.html",
    ),
    verbatim("protected_content").about(
        "Snort: match a hash of the content",
        "rules/differences-from-snort.html",
    ),
    verbatim("hash").about(
        "Snort: hash function of protected_content",
        "rules/differences-from-snort.html",
    ),
    verbatim("length").about(
        "Snort: length of protected_content",
        "rules/differences-from-snort.html",
    ),
];
