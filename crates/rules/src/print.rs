//! Canonical rule text: `Display` for [`Rule`]. Parsing the text gives back the same
//! [`Rule`] (the round-trip property tested on every ET Open rule).

use std::fmt::{self, Write};

use crate::ast::*;
use crate::buffers::{Buffer, Transform};

fn write_bytes(f: &mut impl Write, b: &[u8]) -> fmt::Result {
    let mut in_hex = false;
    for &c in b {
        let printable = (0x20..0x7f).contains(&c) && !matches!(c, b'"' | b';' | b'\\' | b'|');
        if printable {
            if in_hex {
                f.write_char('|')?;
                in_hex = false;
            }
            f.write_char(c as char)?;
        } else {
            if in_hex {
                f.write_char(' ')?;
            } else {
                f.write_char('|')?;
                in_hex = true;
            }
            write!(f, "{c:02X}")?;
        }
    }
    if in_hex {
        f.write_char('|')?;
    }
    Ok(())
}

fn escape_text(f: &mut impl Write, s: &str) -> fmt::Result {
    for c in s.chars() {
        if matches!(c, '\\' | '"' | ';') {
            f.write_char('\\')?;
        }
        f.write_char(c)?;
    }
    Ok(())
}

impl fmt::Display for Num {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Num::Lit(n) => write!(f, "{n}"),
            Num::Var(v) => f.write_str(v),
        }
    }
}

impl fmt::Display for IntCmp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            IntCmp::Eq(n) => write!(f, "{n}"),
            IntCmp::Ne(n) => write!(f, "!{n}"),
            IntCmp::Lt(n) => write!(f, "<{n}"),
            IntCmp::Le(n) => write!(f, "<={n}"),
            IntCmp::Gt(n) => write!(f, ">{n}"),
            IntCmp::Ge(n) => write!(f, ">={n}"),
            IntCmp::Range(a, b) => write!(f, "{a}<>{b}"),
            IntCmp::NotRange(a, b) => write!(f, "!{a}-{b}"),
        }
    }
}

fn write_common(f: &mut impl Write, c: &ByteCommon, byte_math: bool) -> fmt::Result {
    if c.relative {
        f.write_str(",relative")?;
    }
    match (c.endian, byte_math) {
        (Endian::Default, _) => {}
        (Endian::Big, false) => f.write_str(",big")?,
        (Endian::Little, false) => f.write_str(",little")?,
        (Endian::Big, true) => f.write_str(",endian big")?,
        (Endian::Little, true) => f.write_str(",endian little")?,
        (Endian::Dce, _) => f.write_str(",dce")?,
    }
    if let Some(b) = c.string {
        if byte_math {
            write!(f, ",string {}", b.as_str())?;
        } else {
            write!(f, ",string,{}", b.as_str())?;
        }
    }
    if let Some(m) = c.bitmask {
        write!(f, ",bitmask 0x{m:x}")?;
    }
    Ok(())
}

fn write_match(f: &mut impl Write, m: &Match) -> fmt::Result {
    match m {
        Match::Content(c) => {
            f.write_str(" content:")?;
            if c.negated {
                f.write_char('!')?;
            }
            f.write_char('"')?;
            write_bytes(f, &c.pattern)?;
            f.write_str("\";")?;
            if c.nocase {
                f.write_str(" nocase;")?;
            }
            if c.rawbytes {
                f.write_str(" rawbytes;")?;
            }
            for (k, v) in [
                ("offset", &c.offset),
                ("depth", &c.depth),
                ("distance", &c.distance),
                ("within", &c.within),
            ] {
                if let Some(v) = v {
                    write!(f, " {k}:{v};")?;
                }
            }
            if c.startswith {
                f.write_str(" startswith;")?;
            }
            if c.endswith {
                f.write_str(" endswith;")?;
            }
            match c.fast_pattern {
                None => {}
                Some(FastPattern::Yes) => f.write_str(" fast_pattern;")?,
                Some(FastPattern::Only) => f.write_str(" fast_pattern:only;")?,
                Some(FastPattern::Chop { offset, length }) => {
                    write!(f, " fast_pattern:{offset},{length};")?
                }
            }
            if let Some(r) = &c.replace {
                f.write_str(" replace:\"")?;
                write_bytes(f, r)?;
                f.write_str("\";")?;
            }
        }
        Match::Pcre(p) => {
            write!(
                f,
                " pcre:{}\"/{}/{}",
                if p.negated { "!" } else { "" },
                p.pattern,
                p.flags
            )?;
            for c in &p.captures {
                write!(f, ", {c}")?;
            }
            f.write_str("\";")?;
        }
        Match::ByteTest(t) => {
            write!(
                f,
                " byte_test:{},{}{},{},{}",
                t.nbytes,
                if t.negated { "!" } else { "" },
                t.op.as_str(),
                t.value,
                t.offset
            )?;
            write_common(f, &t.common, false)?;
            f.write_char(';')?;
        }
        Match::ByteJump(j) => {
            write!(f, " byte_jump:{},{}", j.nbytes, j.offset)?;
            write_common(f, &j.common, false)?;
            if let Some(m) = j.multiplier {
                write!(f, ",multiplier {m}")?;
            }
            if j.align {
                f.write_str(",align")?;
            }
            if j.from_beginning {
                f.write_str(",from_beginning")?;
            }
            if j.from_end {
                f.write_str(",from_end")?;
            }
            if let Some(p) = j.post_offset {
                write!(f, ",post_offset {p}")?;
            }
            f.write_char(';')?;
        }
        Match::ByteExtract(e) => {
            write!(f, " byte_extract:{},{},{}", e.nbytes, e.offset, e.name)?;
            write_common(f, &e.common, false)?;
            if let Some(m) = e.multiplier {
                write!(f, ",multiplier {m}")?;
            }
            if let Some(a) = e.align {
                write!(f, ",align {a}")?;
            }
            f.write_char(';')?;
        }
        Match::ByteMath(m) => {
            write!(
                f,
                " byte_math:bytes {},offset {},oper {},rvalue {},result {}",
                m.nbytes,
                m.offset,
                m.oper.as_str(),
                m.rvalue,
                m.result
            )?;
            write_common(f, &m.common, true)?;
            f.write_char(';')?;
        }
        Match::IsDataAt(d) => {
            write!(
                f,
                " isdataat:{}{}",
                if d.negated { "!" } else { "" },
                d.offset
            )?;
            if d.relative {
                f.write_str(",relative")?;
            }
            if d.rawbytes {
                f.write_str(",rawbytes")?;
            }
            f.write_char(';')?;
        }
        Match::Bsize(c) => write!(f, " bsize:{c};")?,
        Match::Base64Decode {
            bytes,
            offset,
            relative,
        } => {
            let mut parts = Vec::new();
            if let Some(b) = bytes {
                parts.push(format!("bytes {b}"));
            }
            if let Some(o) = offset {
                parts.push(format!("offset {o}"));
            }
            if *relative {
                parts.push("relative".into());
            }
            if parts.is_empty() {
                f.write_str(" base64_decode;")?;
            } else {
                write!(f, " base64_decode:{};", parts.join(","))?;
            }
        }
        Match::Asn1(s) => write!(f, " asn1:{s};")?,
        Match::Urilen { cmp, raw } => {
            write!(f, " urilen:{cmp}{};", if *raw { ",raw" } else { "" })?
        }
        Match::List(l) => write!(f, " {l}")?,
    }
    Ok(())
}

fn write_transform(f: &mut impl Write, t: &Transform) -> fmt::Result {
    match t {
        Transform::Xor(k) => {
            f.write_str(" xor:\"")?;
            for b in k {
                write!(f, "{b:02x}")?;
            }
            f.write_str("\";")
        }
        Transform::PcreXform(p) => write!(f, " pcrexform:\"{p}\";"),
        other => write!(f, " {};", other.name()),
    }
}

fn write_threshold(f: &mut impl Write, t: &Threshold) -> fmt::Result {
    if let Some(k) = t.kind {
        write!(f, "type {}, ", k.as_str())?;
    }
    write!(
        f,
        "track {}, count {}, seconds {}",
        t.track.as_str(),
        t.count,
        t.seconds
    )?;
    if let Some(m) = t.multiplier {
        write!(f, ", multiplier {m}")?;
    }
    Ok(())
}

fn write_opt(f: &mut impl Write, o: &Opt) -> fmt::Result {
    match o {
        Opt::Flow(fl) => {
            let mut parts = Vec::new();
            for (on, name) in [
                (fl.to_server, "to_server"),
                (fl.to_client, "to_client"),
                (fl.established, "established"),
                (fl.not_established, "not_established"),
                (fl.stateless, "stateless"),
                (fl.only_stream, "only_stream"),
                (fl.no_stream, "no_stream"),
                (fl.only_frag, "only_frag"),
                (fl.no_frag, "no_frag"),
            ] {
                if on {
                    parts.push(name);
                }
            }
            write!(f, " flow:{};", parts.join(","))
        }
        Opt::Flowbits(b) => {
            if b.names.is_empty() {
                write!(f, " flowbits:{};", b.cmd.as_str())
            } else {
                write!(
                    f,
                    " flowbits:{},{};",
                    b.cmd.as_str(),
                    b.names.join(if b.all { "&" } else { "|" })
                )
            }
        }
        Opt::Xbits { cmd, name, rest } => {
            if rest.is_empty() {
                write!(f, " xbits:{},{};", cmd.as_str(), name)
            } else {
                write!(f, " xbits:{},{},{};", cmd.as_str(), name, rest)
            }
        }
        Opt::Flowint { name, op, value } => match value {
            Some(v) => write!(f, " flowint:{name},{op},{v};"),
            None => write!(f, " flowint:{name},{op};"),
        },
        Opt::Dsize(c) => write!(f, " dsize:{c};"),
        Opt::Flags(fl) => {
            f.write_str(" flags:")?;
            if let Some(m) = fl.modifier.as_char() {
                f.write_char(m)?;
            }
            TcpFlags::write_letters(f, fl.set)?;
            if fl.ignore != 0 {
                f.write_char(',')?;
                TcpFlags::write_letters(f, fl.ignore)?;
            }
            f.write_char(';')
        }
        Opt::Ttl(c) => write!(f, " ttl:{c};"),
        Opt::Itype(c) => write!(f, " itype:{c};"),
        Opt::Icode(c) => write!(f, " icode:{c};"),
        Opt::IcmpId(n) => write!(f, " icmp_id:{n};"),
        Opt::IcmpSeq(n) => write!(f, " icmp_seq:{n};"),
        Opt::Seq(n) => write!(f, " seq:{n};"),
        Opt::Ack(n) => write!(f, " ack:{n};"),
        Opt::Window { negated, size } => {
            write!(f, " window:{}{size};", if *negated { "!" } else { "" })
        }
        Opt::IpId(n) => write!(f, " id:{n};"),
        Opt::Tos { negated, value } => {
            write!(f, " tos:{}{value};", if *negated { "!" } else { "" })
        }
        Opt::IpProto { op, proto } => {
            write!(f, " ip_proto:{}{proto};", op.as_str())
        }
        Opt::IpOpts(s) => write!(f, " ipopts:{s};"),
        Opt::Fragbits(s) => write!(f, " fragbits:{s};"),
        Opt::Fragoffset(s) => write!(f, " fragoffset:{s};"),
        Opt::SameIp => f.write_str(" sameip;"),
        Opt::StreamSize { side, op, size } => write!(f, " stream_size:{side},{op},{size};"),
        Opt::Threshold(t) => {
            f.write_str(" threshold:")?;
            write_threshold(f, t)?;
            f.write_char(';')
        }
        Opt::DetectionFilter(t) => {
            f.write_str(" detection_filter:")?;
            write_threshold(f, t)?;
            f.write_char(';')
        }
        Opt::AppLayerProtocol {
            negated,
            proto,
            mode,
        } => {
            write!(
                f,
                " app-layer-protocol:{}{}",
                if *negated { "!" } else { "" },
                proto.name()
            )?;
            if let Some(m) = mode {
                write!(f, ",{}", m.as_str())?;
            }
            f.write_char(';')
        }
        Opt::AppLayerEvent(s) => write!(f, " app-layer-event:{s};"),
        Opt::Tag(s) => write!(f, " tag:{s};"),
        Opt::NoAlert => f.write_str(" noalert;"),
        Opt::SslState(s) => write!(f, " ssl_state:{s};"),
        Opt::TlsVersion(s) => write!(f, " ssl_version:{s};"),
        Opt::App(a) => write_app_opt(f, a),
        Opt::Intel(o) => write!(f, " {o}"),
        Opt::Lua(s) => write!(f, " lua:{}{};", if s.negated { "!" } else { "" }, s.file),
        Opt::Keyword { name, value } => match value {
            Some(v) => write!(f, " {name}:{v};"),
            None => write!(f, " {name};"),
        },
    }
}

/// A transaction keyword in a form its parser reads back (integer lists as
/// comparisons, an interface as its UUID in text).
fn write_app_opt(f: &mut impl Write, a: &crate::ast::AppOpt) -> fmt::Result {
    use crate::ast::AppValue;
    let neg = if a.negated { "!" } else { "" };
    match &a.value {
        AppValue::Flag => write!(f, " {};", a.name),
        AppValue::Ints(v) => {
            write!(f, " {}:{neg}", a.name)?;
            for (i, c) in v.iter().enumerate() {
                write!(f, "{}{c}", if i > 0 { "," } else { "" })?;
            }
            f.write_str(";")
        }
        AppValue::Text(t) => write!(f, " {}:{neg}{t};", a.name),
        AppValue::Bits { text, .. } => write!(f, " {}:{text};", a.name),
        AppValue::Named { name, cmp } => write!(f, " {}:{neg}{name}={cmp};", a.name),
        AppValue::Iface {
            uuid,
            version,
            any_frag,
        } => {
            let u = uuid;
            write!(
                f,
                " {}:{neg}{:02x}{:02x}{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-",
                a.name, u[3], u[2], u[1], u[0], u[5], u[4], u[7], u[6], u[8], u[9]
            )?;
            for b in &u[10..] {
                write!(f, "{b:02x}")?;
            }
            if let Some(v) = version {
                write!(f, ",{v}")?;
            }
            if *any_frag {
                f.write_str(",any_frag")?;
            }
            f.write_str(";")
        }
        AppValue::Modbus(m) => write!(f, " {}:{m};", a.name),
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let h = &self.header;
        write!(
            f,
            "{} {} {} {} {} {} {} (",
            self.action.as_str(),
            h.protocol.name(),
            h.src,
            h.src_ports,
            match h.direction {
                Direction::ToDst => "->",
                Direction::Both => "<>",
            },
            h.dst,
            h.dst_ports
        )?;
        let m = &self.meta;
        if let Some(msg) = &m.msg {
            f.write_str("msg:\"")?;
            escape_text(f, msg)?;
            f.write_str("\";")?;
        }
        let mut sticky = false;
        for b in &self.buffers {
            if b.buffer == Buffer::Payload && b.transforms.is_empty() {
                if sticky {
                    f.write_str(" pkt_data;")?;
                    sticky = false;
                }
            } else {
                match b.buffer {
                    Buffer::Frame(t) => write!(f, " frame:{};", t.name())?,
                    _ => write!(f, " {};", b.buffer.name())?,
                }
                sticky = true;
                for t in &b.transforms {
                    write_transform(f, t)?;
                }
            }
            for x in &b.matches {
                write_match(f, x)?;
            }
        }
        for o in &self.options {
            write_opt(f, o)?;
        }
        if let Some(c) = &m.classtype {
            write!(f, " classtype:{c};")?;
        }
        if let Some(p) = m.priority {
            write!(f, " priority:{p};")?;
        }
        for r in &m.references {
            write!(f, " reference:{},{};", r.system, r.id)?;
        }
        if !m.metadata.is_empty() {
            write!(f, " metadata:{};", m.metadata.join(", "))?;
        }
        match m.target {
            Some(Target::SrcIp) => f.write_str(" target:src_ip;")?,
            Some(Target::DestIp) => f.write_str(" target:dest_ip;")?,
            None => {}
        }
        if m.gid != 1 {
            write!(f, " gid:{};", m.gid)?;
        }
        if m.sid != 0 {
            write!(f, " sid:{};", m.sid)?;
        }
        write!(f, " rev:{};)", m.rev)
    }
}
