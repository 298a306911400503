//! Rule text → [`Rule`]: keyword dispatch, content-modifier attachment, sticky buffers,
//! and the checks Suricata makes while parsing.

use crate::ast::*;
use crate::buffers::{Buffer, Transform};
use crate::diag::{Diagnostic, Reason};
use crate::header::{AddrExpr, PortExpr};
use crate::lexer::{self, RawOption, Record};
use crate::values as v;

/// Keywords accepted and kept verbatim ([`Opt::Keyword`]): protocol-specific options whose
/// evaluation belongs to the detection engine, and Snort 2.9 options whose meaning is clear.
pub const VERBATIM_KEYWORDS: &[&str] = &[
    // Suricata 7
    "dns.opcode",
    "tls.cert_expired",
    "tls.cert_valid",
    "tls_cert_expired",
    "tls_cert_valid",
    "tls.cert_notbefore",
    "tls.cert_notafter",
    "tls_cert_notbefore",
    "tls_cert_notafter",
    "tls.store",
    "tls.subject",
    "tls.issuerdn",
    "tls.fingerprint",
    "ssh.protoversion",
    "ssh.softwareversion",
    "filemd5",
    "filesha1",
    "filesha256",
    "filesize",
    "filestore",
    "filemagic",
    "fileext",
    "filename",
    "iprep",
    "datarep",
    "dataset",
    "decode-event",
    "stream-event",
    "engine-event",
    "prefilter",
    "requires",
    "config",
    "ftpbounce",
    "ftpdata_command",
    "geoip",
    "bypass",
    "rpc",
    "hostbits",
    "flowvar",
    "pktvar",
    "flow.age",
    "flow.pkts",
    "flow.bytes",
    "tcp.mss",
    "icmpv6.mtu",
    "dce_iface",
    "dce_opnum",
    "dcerpc.iface",
    "dcerpc.opnum",
    "dnp3_func",
    "dnp3_ind",
    "dnp3_obj",
    "dnp3.func",
    "dnp3.ind",
    "dnp3.obj",
    "modbus",
    "enip_command",
    "cip_service",
    "krb5_err_code",
    "krb5_msg_type",
    "krb5.err_code",
    "krb5.msg_type",
    "snmp.version",
    "snmp.pdu_type",
    "nfs_procedure",
    "nfs.procedure",
    "nfs.version",
    "ike.exchtype",
    "ike.chosen_sa_attribute",
    "ike.nonce_payload_length",
    "ike.key_exchange_payload_length",
    "rfb.secresult",
    "rfb.sectype",
    "mqtt.type",
    "mqtt.flags",
    "mqtt.qos",
    "mqtt.reason_code",
    "mqtt.protocol_version",
    "mqtt.connack.session_present",
    "mqtt.connect.flags",
    "http2.frametype",
    "http2.errorcode",
    "http2.priority",
    "http2.window",
    "http2.size_update",
    "http2.settings",
    "smb.version",
    "template2",
    "tls.cert_chain_len",
    "ja4.hash",
    "frame",
    "id",
    "transform",
    "l3_proto",
    "icmpv4.hdr",
    "bsize",
    "absent",
    "tcp.window",
    "http.response_header",
    "quic.version",
    "snmp.version",
    "sip.method",
    // Snort 2.9 only: meaning documented in the Snort manual, Suricata has no equivalent.
    "logto",
    "session",
    "resp",
    "react",
    "activates",
    "activated_by",
    "count",
    "http_encode",
    "cvs",
    "sd_pattern",
    "file_type",
    "file_group",
    "sip_method",
    "sip_stat_code",
    "sip_header",
    "sip_body",
    "gtp_type",
    "gtp_info",
    "gtp_version",
    "modbus_func",
    "modbus_unit",
    "modbus_data",
    "stream_reassemble",
    "protected_content",
    "hash",
    "length",
];

/// Result of parsing one record.
#[derive(Debug, Clone)]
pub struct Parsed {
    /// The rule, if no error was found.
    pub rule: Option<Rule>,
    /// Errors and warnings, located.
    pub diagnostics: Vec<Diagnostic>,
    /// Keywords used (as written, lowercased), in order, for usage statistics.
    pub keywords: Vec<String>,
    /// sid, if one parsed (even when the rule failed).
    pub sid: Option<u32>,
}

/// Parses one rule given as text (line 1, column 1).
pub fn parse_rule(text: &str) -> Result<Rule, Vec<Diagnostic>> {
    let p = parse_record(&Record::from_text(text));
    match p.rule {
        Some(r) => Ok(r),
        None => Err(p.diagnostics),
    }
}

/// Parses a record produced by [`lexer::records`].
pub fn parse_record(rec: &Record<'_>) -> Parsed {
    let text: &str = &rec.text;
    let mut st = State::default();
    let mut keywords = Vec::new();
    let rule = run(text, &mut st, &mut keywords);
    let ok = rule.is_some() && !st.diags.iter().any(|(_, d)| d.is_error());
    let sid = if st.meta.sid != 0 {
        Some(st.meta.sid)
    } else {
        None
    };
    let diagnostics = st
        .diags
        .into_iter()
        .map(|(off, mut d)| {
            let (l, c) = rec.pos(off);
            d.line = l;
            d.column = c;
            d.sid = sid;
            d
        })
        .collect();
    Parsed {
        rule: if ok {
            rule.map(|mut r| {
                r.enabled = !rec.commented;
                r
            })
        } else {
            None
        },
        diagnostics,
        keywords,
        sid,
    }
}

#[derive(Default)]
struct Sticky {
    buffer: Buffer,
    transforms: Vec<Transform>,
    block: Option<usize>,
}

#[derive(Default)]
struct State {
    diags: Vec<(usize, Diagnostic)>,
    meta: Meta,
    blocks: Vec<BufferMatches>,
    options: Vec<Opt>,
    sticky: Option<Sticky>,
    /// (block, index) of the last content.
    last_content: Option<(usize, usize)>,
    /// (block, index) of the last match of any kind.
    last_match: Option<(usize, usize)>,
    vars: Vec<String>,
    seen_sid: bool,
    seen_rev: bool,
    seen_gid: bool,
    seen_msg: bool,
    seen_classtype: bool,
}

impl State {
    fn err(&mut self, off: usize, reason: Reason, kw: &str, msg: impl Into<String>) {
        self.diags
            .push((off, Diagnostic::error(reason, Some(kw), msg)));
    }

    fn warn(&mut self, off: usize, reason: Reason, kw: &str, msg: impl Into<String>) {
        self.diags
            .push((off, Diagnostic::warning(reason, Some(kw), msg)));
    }

    fn block_for(&mut self, buffer: Buffer, transforms: &[Transform]) -> usize {
        if let Some(i) = self
            .blocks
            .iter()
            .position(|b| b.buffer == buffer && b.transforms == transforms)
        {
            return i;
        }
        self.blocks.push(BufferMatches {
            buffer,
            transforms: transforms.to_vec(),
            matches: Vec::new(),
        });
        self.blocks.len() - 1
    }

    /// Block the next match goes to: the sticky buffer or the payload.
    fn current_block(&mut self) -> usize {
        match self.sticky.take() {
            Some(mut s) => {
                let b = match s.block {
                    Some(b) => b,
                    None => {
                        let b = self.block_for(s.buffer, &s.transforms);
                        s.block = Some(b);
                        b
                    }
                };
                self.sticky = Some(s);
                b
            }
            None => self.block_for(Buffer::Payload, &[]),
        }
    }

    fn push_match(&mut self, block: usize, m: Match) {
        let is_content = matches!(m, Match::Content(_));
        self.blocks[block].matches.push(m);
        let idx = (block, self.blocks[block].matches.len() - 1);
        if is_content {
            self.last_content = Some(idx);
        }
        self.last_match = Some(idx);
    }

    fn last_content_mut(&mut self) -> Option<&mut Content> {
        let (b, i) = self.last_content?;
        match self.blocks.get_mut(b)?.matches.get_mut(i)? {
            Match::Content(c) => Some(c),
            _ => None,
        }
    }

    fn check_num(&mut self, off: usize, kw: &str, n: &Num) -> bool {
        if let Num::Var(name) = n {
            if !self.vars.iter().any(|v| v == name) {
                self.err(
                    off,
                    Reason::InvalidValue,
                    kw,
                    format!("unknown byte_extract/byte_math variable '{name}'"),
                );
                return false;
            }
        }
        true
    }
}

fn run(text: &str, st: &mut State, keywords: &mut Vec<String>) -> Option<Rule> {
    let raw = match lexer::split_rule(text) {
        Ok(r) => r,
        Err(e) => {
            st.diags
                .push((e.off, Diagnostic::error(Reason::Syntax, None, e.message)));
            return None;
        }
    };
    // Header.
    let h = &raw.header;
    let action = Action::parse(h[0].0);
    if action.is_none() {
        st.err(
            h[0].1,
            Reason::Syntax,
            "action",
            format!("unknown action '{}'", h[0].0),
        );
    }
    let protocol = Protocol::parse(h[1].0);
    if protocol.is_none() {
        st.err(
            h[1].1,
            Reason::Syntax,
            "protocol",
            format!("unknown protocol '{}'", h[1].0),
        );
    }
    let mut addr = |i: usize, what: &str| match AddrExpr::parse(h[i].0) {
        Ok(a) => Some(a),
        Err(e) => {
            st.err(h[i].1, Reason::Syntax, what, e);
            None
        }
    };
    let src = addr(2, "source address");
    let dst = addr(5, "destination address");
    let mut port = |i: usize, what: &str| match PortExpr::parse(h[i].0) {
        Ok(a) => Some(a),
        Err(e) => {
            st.err(h[i].1, Reason::Syntax, what, e);
            None
        }
    };
    let src_ports = port(3, "source port");
    let dst_ports = port(6, "destination port");
    let direction = match h[4].0 {
        "->" => Some(Direction::ToDst),
        "<>" => Some(Direction::Both),
        "<-" => {
            st.err(
                h[4].1,
                Reason::Syntax,
                "direction",
                "'<-' is not a valid direction",
            );
            None
        }
        d => {
            st.err(
                h[4].1,
                Reason::Syntax,
                "direction",
                format!("expected '->' or '<>', found '{d}'"),
            );
            None
        }
    };
    if raw.missing_last_semicolon {
        let off = raw.options.last().map(|o| o.name_off).unwrap_or(0);
        st.warn(
            off,
            Reason::Syntax,
            "",
            "last option has no terminating ';' (accepted)",
        );
    }
    st.meta.gid = 1;
    for o in &raw.options {
        let lname;
        let name = if o.name.bytes().any(|c| c.is_ascii_uppercase()) {
            lname = o.name.to_ascii_lowercase();
            lname.as_str()
        } else {
            o.name
        };
        keywords.push(name.to_owned());
        option(st, name, o);
    }
    finish(st, text.len());
    let header = Header {
        protocol: protocol?,
        src: src?,
        src_ports: src_ports?,
        direction: direction?,
        dst: dst?,
        dst_ports: dst_ports?,
    };
    if st.diags.iter().any(|(_, d)| d.is_error()) {
        return None;
    }
    app_proto_check(st, &header, h[1].1);
    Some(Rule {
        action: action?,
        header,
        meta: std::mem::take(&mut st.meta),
        buffers: std::mem::take(&mut st.blocks)
            .into_iter()
            .filter(|b| !b.matches.is_empty())
            .collect(),
        options: std::mem::take(&mut st.options),
        enabled: true,
    })
}

fn need_value<'a>(st: &mut State, o: &RawOption<'a>, kw: &str) -> Option<&'a str> {
    match o.value {
        Some(v) if !v.is_empty() => Some(v),
        _ => {
            st.err(
                o.name_off,
                Reason::InvalidValue,
                kw,
                format!("'{kw}' needs a value"),
            );
            None
        }
    }
}

fn no_value(st: &mut State, o: &RawOption<'_>, kw: &str) -> bool {
    if o.value.is_some() {
        st.err(
            o.value_off,
            Reason::InvalidValue,
            kw,
            format!("'{kw}' takes no value"),
        );
        return false;
    }
    true
}

fn quoted<'a>(st: &mut State, o: &RawOption<'a>, kw: &str) -> Option<&'a str> {
    let val = need_value(st, o, kw)?;
    match lexer::strip_quotes(val) {
        Ok(s) => Some(s),
        Err(e) => {
            st.err(o.value_off, Reason::Syntax, kw, e);
            None
        }
    }
}

macro_rules! tryv {
    ($st:expr, $o:expr, $kw:expr, $e:expr) => {
        match $e {
            Ok(x) => x,
            Err(msg) => {
                $st.err($o.value_off, Reason::InvalidValue, $kw, msg);
                return;
            }
        }
    };
}

fn option(st: &mut State, kw: &str, o: &RawOption<'_>) {
    let off = o.value_off;
    match kw {
        // ---- metadata ----
        "msg" => {
            if st.seen_msg {
                st.err(o.name_off, Reason::Semantic, kw, "msg given twice");
            }
            st.seen_msg = true;
            if let Some(s) = quoted(st, o, kw) {
                st.meta.msg = Some(lexer::unescape_text(s).into_owned());
            }
        }
        "sid" => {
            let Some(val) = need_value(st, o, kw) else {
                return;
            };
            if st.seen_sid {
                st.err(o.name_off, Reason::Semantic, kw, "sid given twice");
            }
            st.seen_sid = true;
            let n = tryv!(st, o, kw, v::uint(val.trim_matches('"'), u32::MAX as u64));
            if n == 0 {
                st.err(off, Reason::InvalidValue, kw, "sid 0 is invalid");
            }
            st.meta.sid = n as u32;
        }
        "rev" => {
            let Some(val) = need_value(st, o, kw) else {
                return;
            };
            if st.seen_rev {
                st.err(o.name_off, Reason::Semantic, kw, "rev given twice");
            }
            st.seen_rev = true;
            st.meta.rev = tryv!(st, o, kw, v::uint(val.trim_matches('"'), u32::MAX as u64)) as u32;
        }
        "gid" => {
            let Some(val) = need_value(st, o, kw) else {
                return;
            };
            if st.seen_gid {
                st.err(o.name_off, Reason::Semantic, kw, "gid given twice");
            }
            st.seen_gid = true;
            st.meta.gid = tryv!(st, o, kw, v::uint(val.trim_matches('"'), u32::MAX as u64)) as u32;
        }
        "classtype" => {
            let Some(val) = need_value(st, o, kw) else {
                return;
            };
            if st.seen_classtype {
                st.err(o.name_off, Reason::Semantic, kw, "classtype given twice");
            }
            st.seen_classtype = true;
            if !val
                .bytes()
                .all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_')
            {
                st.err(
                    off,
                    Reason::InvalidValue,
                    kw,
                    format!("bad classtype name '{val}'"),
                );
                return;
            }
            st.meta.classtype = Some(val.to_owned());
        }
        "priority" => {
            let Some(val) = need_value(st, o, kw) else {
                return;
            };
            let p = tryv!(st, o, kw, v::uint(val, 255));
            if p == 0 {
                st.err(off, Reason::InvalidValue, kw, "priority must be 1..=255");
            }
            st.meta.priority = Some(p as u32);
        }
        "reference" => {
            let Some(val) = need_value(st, o, kw) else {
                return;
            };
            let Some((sys, id)) = val.split_once(',') else {
                st.err(off, Reason::InvalidValue, kw, "reference needs system,id");
                return;
            };
            let (sys, id) = (sys.trim(), id.trim());
            if sys.is_empty() || id.is_empty() {
                st.err(off, Reason::InvalidValue, kw, "reference needs system,id");
                return;
            }
            let id = lexer::strip_quotes(id).unwrap_or(id);
            st.meta.references.push(Reference {
                system: sys.to_ascii_lowercase(),
                id: id.to_owned(),
            });
        }
        "metadata" => {
            let Some(val) = need_value(st, o, kw) else {
                return;
            };
            for item in val.split(',') {
                let item = item.trim();
                if !item.is_empty() {
                    st.meta.metadata.push(item.to_owned());
                }
            }
        }
        "target" => {
            let Some(val) = need_value(st, o, kw) else {
                return;
            };
            st.meta.target = Some(match val {
                "src_ip" => Target::SrcIp,
                "dest_ip" => Target::DestIp,
                _ => {
                    st.err(
                        off,
                        Reason::InvalidValue,
                        kw,
                        "target must be src_ip or dest_ip",
                    );
                    return;
                }
            });
        }
        // ---- payload matches ----
        "content" | "uricontent" => {
            let Some(val) = need_value(st, o, kw) else {
                return;
            };
            let (negated, pattern) = tryv!(st, o, kw, v::content_value(val));
            let block = if kw == "uricontent" {
                if st.sticky.is_some() {
                    st.err(
                        o.name_off,
                        Reason::Semantic,
                        kw,
                        "uricontent used while a sticky buffer is set",
                    );
                    return;
                }
                st.block_for(Buffer::HttpUri, &[])
            } else {
                st.current_block()
            };
            st.push_match(
                block,
                Match::Content(Content {
                    pattern,
                    negated,
                    ..Content::default()
                }),
            );
        }
        "pcre" => {
            let Some(val) = need_value(st, o, kw) else {
                return;
            };
            pcre(st, o, val);
        }
        "byte_test" | "byte_jump" | "byte_extract" | "byte_math" | "isdataat" => {
            let Some(val) = need_value(st, o, kw) else {
                return;
            };
            let (m, relative) = match kw {
                "byte_test" => {
                    let t = tryv!(st, o, kw, v::byte_test(val));
                    if !(st.check_num(off, kw, &t.nbytes)
                        && st.check_num(off, kw, &t.value)
                        && st.check_num(off, kw, &t.offset))
                    {
                        return;
                    }
                    let r = t.common.relative;
                    (Match::ByteTest(t), r)
                }
                "byte_jump" => {
                    let t = tryv!(st, o, kw, v::byte_jump(val));
                    if !(st.check_num(off, kw, &t.nbytes) && st.check_num(off, kw, &t.offset)) {
                        return;
                    }
                    let r = t.common.relative;
                    (Match::ByteJump(t), r)
                }
                "byte_extract" => {
                    let t = tryv!(st, o, kw, v::byte_extract(val));
                    st.vars.push(t.name.clone());
                    let r = t.common.relative;
                    (Match::ByteExtract(t), r)
                }
                "byte_math" => {
                    let t = tryv!(st, o, kw, v::byte_math(val));
                    if !(st.check_num(off, kw, &t.nbytes)
                        && st.check_num(off, kw, &t.offset)
                        && st.check_num(off, kw, &t.rvalue))
                    {
                        return;
                    }
                    st.vars.push(t.result.clone());
                    let r = t.common.relative;
                    (Match::ByteMath(t), r)
                }
                _ => {
                    let t = tryv!(st, o, kw, v::isdataat(val));
                    if !st.check_num(off, kw, &t.offset) {
                        return;
                    }
                    let r = t.relative;
                    (Match::IsDataAt(t), r)
                }
            };
            // Like Suricata: a relative byte_*/isdataat without a sticky buffer goes to the
            // buffer of the match it is relative to.
            let block = match (relative, st.sticky.is_some(), st.last_match) {
                (true, false, Some((b, _))) => b,
                _ => st.current_block(),
            };
            st.push_match(block, m);
        }
        "bsize" => {
            let Some(val) = need_value(st, o, kw) else {
                return;
            };
            let c = tryv!(st, o, kw, v::int_cmp(val, u32::MAX as u64));
            if st.sticky.is_none() {
                st.err(
                    o.name_off,
                    Reason::Semantic,
                    kw,
                    "bsize needs a sticky buffer before it",
                );
                return;
            }
            let b = st.current_block();
            st.push_match(b, Match::Bsize(c));
        }
        "urilen" => {
            let Some(val) = need_value(st, o, kw) else {
                return;
            };
            let (cmp_s, raw) = match val.split_once(',') {
                Some((a, m)) => match m.trim() {
                    "raw" => (a, true),
                    "norm" => (a, false),
                    other => {
                        st.err(
                            off,
                            Reason::InvalidValue,
                            kw,
                            format!("urilen: unknown option '{other}'"),
                        );
                        return;
                    }
                },
                None => (val, false),
            };
            let cmp = tryv!(st, o, kw, v::int_cmp(cmp_s, 65535));
            let b = st.block_for(
                if raw {
                    Buffer::HttpUriRaw
                } else {
                    Buffer::HttpUri
                },
                &[],
            );
            st.blocks[b].matches.push(Match::Urilen { cmp, raw });
        }
        "base64_decode" => {
            let mut bytes = None;
            let mut offset = None;
            let mut relative = false;
            if let Some(val) = o.value {
                for p in v::csv(val) {
                    let mut w = p.split_whitespace();
                    match (w.next(), w.next()) {
                        (Some("bytes"), Some(n)) => {
                            bytes = Some(tryv!(st, o, kw, v::uint(n, u32::MAX as u64)) as u32)
                        }
                        (Some("offset"), Some(n)) => {
                            offset = Some(tryv!(st, o, kw, v::uint(n, u32::MAX as u64)) as u32)
                        }
                        (Some("relative"), None) => relative = true,
                        _ => {
                            st.err(
                                off,
                                Reason::InvalidValue,
                                kw,
                                format!("base64_decode: unknown option '{p}'"),
                            );
                            return;
                        }
                    }
                }
            }
            let b = match (relative, st.sticky.is_some(), st.last_match) {
                (true, false, Some((b, _))) => b,
                _ => st.current_block(),
            };
            st.push_match(
                b,
                Match::Base64Decode {
                    bytes,
                    offset,
                    relative,
                },
            );
        }
        "asn1" => {
            let Some(val) = need_value(st, o, kw) else {
                return;
            };
            let b = st.current_block();
            st.push_match(b, Match::Asn1(val.to_owned()));
        }
        // ---- content modifiers ----
        "nocase" | "rawbytes" | "startswith" | "endswith" => {
            if !no_value(st, o, kw) {
                return;
            }
            let Some(c) = st.last_content_mut() else {
                if kw == "rawbytes" {
                    // Snort allows rawbytes on isdataat/byte_* too: harmless.
                    return;
                }
                st.err(
                    o.name_off,
                    Reason::Semantic,
                    kw,
                    format!("'{kw}' needs a preceding content"),
                );
                return;
            };
            let slot = match kw {
                "nocase" => &mut c.nocase,
                "rawbytes" => &mut c.rawbytes,
                "startswith" => &mut c.startswith,
                _ => &mut c.endswith,
            };
            let dup = *slot;
            *slot = true;
            if dup && kw != "rawbytes" {
                st.err(
                    o.name_off,
                    Reason::Semantic,
                    kw,
                    format!("'{kw}' given twice for the same content"),
                );
            }
        }
        "offset" | "depth" | "distance" | "within" => {
            let Some(val) = need_value(st, o, kw) else {
                return;
            };
            let n = tryv!(st, o, kw, v::num(val));
            if !st.check_num(off, kw, &n) {
                return;
            }
            if let Num::Lit(x) = n {
                let ok = match kw {
                    "distance" => (-65535..=65535).contains(&x),
                    _ => (0..=65535).contains(&x),
                };
                if !ok {
                    st.err(
                        off,
                        Reason::InvalidValue,
                        kw,
                        format!("{kw} {x} out of range"),
                    );
                    return;
                }
            }
            let Some(c) = st.last_content_mut() else {
                st.err(
                    o.name_off,
                    Reason::Semantic,
                    kw,
                    format!("'{kw}' needs a preceding content"),
                );
                return;
            };
            let slot = match kw {
                "offset" => &mut c.offset,
                "depth" => &mut c.depth,
                "distance" => &mut c.distance,
                _ => &mut c.within,
            };
            let dup = slot.is_some();
            *slot = Some(n);
            if dup {
                st.err(
                    o.name_off,
                    Reason::Semantic,
                    kw,
                    format!("'{kw}' given twice for the same content"),
                );
            }
        }
        "fast_pattern" => {
            let fp = match o.value.map(str::trim) {
                None => FastPattern::Yes,
                Some("only") => FastPattern::Only,
                Some(s) => {
                    let p = v::csv(s);
                    if p.len() != 2 {
                        st.err(
                            off,
                            Reason::InvalidValue,
                            kw,
                            "fast_pattern takes 'only' or offset,length",
                        );
                        return;
                    }
                    let a = tryv!(st, o, kw, v::uint(p[0], 65535)) as u16;
                    let b = tryv!(st, o, kw, v::uint(p[1], 65535)) as u16;
                    FastPattern::Chop {
                        offset: a,
                        length: b,
                    }
                }
            };
            let Some(c) = st.last_content_mut() else {
                st.err(
                    o.name_off,
                    Reason::Semantic,
                    kw,
                    "fast_pattern needs a preceding content",
                );
                return;
            };
            let dup = c.fast_pattern.is_some();
            c.fast_pattern = Some(fp);
            if dup {
                st.err(
                    o.name_off,
                    Reason::Semantic,
                    kw,
                    "fast_pattern given twice for the same content",
                );
            }
        }
        "replace" => {
            let Some(val) = need_value(st, o, kw) else {
                return;
            };
            let (neg, bytes) = tryv!(st, o, kw, v::content_value(val));
            if neg {
                st.err(off, Reason::InvalidValue, kw, "replace cannot be negated");
                return;
            }
            let Some(c) = st.last_content_mut() else {
                st.err(
                    o.name_off,
                    Reason::Semantic,
                    kw,
                    "replace needs a preceding content",
                );
                return;
            };
            if c.pattern.len() != bytes.len() {
                let msg = format!(
                    "replace length {} differs from content length {}",
                    bytes.len(),
                    c.pattern.len()
                );
                st.err(off, Reason::Semantic, kw, msg);
                return;
            }
            c.replace = Some(bytes);
        }
        // ---- flow and friends ----
        "flow" => {
            let Some(val) = need_value(st, o, kw) else {
                return;
            };
            let f = tryv!(st, o, kw, v::flow(val));
            if st.options.iter().any(|x| matches!(x, Opt::Flow(_))) {
                st.err(o.name_off, Reason::Semantic, kw, "flow given twice");
                return;
            }
            st.options.push(Opt::Flow(f));
        }
        "flowbits" => {
            let Some(val) = need_value(st, o, kw) else {
                return;
            };
            let f = tryv!(st, o, kw, v::flowbits(val));
            st.options.push(Opt::Flowbits(f));
        }
        "xbits" => {
            let Some(val) = need_value(st, o, kw) else {
                return;
            };
            let p: Vec<&str> = val.splitn(3, ',').map(str::trim).collect();
            let cmd = tryv!(st, o, kw, v::bits_cmd(p[0]));
            if p.len() < 2 || p[1].is_empty() {
                st.err(
                    off,
                    Reason::InvalidValue,
                    kw,
                    "xbits needs a command and a name",
                );
                return;
            }
            let rest = p.get(2).copied().unwrap_or("").to_owned();
            if cmd != BitsCmd::NoAlert && !rest.contains("track") {
                st.err(
                    off,
                    Reason::InvalidValue,
                    kw,
                    "xbits needs 'track ip_src|ip_dst|ip_pair'",
                );
                return;
            }
            st.options.push(Opt::Xbits {
                cmd,
                name: p[1].to_owned(),
                rest,
            });
        }
        "flowint" => {
            let Some(val) = need_value(st, o, kw) else {
                return;
            };
            let p = v::csv(val);
            let ops = [
                "=", "+", "-", "==", "!=", "<", ">", "<=", ">=", "isset", "notset", "isnotset",
            ];
            if p.len() < 2 || p[0].is_empty() || !ops.contains(&p[1]) {
                st.err(
                    off,
                    Reason::InvalidValue,
                    kw,
                    "flowint needs name,operator[,value]",
                );
                return;
            }
            let needs = !matches!(p[1], "isset" | "notset" | "isnotset");
            if needs != (p.len() == 3) || p.len() > 3 {
                st.err(
                    off,
                    Reason::InvalidValue,
                    kw,
                    format!("flowint: operator '{}' arity", p[1]),
                );
                return;
            }
            st.options.push(Opt::Flowint {
                name: p[0].to_owned(),
                op: p[1].to_owned(),
                value: p.get(2).map(|s| s.to_string()),
            });
        }
        "dsize" | "ttl" | "itype" | "icode" => {
            let Some(val) = need_value(st, o, kw) else {
                return;
            };
            let max = if kw == "dsize" { 65535 } else { 255 };
            let c = tryv!(st, o, kw, v::int_cmp(val, max));
            if kw == "dsize" && st.options.iter().any(|x| matches!(x, Opt::Dsize(_))) {
                st.err(o.name_off, Reason::Semantic, kw, "dsize given twice");
                return;
            }
            st.options.push(match kw {
                "dsize" => Opt::Dsize(c),
                "ttl" => Opt::Ttl(c),
                "itype" => Opt::Itype(c),
                _ => Opt::Icode(c),
            });
        }
        "flags" | "tcp.flags" => {
            let Some(val) = need_value(st, o, kw) else {
                return;
            };
            let f = tryv!(st, o, kw, v::tcp_flags(val));
            st.options.push(Opt::Flags(f));
        }
        "icmp_id" | "icmp_seq" | "id" => {
            let Some(val) = need_value(st, o, kw) else {
                return;
            };
            let n = tryv!(st, o, kw, v::uint(val, 65535)) as u16;
            st.options.push(match kw {
                "icmp_id" => Opt::IcmpId(n),
                "icmp_seq" => Opt::IcmpSeq(n),
                _ => Opt::IpId(n),
            });
        }
        "seq" | "ack" => {
            let Some(val) = need_value(st, o, kw) else {
                return;
            };
            let n = tryv!(st, o, kw, v::uint(val, u32::MAX as u64)) as u32;
            st.options.push(if kw == "seq" {
                Opt::Seq(n)
            } else {
                Opt::Ack(n)
            });
        }
        "window" => {
            let Some(val) = need_value(st, o, kw) else {
                return;
            };
            let (negated, r) = match val.strip_prefix('!') {
                Some(r) => (true, r),
                None => (false, val),
            };
            let size = tryv!(st, o, kw, v::uint(r, 65535)) as u16;
            st.options.push(Opt::Window { negated, size });
        }
        "tos" => {
            let Some(val) = need_value(st, o, kw) else {
                return;
            };
            let (negated, r) = match val.strip_prefix('!') {
                Some(r) => (true, r),
                None => (false, val),
            };
            let value = tryv!(st, o, kw, v::uint(r, 255)) as u8;
            st.options.push(Opt::Tos { negated, value });
        }
        "ip_proto" => {
            let Some(val) = need_value(st, o, kw) else {
                return;
            };
            let (op, r) = match val.chars().next() {
                Some(c @ ('!' | '<' | '>')) => (Some(c), val[1..].trim()),
                _ => (None, val),
            };
            let proto = match v::uint(r, 255) {
                Ok(n) => n as u8,
                Err(_) => match v::ip_proto_number(r) {
                    Some(n) => n,
                    None => {
                        st.err(
                            off,
                            Reason::InvalidValue,
                            kw,
                            format!("unknown IP protocol '{r}'"),
                        );
                        return;
                    }
                },
            };
            st.options.push(Opt::IpProto { op, proto });
        }
        "ipopts" => {
            let Some(val) = need_value(st, o, kw) else {
                return;
            };
            let ok = [
                "rr", "eol", "nop", "ts", "sec", "esec", "lsrr", "lsrre", "ssrr", "satid", "any",
            ];
            if !ok.contains(&val) {
                st.err(
                    off,
                    Reason::InvalidValue,
                    kw,
                    format!("unknown ip option '{val}'"),
                );
                return;
            }
            st.options.push(Opt::IpOpts(val.to_owned()));
        }
        "fragbits" => {
            let Some(val) = need_value(st, o, kw) else {
                return;
            };
            if !val.chars().all(|c| "MDRmdr+*!".contains(c))
                || !val.chars().any(|c| "MDRmdr".contains(c))
            {
                st.err(
                    off,
                    Reason::InvalidValue,
                    kw,
                    format!("invalid fragbits '{val}'"),
                );
                return;
            }
            st.options.push(Opt::Fragbits(val.to_owned()));
        }
        "fragoffset" => {
            let Some(val) = need_value(st, o, kw) else {
                return;
            };
            let r = val.trim_start_matches(['!', '<', '>']);
            tryv!(st, o, kw, v::uint(r, 8191));
            st.options.push(Opt::Fragoffset(val.to_owned()));
        }
        "sameip" => {
            if no_value(st, o, kw) {
                st.options.push(Opt::SameIp);
            }
        }
        "noalert" => {
            if no_value(st, o, kw) {
                st.options.push(Opt::NoAlert);
            }
        }
        "stream_size" => {
            let Some(val) = need_value(st, o, kw) else {
                return;
            };
            let p = v::csv(val);
            if p.len() != 3 || !["server", "client", "both", "either"].contains(&p[0]) {
                st.err(
                    off,
                    Reason::InvalidValue,
                    kw,
                    "stream_size needs server|client|both|either,op,size",
                );
                return;
            }
            if !["<", ">", "=", "!=", "<=", ">="].contains(&p[1]) {
                st.err(
                    off,
                    Reason::InvalidValue,
                    kw,
                    format!("stream_size: invalid operator '{}'", p[1]),
                );
                return;
            }
            let size = tryv!(st, o, kw, v::uint(p[2], u32::MAX as u64));
            st.options.push(Opt::StreamSize {
                side: p[0].to_owned(),
                op: p[1].to_owned(),
                size,
            });
        }
        "threshold" | "detection_filter" => {
            let Some(val) = need_value(st, o, kw) else {
                return;
            };
            let t = tryv!(st, o, kw, v::threshold(val, kw == "threshold"));
            if st
                .options
                .iter()
                .any(|x| matches!(x, Opt::Threshold(_) | Opt::DetectionFilter(_)))
            {
                st.err(
                    o.name_off,
                    Reason::Semantic,
                    kw,
                    "only one threshold or detection_filter per rule",
                );
                return;
            }
            st.options.push(if kw == "threshold" {
                Opt::Threshold(t)
            } else {
                Opt::DetectionFilter(t)
            });
        }
        "app-layer-protocol" => {
            let Some(val) = need_value(st, o, kw) else {
                return;
            };
            let (p, mode) = match val.split_once(',') {
                Some((a, b)) => (a.trim(), Some(b.trim().to_owned())),
                None => (val, None),
            };
            let (negated, name) = match p.strip_prefix('!') {
                Some(r) => (true, r.trim()),
                None => (false, p),
            };
            let Some(proto) = AppLayerProto::parse(name) else {
                st.err(
                    off,
                    Reason::InvalidValue,
                    kw,
                    format!("unknown app-layer protocol '{name}'"),
                );
                return;
            };
            let mode = match mode {
                None => None,
                Some(m) => match AppLayerMode::parse(&m) {
                    Some(m) => Some(m),
                    None => {
                        st.err(
                            off,
                            Reason::InvalidValue,
                            kw,
                            format!("unknown app-layer-protocol mode '{m}'"),
                        );
                        return;
                    }
                },
            };
            st.options.push(Opt::AppLayerProtocol {
                negated,
                proto,
                mode,
            });
        }
        "app-layer-event" => {
            let Some(val) = need_value(st, o, kw) else {
                return;
            };
            st.options.push(Opt::AppLayerEvent(val.to_owned()));
        }
        "tag" => {
            let Some(val) = need_value(st, o, kw) else {
                return;
            };
            let first = v::csv(val)[0];
            if !["session", "host"].contains(&first) {
                st.err(
                    off,
                    Reason::InvalidValue,
                    kw,
                    format!("tag type must be session or host, not '{first}'"),
                );
                return;
            }
            st.options.push(Opt::Tag(val.to_owned()));
        }
        "ssl_state" => {
            let Some(val) = need_value(st, o, kw) else {
                return;
            };
            st.options.push(Opt::SslState(val.to_owned()));
        }
        "ssl_version" | "tls.version" => {
            let Some(val) = need_value(st, o, kw) else {
                return;
            };
            st.options.push(Opt::TlsVersion(val.to_owned()));
        }
        // ---- buffers ----
        _ => buffer_or_other(st, kw, o),
    }
}

fn buffer_or_other(st: &mut State, kw: &str, o: &RawOption<'_>) {
    // Sticky buffers (file_data accepts Snort's `file_data:mime`).
    let sticky = match (Buffer::from_sticky(kw), o.value) {
        (Some(b), None) => Some(b),
        (Some(Buffer::FileData), Some("mime")) => Some(Buffer::FileData),
        _ => None,
    };
    if let Some(b) = sticky {
        st.sticky = if b == Buffer::Payload {
            None
        } else {
            Some(Sticky {
                buffer: b,
                transforms: Vec::new(),
                block: None,
            })
        };
        return;
    }
    if let Some(b) = Buffer::from_content_modifier(kw) {
        if !no_value(st, o, kw) {
            return;
        }
        if st.sticky.is_some() {
            st.err(
                o.name_off,
                Reason::Semantic,
                kw,
                format!("'{kw}' used while a sticky buffer is set (reset with pkt_data first)"),
            );
            return;
        }
        let Some((blk, idx)) = st.last_content else {
            st.err(
                o.name_off,
                Reason::Semantic,
                kw,
                format!("'{kw}' needs a preceding content"),
            );
            return;
        };
        let cur = st.blocks[blk].buffer;
        if cur == b {
            return;
        }
        if cur != Buffer::Payload || !st.blocks[blk].transforms.is_empty() {
            st.err(
                o.name_off,
                Reason::Semantic,
                kw,
                format!("content is already in buffer {}", cur.name()),
            );
            return;
        }
        if let Match::Content(c) = &st.blocks[blk].matches[idx] {
            if c.rawbytes {
                st.err(
                    o.name_off,
                    Reason::Semantic,
                    kw,
                    format!("rawbytes cannot be used with '{kw}'"),
                );
                return;
            }
        }
        let m = st.blocks[blk].matches.remove(idx);
        let nb = st.block_for(b, &[]);
        st.push_match(nb, m);
        return;
    }
    if let Some(t) = Transform::simple(kw) {
        if no_value(st, o, kw) {
            add_transform(st, kw, o, t);
        }
        return;
    }
    match kw {
        "xor" => {
            let Some(s) = quoted(st, o, kw) else { return };
            let key = match hex_bytes(s) {
                Some(k) if !k.is_empty() => k,
                _ => {
                    st.err(
                        o.value_off,
                        Reason::InvalidValue,
                        kw,
                        "xor key must be hex bytes",
                    );
                    return;
                }
            };
            add_transform(st, kw, o, Transform::Xor(key));
            return;
        }
        "pcrexform" => {
            let Some(s) = quoted(st, o, kw) else { return };
            if let Err(e) = compile_pcre(s, "") {
                st.err(o.value_off, Reason::InvalidPcre, kw, e);
                return;
            }
            add_transform(st, kw, o, Transform::PcreXform(s.to_owned()));
            return;
        }
        _ => {}
    }
    if let Some(name) = VERBATIM_KEYWORDS.iter().find(|k| **k == kw) {
        st.options.push(Opt::Keyword {
            name,
            value: o.value.map(str::to_owned),
        });
        return;
    }
    if Buffer::from_sticky(kw).is_some() {
        st.err(
            o.value_off,
            Reason::InvalidValue,
            kw,
            format!("sticky buffer '{kw}' takes no value"),
        );
        return;
    }
    st.err(
        o.name_off,
        Reason::UnsupportedKeyword,
        kw,
        format!("unsupported keyword '{kw}'"),
    );
}

fn hex_bytes(s: &str) -> Option<Vec<u8>> {
    let s: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

fn add_transform(st: &mut State, kw: &str, o: &RawOption<'_>, t: Transform) {
    match st.sticky.as_mut() {
        Some(s) => match s.block {
            None => s.transforms.push(t),
            Some(b) => {
                // Suricata applies a transform to the whole buffer, matches before it included.
                s.transforms.push(t.clone());
                st.blocks[b].transforms.push(t);
                st.warn(
                    o.name_off,
                    Reason::Semantic,
                    kw,
                    "transform after matches applies to the whole buffer, earlier matches included (as in Suricata)",
                );
            }
        },
        None => st.err(
            o.name_off,
            Reason::Semantic,
            kw,
            format!("transform '{kw}' needs a sticky buffer"),
        ),
    }
}

/// Compiles a pcre pattern with Suricata flags, for validation.
pub fn compile_pcre(pattern: &str, flags: &str) -> Result<(), String> {
    let mut b = pcre2::bytes::RegexBuilder::new();
    b.caseless(flags.contains('i'))
        .dotall(flags.contains('s'))
        .multi_line(flags.contains('m'))
        .extended(flags.contains('x'));
    b.build(pattern)
        .map(|_| ())
        .map_err(|e| format!("pcre does not compile: {e}"))
}

const PCRE_FLAGS: &str = "ismxAEGROBUIPQHDMCSYVWZ";

fn pcre(st: &mut State, o: &RawOption<'_>, val: &str) {
    let kw = "pcre";
    let (negated, rest) = match val.strip_prefix('!') {
        Some(r) => (true, r.trim_start()),
        None => (false, val),
    };
    // Suricata also accepts an unquoted /regex/flags.
    let inner = if rest.starts_with('"') {
        match lexer::strip_quotes(rest) {
            Ok(s) => s,
            Err(e) => {
                st.err(o.value_off, Reason::Syntax, kw, e);
                return;
            }
        }
    } else {
        rest
    };
    let Some(body) = inner.strip_prefix('/') else {
        st.err(
            o.value_off,
            Reason::Syntax,
            kw,
            "pcre must be \"/regex/flags\"",
        );
        return;
    };
    let Some(end) = body.rfind('/') else {
        st.err(o.value_off, Reason::Syntax, kw, "pcre has no closing '/'");
        return;
    };
    let pattern = &body[..end];
    let tail = &body[end + 1..];
    let (all_flags, captures) = match tail.split_once(',') {
        Some((f, caps)) => {
            let caps: Vec<String> = caps.split(',').map(|c| c.trim().to_owned()).collect();
            for c in &caps {
                let ok = c.split_once(':').is_some_and(|(k, n)| {
                    matches!(k, "pkt" | "flow" | "alert")
                        && !n.is_empty()
                        && !n.contains(char::is_whitespace)
                });
                if !ok {
                    st.err(
                        o.value_off,
                        Reason::InvalidValue,
                        kw,
                        format!("bad pcre capture '{c}' (pkt:|flow:|alert:name)"),
                    );
                    return;
                }
            }
            (f.trim(), caps)
        }
        None => (tail, Vec::new()),
    };
    let mut flags = String::new();
    let mut buffer = None;
    for c in all_flags.chars() {
        if !PCRE_FLAGS.contains(c) {
            st.err(
                o.value_off,
                Reason::InvalidValue,
                kw,
                format!("unknown pcre flag '{c}'"),
            );
            return;
        }
        if let Some(b) = Buffer::from_pcre_flag(c) {
            if buffer.is_some_and(|x| x != b) {
                st.err(
                    o.value_off,
                    Reason::Semantic,
                    kw,
                    "pcre selects two different buffers",
                );
                return;
            }
            buffer = Some(b);
        } else if flags.contains(c) {
            st.err(
                o.value_off,
                Reason::InvalidValue,
                kw,
                format!("pcre flag '{c}' given twice"),
            );
            return;
        } else {
            flags.push(c);
        }
    }
    if let Err(e) = compile_pcre(pattern, &flags) {
        st.err(o.value_off, Reason::InvalidPcre, kw, e);
        return;
    }
    let block = match buffer {
        Some(b) => {
            if let Some(s) = &st.sticky {
                if s.buffer != b {
                    st.err(
                        o.value_off,
                        Reason::Semantic,
                        kw,
                        format!(
                            "pcre buffer flag conflicts with sticky buffer {}",
                            s.buffer.name()
                        ),
                    );
                    return;
                }
                st.current_block()
            } else {
                st.block_for(b, &[])
            }
        }
        None => st.current_block(),
    };
    let p = Pcre {
        pattern: pattern.to_owned(),
        flags,
        negated,
        captures,
    };
    if p.is_relative() && st.blocks[block].matches.is_empty() {
        st.err(
            o.value_off,
            Reason::Semantic,
            kw,
            "pcre with /R (relative) needs a preceding match in the same buffer",
        );
        return;
    }
    st.push_match(block, Match::Pcre(p));
}

/// Checks made once all options are read.
fn finish(st: &mut State, end: usize) {
    if !st.seen_sid
        && !st
            .diags
            .iter()
            .any(|(_, d)| d.keyword.as_deref() == Some("sid"))
    {
        st.diags.push((
            end,
            Diagnostic::error(Reason::MissingSid, Some("sid"), "rule has no sid"),
        ));
    }
    let mut fp = 0;
    let mut errs = Vec::new();
    let dsize_max = st.options.iter().find_map(|o| match o {
        Opt::Dsize(c) => v::cmp_max(*c),
        _ => None,
    });
    for b in &st.blocks {
        let bsize_max = b.matches.iter().find_map(|m| match m {
            Match::Bsize(c) => v::cmp_max(*c),
            _ => None,
        });
        for m in &b.matches {
            let Match::Content(c) = m else { continue };
            let len = c.pattern.len() as i64;
            let name = b.buffer.name();
            if c.fast_pattern.is_some() {
                fp += 1;
            }
            if c.is_relative() && (c.offset.is_some() || c.depth.is_some()) {
                errs.push(("distance", "can't mix relative (distance/within) and absolute (offset/depth) modifiers on one content".to_string()));
            }
            if let Some(Num::Lit(d)) = c.depth {
                if d < len {
                    errs.push((
                        "depth",
                        format!("depth {d} is shorter than the content ({len} bytes)"),
                    ));
                }
                if d == 0 {
                    errs.push(("depth", "depth 0 is invalid".into()));
                }
            }
            if let Some(Num::Lit(w)) = c.within {
                if w < len {
                    errs.push((
                        "within",
                        format!("within {w} is shorter than the content ({len} bytes)"),
                    ));
                }
            }
            if c.startswith
                && (c.offset.is_some()
                    || c.depth.is_some()
                    || c.distance.is_some()
                    || c.within.is_some())
            {
                errs.push((
                    "startswith",
                    "startswith can't be combined with offset/depth/distance/within".into(),
                ));
            }
            match c.fast_pattern {
                Some(FastPattern::Only) if c.is_relative() || c.offset.is_some() || c.depth.is_some() => {
                    errs.push(("fast_pattern", "fast_pattern:only can't be used with offset/depth/distance/within".into()))
                }
                Some(FastPattern::Only) if c.negated => {
                    errs.push(("fast_pattern", "fast_pattern:only can't be used on a negated content".into()))
                }
                Some(FastPattern::Chop { offset, length }) if offset as i64 + length as i64 > len => errs.push((
                    "fast_pattern",
                    format!("fast_pattern {offset},{length} goes past the end of the content ({len} bytes)"),
                )),
                _ => {}
            }
            if !c.negated {
                if let Some(max) = bsize_max {
                    if len as u64 > max {
                        errs.push(("bsize", format!("content of {len} bytes can never fit bsize (at most {max}) of {name}")));
                    }
                }
                if b.buffer == Buffer::Payload {
                    if let Some(max) = dsize_max {
                        if len as u64 > max {
                            errs.push((
                                "dsize",
                                format!(
                                    "content of {len} bytes can never fit dsize (at most {max})"
                                ),
                            ));
                        }
                    }
                }
            }
        }
    }
    if fp > 1 {
        errs.push((
            "fast_pattern",
            "fast_pattern can be set on only one content per rule".into(),
        ));
    }
    for (k, m) in errs {
        st.diags
            .push((end, Diagnostic::error(Reason::Semantic, Some(k), m)));
    }
}

/// Application protocol implied by a buffer (None: any).
fn buffer_proto(b: Buffer) -> Option<&'static [AppProto]> {
    use AppProto::*;
    const HTTP: &[AppProto] = &[Http, Http1, Http2];
    let n = b.name();
    Some(if n.starts_with("http.") {
        if matches!(b, Buffer::HttpRequestHeader | Buffer::HttpResponseHeader) {
            &[Http2, Http]
        } else {
            HTTP
        }
    } else if n.starts_with("http2.") {
        &[Http2, Http]
    } else if n.starts_with("dns.") {
        &[Dns]
    } else if n.starts_with("tls.") {
        &[Tls]
    } else if n.starts_with("ssh.") {
        &[Ssh]
    } else if n.starts_with("sip.") {
        &[Sip]
    } else if n.starts_with("mqtt.") {
        &[Mqtt]
    } else if n.starts_with("krb5.") {
        &[Krb5]
    } else if n.starts_with("snmp.") {
        &[Snmp]
    } else if n.starts_with("quic.") {
        &[Quic]
    } else if n.starts_with("ike.") {
        &[Ike]
    } else if n.starts_with("ja3") || n.starts_with("ja4") {
        &[Tls, Quic]
    } else {
        return None;
    })
}

fn app_proto_check(st: &mut State, h: &Header, off: usize) {
    let mut allowed: Option<(&'static [AppProto], Buffer)> = None;
    let header_app = match h.protocol {
        Protocol::App(a) => Some(a),
        _ => None,
    };
    for b in &st.blocks {
        let Some(set) = buffer_proto(b.buffer) else {
            continue;
        };
        if let Some(a) = header_app {
            if !set.contains(&a) {
                let m = format!(
                    "buffer {} can't be used in a rule for protocol {}",
                    b.buffer.name(),
                    a.name()
                );
                st.diags.push((
                    off,
                    Diagnostic::error(Reason::Semantic, Some(b.buffer.name()), m),
                ));
                return;
            }
        }
        if let Some((prev, pb)) = allowed {
            if !set.iter().any(|p| prev.contains(p)) {
                let m = format!(
                    "buffers {} and {} belong to different protocols",
                    pb.name(),
                    b.buffer.name()
                );
                st.diags.push((
                    off,
                    Diagnostic::error(Reason::Semantic, Some(b.buffer.name()), m),
                ));
                return;
            }
        }
        allowed = Some((set, b.buffer));
    }
}

#[cfg(test)]
#[path = "parser_tests.rs"]
mod tests;
