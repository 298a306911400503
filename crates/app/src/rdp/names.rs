//! The names Suricata's `rdp` records give RDP's numbers: versions, client builds,
//! keyboard layouts (Windows locale identifiers, MS-LCID), keyboard types, early
//! capability flags, connection types, negotiation flags, protocols and failures.

/// The RDP version of a client core block (`unknown` for the values without a name).
pub fn version(v: u32) -> &'static str {
    const TEN: [&str; 8] = [
        "v10.0", "v10.1", "v10.2", "v10.3", "v10.4", "v10.5", "v10.6", "v10.7",
    ];
    match v {
        0x0008_0001 => "v4",
        0x0008_0004 => "v5",
        0x0008_0005..=0x0008_000C => TEN[(v - 0x0008_0005) as usize],
        _ => "unknown",
    }
}

/// The Windows release of a client build number.
pub fn build(b: u32) -> &'static str {
    match b {
        1381 => "Windows NT 4.0",
        2195 => "Windows 2000",
        2600 => "Windows XP",
        3790 => "Windows Server 2003",
        6000 => "Windows Vista RTM",
        6001 => "Windows Vista SP1",
        6002 => "Windows Vista SP2",
        7600 => "Windows 7 RTM",
        7601 => "Windows 7 SP1",
        9200 => "Windows 8",
        9600 => "Windows 8.1",
        10240 => "Windows 10 TH1",
        10586 => "Windows 10 TH2",
        14393 => "Windows 10 RS1",
        15063 => "Windows 10 RS2",
        16299 => "Windows 10 RS3",
        17134 => "Windows 10 RS4",
        17763 => "Windows 10 RS5",
        _ => "unknown",
    }
}

/// The keyboard type's name, if it has one.
pub fn keyboard_type(t: u32) -> Option<&'static str> {
    Some(match t {
        1 => "xt",
        2 => "ico",
        3 => "at",
        4 => "enhanced",
        5 => "1050",
        6 => "9140",
        7 => "jp",
        _ => return None,
    })
}

/// The locale name of a keyboard layout (a Windows LCID), `unknown` when not known.
pub fn keyboard_layout(l: u32) -> &'static str {
    LOCALES
        .binary_search_by_key(&l, |&(id, _)| id)
        .map_or("unknown", |i| LOCALES[i].1)
}

/// Windows locale identifiers and their names, sorted by identifier.
static LOCALES: &[(u32, &str)] = &[
    (0x0401, "ar-SA"),
    (0x0402, "bg-BG"),
    (0x0403, "ca-ES"),
    (0x0404, "zh-TW"),
    (0x0405, "cs-CZ"),
    (0x0406, "da-DK"),
    (0x0407, "de-DE"),
    (0x0408, "el-GR"),
    (0x0409, "en-US"),
    (0x040A, "es-ES_tradnl"),
    (0x040B, "fi-FI"),
    (0x040C, "fr-FR"),
    (0x040D, "he-IL"),
    (0x040E, "hu-HU"),
    (0x040F, "is-IS"),
    (0x0410, "it-IT"),
    (0x0411, "ja-JP"),
    (0x0412, "ko-KR"),
    (0x0413, "nl-NL"),
    (0x0414, "nb-NO"),
    (0x0415, "pl-PL"),
    (0x0416, "pt-BR"),
    (0x0417, "rm-CH"),
    (0x0418, "ro-RO"),
    (0x0419, "ru-RU"),
    (0x041A, "hr-HR"),
    (0x041B, "sk-SK"),
    (0x041C, "sq-AL"),
    (0x041D, "sv-SE"),
    (0x041E, "th-TH"),
    (0x041F, "tr-TR"),
    (0x0420, "ur-PK"),
    (0x0421, "id-ID"),
    (0x0422, "uk-UA"),
    (0x0423, "be-BY"),
    (0x0424, "sl-SI"),
    (0x0425, "et-EE"),
    (0x0426, "lv-LV"),
    (0x0427, "lt-LT"),
    (0x0428, "tg-Cyrl-TJ"),
    (0x0429, "fa-IR"),
    (0x042A, "vi-VN"),
    (0x042B, "hy-AM"),
    (0x042C, "az-Latn-AZ"),
    (0x042D, "eu-ES"),
    (0x042E, "hsb-DE"),
    (0x042F, "mk-MK"),
    (0x0432, "tn-ZA"),
    (0x0434, "xh-ZA"),
    (0x0435, "zu-ZA"),
    (0x0436, "af-ZA"),
    (0x0437, "ka-GE"),
    (0x0438, "fo-FO"),
    (0x0439, "hi-IN"),
    (0x043A, "mt-MT"),
    (0x043B, "se-NO"),
    (0x043E, "ms-MY"),
    (0x043F, "kk-KZ"),
    (0x0440, "ky-KG"),
    (0x0441, "sw-KE"),
    (0x0442, "tk-TM"),
    (0x0443, "uz-Latn-UZ"),
    (0x0444, "tt-RU"),
    (0x0445, "bn-IN"),
    (0x0446, "pa-IN"),
    (0x0447, "gu-IN"),
    (0x0448, "or-IN"),
    (0x0449, "ta-IN"),
    (0x044A, "te-IN"),
    (0x044B, "kn-IN"),
    (0x044C, "ml-IN"),
    (0x044D, "as-IN"),
    (0x044E, "mr-IN"),
    (0x044F, "sa-IN"),
    (0x0450, "mn-MN"),
    (0x0451, "bo-CN"),
    (0x0452, "cy-GB"),
    (0x0453, "km-KH"),
    (0x0454, "lo-LA"),
    (0x0456, "gl-ES"),
    (0x0457, "kok-IN"),
    (0x045A, "syr-SY"),
    (0x045B, "si-LK"),
    (0x045D, "iu-Cans-CA"),
    (0x045E, "am-ET"),
    (0x0461, "ne-NP"),
    (0x0462, "fy-NL"),
    (0x0463, "ps-AF"),
    (0x0464, "fil-PH"),
    (0x0465, "dv-MV"),
    (0x0468, "ha-Latn-NG"),
    (0x046A, "yo-NG"),
    (0x046B, "quz-BO"),
    (0x046C, "nso-ZA"),
    (0x046D, "ba-RU"),
    (0x046E, "lb-LU"),
    (0x046F, "kl-GL"),
    (0x0470, "ig-NG"),
    (0x0478, "ii-CN"),
    (0x047A, "arn-CL"),
    (0x047C, "moh-CA"),
    (0x047E, "br-FR"),
    (0x0480, "ug-CN"),
    (0x0481, "mi-NZ"),
    (0x0482, "oc-FR"),
    (0x0483, "co-FR"),
    (0x0484, "gsw-FR"),
    (0x0485, "sah-RU"),
    (0x0486, "qut-GT"),
    (0x0487, "rw-RW"),
    (0x0488, "wo-SN"),
    (0x048C, "prs-AF"),
    (0x0491, "gd-GB"),
    (0x0801, "ar-IQ"),
    (0x0804, "zh-CN"),
    (0x0807, "de-CH"),
    (0x0809, "en-GB"),
    (0x080A, "es-MX"),
    (0x080C, "fr-BE"),
    (0x0810, "it-CH"),
    (0x0813, "nl-BE"),
    (0x0814, "nn-NO"),
    (0x0816, "pt-PT"),
    (0x081A, "sr-Latn-CS"),
    (0x081D, "sv-FI"),
    (0x082C, "az-Cyrl-AZ"),
    (0x082E, "dsb-DE"),
    (0x083B, "se-SE"),
    (0x083C, "ga-IE"),
    (0x083E, "ms-BN"),
    (0x0843, "uz-Cyrl-UZ"),
    (0x0845, "bn-BD"),
    (0x0850, "mn-Mong-CN"),
    (0x085D, "iu-Latn-CA"),
    (0x085F, "tzm-Latn-DZ"),
    (0x086B, "quz-EC"),
    (0x0C01, "ar-EG"),
    (0x0C04, "zh-HK"),
    (0x0C07, "de-AT"),
    (0x0C09, "en-AU"),
    (0x0C0A, "es-ES"),
    (0x0C0C, "fr-CA"),
    (0x0C1A, "sr-Cyrl-CS"),
    (0x0C3B, "se-FI"),
    (0x0C6B, "quz-PE"),
    (0x1001, "ar-LY"),
    (0x1004, "zh-SG"),
    (0x1007, "de-LU"),
    (0x1009, "en-CA"),
    (0x100A, "es-GT"),
    (0x100C, "fr-CH"),
    (0x101A, "hr-BA"),
    (0x103B, "smj-NO"),
    (0x1401, "ar-DZ"),
    (0x1404, "zh-MO"),
    (0x1407, "de-LI"),
    (0x1409, "en-NZ"),
    (0x140A, "es-CR"),
    (0x140C, "fr-LU"),
    (0x141A, "bs-Latn-BA"),
    (0x143B, "smj-SE"),
    (0x1801, "ar-MA"),
    (0x1809, "en-IE"),
    (0x180A, "es-PA"),
    (0x180C, "fr-MC"),
    (0x181A, "sr-Latn-BA"),
    (0x183B, "sma-NO"),
    (0x1C01, "ar-TN"),
    (0x1C09, "en-ZA"),
    (0x1C0A, "es-DO"),
    (0x1C1A, "sr-Cyrl-BA"),
    (0x1C3B, "sma-SE"),
    (0x2001, "ar-OM"),
    (0x2009, "en-JM"),
    (0x200A, "es-VE"),
    (0x201A, "bs-Cyrl-BA"),
    (0x203B, "sms-FI"),
    (0x2401, "ar-YE"),
    (0x2409, "en-029"),
    (0x240A, "es-CO"),
    (0x243B, "smn-FI"),
    (0x2801, "ar-SY"),
    (0x2809, "en-BZ"),
    (0x280A, "es-PE"),
    (0x2C01, "ar-JO"),
    (0x2C09, "en-TT"),
    (0x2C0A, "es-AR"),
    (0x3001, "ar-LB"),
    (0x3009, "en-ZW"),
    (0x300A, "es-EC"),
    (0x3401, "ar-KW"),
    (0x3409, "en-PH"),
    (0x340A, "es-CL"),
    (0x3801, "ar-AE"),
    (0x380A, "es-UY"),
    (0x3C01, "ar-BH"),
    (0x3C0A, "es-PY"),
    (0x4001, "ar-QA"),
    (0x4009, "en-IN"),
    (0x400A, "es-BO"),
    (0x4409, "en-MY"),
    (0x440A, "es-SV"),
    (0x4809, "en-SG"),
    (0x480A, "es-HN"),
    (0x4C0A, "es-NI"),
    (0x500A, "es-PR"),
    (0x540A, "es-US"),
];

/// The names of the defined early capability flags that have one, lowest bit first
/// (0x0010 has none).
pub fn capabilities(flags: u16) -> Vec<&'static str> {
    const NAMES: [(u16, &str); 10] = [
        (0x0001, "support_errinfo_pdf"),
        (0x0002, "want_32bpp_session"),
        (0x0004, "support_statusinfo_pdu"),
        (0x0008, "strong_asymmetric_keys"),
        (0x0020, "valid_connection_type"),
        (0x0040, "support_monitor_layout_pdu"),
        (0x0080, "support_netchar_autodetect"),
        (0x0100, "support_dynvc_gfx_protocol"),
        (0x0200, "support_dynamic_time_zone"),
        (0x0400, "support_heartbeat_pdu"),
    ];
    NAMES
        .iter()
        .filter(|(bit, _)| flags & bit != 0)
        .map(|(_, n)| *n)
        .collect()
}

/// The connection type's name, if it has one.
pub fn connection_hint(t: u8) -> Option<&'static str> {
    Some(match t {
        1 => "modem",
        2 => "low_broadband",
        3 => "satellite",
        4 => "high_broadband",
        5 => "wan",
        6 => "lan",
        7 => "autodetect",
        _ => return None,
    })
}

/// The names of a negotiation request's flags.
pub fn request_flags(flags: u8) -> Vec<&'static str> {
    [
        (0x01, "restricted_admin_mode_required"),
        (0x02, "redirected_authentication_mode_required"),
        (0x08, "correlation_info_present"),
    ]
    .iter()
    .filter(|(bit, _)| flags & bit != 0)
    .map(|(_, n)| *n)
    .collect()
}

/// The names of the flags of a negotiation response (0x04 has none).
pub fn server_supports(flags: u8) -> Vec<&'static str> {
    [
        (0x01, "extended_client_data"),
        (0x02, "dynvc_gfx"),
        (0x08, "restricted_admin"),
        (0x10, "redirected_authentication"),
    ]
    .iter()
    .filter(|(bit, _)| flags & bit != 0)
    .map(|(_, n)| *n)
    .collect()
}

/// The selected security protocol's name.
pub fn protocol(p: u32) -> &'static str {
    match p {
        0 => "rdp",
        1 => "ssl",
        2 => "hybrid",
        4 => "rds_tls",
        _ => "hybrid_ex",
    }
}

/// The reason of a negotiation failure code (1 to 6).
pub fn failure(code: u32) -> &'static str {
    match code {
        1 => "ssl required by server",
        2 => "ssl not allowed by server",
        3 => "ssl cert not on server",
        4 => "inconsistent flags",
        5 => "hybrid required by server",
        _ => "ssl with user auth required by server",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locales_sorted_and_found() {
        assert!(LOCALES.windows(2).all(|w| w[0].0 < w[1].0));
        assert_eq!(keyboard_layout(0x409), "en-US");
        assert_eq!(keyboard_layout(0x40a), "es-ES_tradnl");
        assert_eq!(keyboard_layout(0x9999), "unknown");
        assert_eq!(version(0x0008_000C), "v10.7");
        assert_eq!(version(0x0008_000D), "unknown");
        assert_eq!(build(2600), "Windows XP");
        assert_eq!(capabilities(0x0011), ["support_errinfo_pdf"]);
    }
}
