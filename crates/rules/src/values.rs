//! Parsers for keyword values: content strings, numbers, comparisons, `byte_*` argument
//! lists, thresholds, flow and flags.

use crate::ast::*;

/// Longest content pattern accepted.
pub const MAX_CONTENT_LEN: usize = 65_535;

/// Parses a content value `[!]"..."` into (negated, bytes).
pub fn content_value(v: &str) -> Result<(bool, Vec<u8>), String> {
    let v = v.trim();
    let (neg, rest) = match v.strip_prefix('!') {
        Some(r) => (true, r.trim_start()),
        None => (false, v),
    };
    let inner = crate::lexer::strip_quotes(rest)?;
    if !rest.starts_with('"') {
        return Err("content must be quoted".into());
    }
    let bytes = content_bytes(inner)?;
    if bytes.is_empty() {
        return Err("empty content".into());
    }
    if bytes.len() > MAX_CONTENT_LEN {
        return Err(format!("content longer than {MAX_CONTENT_LEN} bytes"));
    }
    Ok((neg, bytes))
}

/// Decodes the inside of a quoted content string: `\;` `\"` `\\` `\:` escapes and
/// `|41 42|` hex blocks (spaces allowed between hex digits and pairs).
pub fn content_bytes(s: &str) -> Result<Vec<u8>, String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    let mut hex = false;
    let mut nib: Option<u8> = None;
    while i < b.len() {
        let c = b[i];
        if hex {
            match c {
                b'|' => {
                    if nib.is_some() {
                        return Err("odd number of hex digits in |...|".into());
                    }
                    hex = false;
                }
                b' ' | b'\t' => {
                    if nib.is_some() {
                        return Err("space inside a hex byte in |...|".into());
                    }
                }
                _ => {
                    let d = (c as char)
                        .to_digit(16)
                        .ok_or_else(|| format!("invalid hex character '{}' in |...|", c as char))?
                        as u8;
                    match nib.take() {
                        Some(h) => out.push(h << 4 | d),
                        None => nib = Some(d),
                    }
                }
            }
            i += 1;
            continue;
        }
        match c {
            b'|' => hex = true,
            b'\\' => {
                let n = *b.get(i + 1).ok_or("content ends with a lone backslash")?;
                if !matches!(n, b'\\' | b';' | b':' | b'"') {
                    return Err(format!(
                        "'\\{}' is not a valid escape in content",
                        n as char
                    ));
                }
                out.push(n);
                i += 1;
            }
            b'"' => return Err("unescaped '\"' inside content".into()),
            _ => out.push(c),
        }
        i += 1;
    }
    if hex {
        return Err("unterminated |hex| block".into());
    }
    Ok(out)
}

/// A value's leading `!` (negation), and the rest.
pub fn negation(s: &str) -> (bool, &str) {
    match s.strip_prefix('!') {
        Some(r) => (true, r),
        None => (false, s),
    }
}

/// Parses an integer: decimal, `0x` hex, optional sign.
pub fn int(s: &str) -> Result<i64, String> {
    let t = s.trim();
    let (neg, t2) = match t.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let v = if let Some(h) = t2.strip_prefix("0x").or_else(|| t2.strip_prefix("0X")) {
        i64::from_str_radix(h, 16)
    } else {
        t2.parse::<i64>()
    }
    .map_err(|_| format!("'{t}' is not a number"))?;
    Ok(if neg { -v } else { v })
}

/// Parses an unsigned integer in range (decimal digits past `i64::MAX` too, for the
/// 64-bit keywords).
pub fn uint(s: &str, max: u64) -> Result<u64, String> {
    let t = s.trim();
    let v = match int(t) {
        Ok(v) if v < 0 => return Err(format!("'{t}' out of range 0..={max}")),
        Ok(v) => v as u64,
        Err(e) => match t.parse::<u64>() {
            Ok(v) if t.bytes().all(|b| b.is_ascii_digit()) => v,
            _ => return Err(e),
        },
    };
    if v > max {
        return Err(format!("'{t}' out of range 0..={max}"));
    }
    Ok(v)
}

/// A comparison in Suricata 7.0.10's unsigned-integer syntax (its `detect_uint`
/// parser, shared by `dhcp.*`, `snmp.version`, `rfb.sectype`, `ike.exchtype`, the IKE
/// payload lengths ...): [`int_cmp`]'s forms with decimal numbers only (no `0x`, no
/// sign), no negated range, and none that holds for no value or for every value
/// ([`uint_edges`]).
pub fn suricata_uint(s: &str, max: u64) -> Result<IntCmp, String> {
    let t = s.trim();
    if let Some(c) = t
        .chars()
        .find(|c| !(c.is_ascii_digit() || c.is_whitespace() || "<>=!-".contains(*c)))
    {
        return Err(format!("'{t}': '{c}' in a decimal comparison"));
    }
    if t.starts_with('!') && t[1..].contains('-') {
        return Err(format!("'{t}': a negated range"));
    }
    // `=5-7` is refused (checked against Suricata 7.0.10 with `http2.priority`).
    if t.starts_with('=') && t[1..].contains('-') {
        return Err(format!("'{t}': a range after '='"));
    }
    let c = int_cmp(t, max)?;
    uint_edges(c, max)?;
    Ok(c)
}

/// Suricata 7.0.10 refuses an integer comparison that can never or always hold: `<0`,
/// `>MAX`, `>=0`, `<=MAX`, and a range (exclusive at both ends) with nothing inside.
pub fn uint_edges(c: IntCmp, max: u64) -> Result<(), String> {
    match c {
        IntCmp::Lt(0) | IntCmp::Ge(0) => {
            Err("the comparison holds for no value or every value".into())
        }
        IntCmp::Gt(n) | IntCmp::Le(n) if n >= max => {
            Err("the comparison holds for no value or every value".into())
        }
        IntCmp::Range(a, b) if b <= a + 1 => Err(format!("range {a}-{b} holds no value")),
        _ => Ok(()),
    }
}

/// A plain decimal number (blanks around it allowed, no sign, no `0x`) up to `max`, as
/// Suricata 7.0.10 reads the keywords that take one value only (`krb5_msg_type`,
/// `krb5_err_code`, `snmp.pdu_type`).
pub fn decimal(s: &str, max: u64) -> Result<u64, String> {
    let t = s.trim();
    if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("'{t}' is not a decimal number"));
    }
    uint(t, max)
}

fn is_var_name(s: &str) -> bool {
    let mut c = s.chars();
    matches!(c.next(), Some(f) if f.is_ascii_alphabetic() || f == '_')
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.')
}

/// Parses a number or a `byte_extract`/`byte_math` variable reference.
pub fn num(s: &str) -> Result<Num, String> {
    let t = s.trim();
    match int(t) {
        Ok(v) => Ok(Num::Lit(v)),
        Err(e) => {
            if is_var_name(t) {
                Ok(Num::Var(t.to_owned()))
            } else {
                Err(e)
            }
        }
    }
}

/// Parses a comparison: `N`, `=N`, `!N`, `!=N`, `<N`, `<=N`, `>N`, `>=N`, `A<>B`, `A-B`, `!A-B`.
pub fn int_cmp(s: &str, max: u64) -> Result<IntCmp, String> {
    let t = s.trim();
    let u = |x: &str| uint(x, max);
    if let Some((a, b)) = t.split_once("<>") {
        let (a, b) = (u(a)?, u(b)?);
        if a >= b {
            return Err(format!("range '{t}' is empty or backwards"));
        }
        return Ok(IntCmp::Range(a, b));
    }
    if let Some(r) = t.strip_prefix("<=") {
        return Ok(IntCmp::Le(u(r)?));
    }
    if let Some(r) = t.strip_prefix(">=") {
        return Ok(IntCmp::Ge(u(r)?));
    }
    if let Some(r) = t.strip_prefix('<') {
        return Ok(IntCmp::Lt(u(r)?));
    }
    if let Some(r) = t.strip_prefix('>') {
        return Ok(IntCmp::Gt(u(r)?));
    }
    if let Some(r) = t.strip_prefix("!=").or_else(|| t.strip_prefix('!')) {
        if let Some((a, b)) = r.split_once('-') {
            let (a, b) = (u(a)?, u(b)?);
            if a >= b {
                return Err(format!("range '{t}' is empty or backwards"));
            }
            return Ok(IntCmp::NotRange(a, b));
        }
        return Ok(IntCmp::Ne(u(r)?));
    }
    let r = t.strip_prefix('=').unwrap_or(t);
    if let Some((a, b)) = r.split_once('-') {
        let (a, b) = (u(a)?, u(b)?);
        if a >= b {
            return Err(format!("range '{t}' is empty or backwards"));
        }
        return Ok(IntCmp::Range(a, b));
    }
    Ok(IntCmp::Eq(u(r)?))
}

/// Largest value an `IntCmp` accepts (for "content longer than dsize" checks).
pub fn cmp_max(c: IntCmp) -> Option<u64> {
    match c {
        IntCmp::Eq(n) | IntCmp::Le(n) => Some(n),
        IntCmp::Lt(n) => Some(n.saturating_sub(1)),
        IntCmp::Range(_, b) => Some(b.saturating_sub(1)),
        _ => None,
    }
}

/// Splits a comma-separated list, trimming each element.
pub fn csv(s: &str) -> Vec<&str> {
    s.split(',').map(str::trim).collect()
}

fn parse_base(s: &str) -> Result<NumBase, String> {
    Ok(match s {
        "hex" => NumBase::Hex,
        "dec" => NumBase::Dec,
        "oct" => NumBase::Oct,
        _ => return Err(format!("unknown string base '{s}'")),
    })
}

/// Handles one common `byte_*` flag; returns false if the word is not one.
fn common_flag(
    c: &mut ByteCommon,
    word: &str,
    next: Option<&str>,
    used_next: &mut bool,
) -> Result<bool, String> {
    let mut parts = word.split_whitespace();
    let head = parts.next().unwrap_or("");
    let arg = parts.next();
    match head {
        "relative" => c.relative = true,
        "big" => set_endian(c, Endian::Big)?,
        "little" => set_endian(c, Endian::Little)?,
        "dce" => set_endian(c, Endian::Dce)?,
        "endian" => match arg {
            Some("big") => set_endian(c, Endian::Big)?,
            Some("little") => set_endian(c, Endian::Little)?,
            Some("dce") => set_endian(c, Endian::Dce)?,
            _ => return Err("endian needs big or little".into()),
        },
        "string" => {
            // `string,hex` (Snort/Suricata) or `string hex` (byte_math).
            let base = match arg {
                Some(b) => parse_base(b)?,
                None => match next.map(parse_base) {
                    Some(Ok(b)) => {
                        *used_next = true;
                        b
                    }
                    _ => NumBase::Dec,
                },
            };
            c.string = Some(base);
        }
        "bitmask" => {
            let v = arg.ok_or("bitmask needs a value")?;
            c.bitmask = Some(uint(v, u32::MAX as u64)? as u32);
        }
        _ => return Ok(false),
    }
    Ok(true)
}

fn set_endian(c: &mut ByteCommon, e: Endian) -> Result<(), String> {
    if c.endian != Endian::Default && c.endian != e {
        return Err("conflicting endianness".into());
    }
    c.endian = e;
    Ok(())
}

fn check_nbytes(n: &Num, common: &ByteCommon, kw: &str) -> Result<(), String> {
    if let Num::Lit(v) = n {
        let max = if common.string.is_some() { 23 } else { 8 };
        // With `string`, 0 means "up to the end of the buffer" (Suricata accepts it).
        let min = if common.string.is_some() { 0 } else { 1 };
        if *v < min || *v > max {
            return Err(format!(
                "{kw}: cannot read {v} bytes (1..={max}{})",
                if common.string.is_some() {
                    " with string"
                } else {
                    " without string"
                }
            ));
        }
        if common.endian == Endian::Dce && !matches!(v, 1 | 2 | 4) {
            return Err(format!(
                "{kw}: with dce the size must be 1, 2 or 4, not {v}"
            ));
        }
    }
    Ok(())
}

/// `byte_test:nbytes,[!]op,value,offset[,flags...]`
pub fn byte_test(v: &str) -> Result<ByteTest, String> {
    let p = csv(v);
    if p.len() < 4 {
        return Err("byte_test needs nbytes, operator, value and offset".into());
    }
    let nbytes = num(p[0])?;
    let (negated, op_s) = match p[1].strip_prefix('!') {
        Some(r) => (true, r.trim()),
        None => (false, p[1]),
    };
    let op = match op_s {
        "<" => ByteOp::Lt,
        ">" => ByteOp::Gt,
        "=" => ByteOp::Eq,
        "<=" => ByteOp::Le,
        ">=" => ByteOp::Ge,
        "&" => ByteOp::And,
        "^" => ByteOp::Xor,
        "" if negated => ByteOp::Eq,
        _ => return Err(format!("byte_test: invalid operator '{}'", p[1])),
    };
    let value = num(p[2])?;
    let offset = num(p[3])?;
    let mut common = ByteCommon::default();
    let mut i = 4;
    while i < p.len() {
        let mut used = false;
        if !crate::byte_opts::repeated(&mut common, p[i])
            && !common_flag(&mut common, p[i], p.get(i + 1).copied(), &mut used)?
        {
            return Err(format!("byte_test: unknown option '{}'", p[i]));
        }
        i += if used { 2 } else { 1 };
    }
    check_nbytes(&nbytes, &common, "byte_test")?;
    Ok(ByteTest {
        nbytes,
        negated,
        op,
        value,
        offset,
        common,
    })
}

/// `byte_jump:nbytes,offset[,flags...]`
pub fn byte_jump(v: &str) -> Result<ByteJump, String> {
    let p = csv(v);
    if p.len() < 2 {
        return Err("byte_jump needs nbytes and offset".into());
    }
    let mut j = ByteJump {
        nbytes: num(p[0])?,
        offset: num(p[1])?,
        common: ByteCommon::default(),
        multiplier: None,
        align: false,
        from_beginning: false,
        from_end: false,
        post_offset: None,
    };
    let mut i = 2;
    while i < p.len() {
        let mut used = false;
        if !crate::byte_opts::repeated(&mut j.common, p[i])
            && !common_flag(&mut j.common, p[i], p.get(i + 1).copied(), &mut used)?
        {
            let mut w = p[i].split_whitespace();
            match (w.next(), w.next()) {
                (Some("multiplier"), Some(n)) => j.multiplier = Some(uint(n, 65535)? as u32),
                (Some("align"), None) => j.align = true,
                (Some("from_beginning"), None) => j.from_beginning = true,
                (Some("from_end"), None) => j.from_end = true,
                (Some("post_offset"), Some(n)) => j.post_offset = Some(int(n)?),
                _ => return Err(format!("byte_jump: unknown option '{}'", p[i])),
            }
        }
        i += if used { 2 } else { 1 };
    }
    if j.from_beginning && j.from_end {
        return Err("byte_jump: from_beginning and from_end together".into());
    }
    // Suricata 7.0 rejects these (its byte_jump has no bitmask).
    if j.common.bitmask.is_some() {
        return Err("byte_jump: bitmask is not a byte_jump option".into());
    }
    if j.multiplier == Some(0) {
        return Err("byte_jump: multiplier 0".into());
    }
    if matches!(j.offset, Num::Lit(o) if !(-65535..=65535).contains(&o)) {
        return Err(format!(
            "byte_jump: offset {} out of -65535..65535",
            j.offset
        ));
    }
    if j.post_offset
        .is_some_and(|p| !(-65535..=65535).contains(&p))
    {
        return Err("byte_jump: post_offset out of -65535..65535".into());
    }
    // byte_jump:0 is accepted by Suricata: jump by the offset alone.
    if j.nbytes != Num::Lit(0) {
        check_nbytes(&j.nbytes, &j.common, "byte_jump")?;
    }
    Ok(j)
}

/// `byte_extract:nbytes,offset,name[,flags...]`
pub fn byte_extract(v: &str) -> Result<ByteExtract, String> {
    let p = csv(v);
    if p.len() < 3 {
        return Err("byte_extract needs nbytes, offset and a variable name".into());
    }
    let nbytes = uint(p[0], 23)? as u32;
    let offset = int(p[1])?;
    if !is_var_name(p[2]) {
        return Err(format!("byte_extract: bad variable name '{}'", p[2]));
    }
    let mut e = ByteExtract {
        nbytes,
        offset,
        name: p[2].to_owned(),
        common: ByteCommon::default(),
        multiplier: None,
        align: None,
    };
    let mut i = 3;
    while i < p.len() {
        let mut used = false;
        if !common_flag(&mut e.common, p[i], p.get(i + 1).copied(), &mut used)? {
            let mut w = p[i].split_whitespace();
            match (w.next(), w.next()) {
                (Some("multiplier"), Some(n)) => e.multiplier = Some(uint(n, 65535)? as u32),
                (Some("align"), Some(n)) => {
                    let a = uint(n, 4)? as u32;
                    if a != 2 && a != 4 {
                        return Err("byte_extract: align must be 2 or 4".into());
                    }
                    e.align = Some(a);
                }
                _ => return Err(format!("byte_extract: unknown option '{}'", p[i])),
            }
        }
        i += if used { 2 } else { 1 };
    }
    check_nbytes(&Num::Lit(nbytes as i64), &e.common, "byte_extract")?;
    Ok(e)
}

/// `byte_math:bytes N, offset N, oper O, rvalue V, result NAME[, flags...]`
pub fn byte_math(v: &str) -> Result<ByteMath, String> {
    let p = csv(v);
    let mut nbytes = None;
    let mut offset = None;
    let mut oper = None;
    let mut rvalue = None;
    let mut result = None;
    let mut common = ByteCommon::default();
    let mut i = 0;
    while i < p.len() {
        let mut w = p[i].split_whitespace();
        let (k, a) = (w.next().unwrap_or(""), w.next());
        match (k, a) {
            ("bytes", Some(n)) => nbytes = Some(num(n)?),
            ("offset", Some(n)) => offset = Some(num(n)?),
            ("oper", Some(o)) => match MathOp::parse(o) {
                Some(op) => oper = Some(op),
                None => return Err(format!("byte_math: invalid operator '{o}'")),
            },
            ("rvalue", Some(n)) => rvalue = Some(num(n)?),
            ("result", Some(n)) if is_var_name(n) => result = Some(n.to_owned()),
            _ => {
                let mut used = false;
                if !common_flag(&mut common, p[i], p.get(i + 1).copied(), &mut used)? {
                    return Err(format!("byte_math: unknown option '{}'", p[i]));
                }
                if used {
                    i += 1;
                }
            }
        }
        i += 1;
    }
    let m = ByteMath {
        nbytes: nbytes.ok_or("byte_math: missing bytes")?,
        offset: offset.ok_or("byte_math: missing offset")?,
        oper: oper.ok_or("byte_math: missing oper")?,
        rvalue: rvalue.ok_or("byte_math: missing rvalue")?,
        result: result.ok_or("byte_math: missing result")?,
        common,
    };
    if let Num::Lit(n) = m.nbytes {
        if !(1..=10).contains(&n) {
            return Err(format!("byte_math: bytes must be 1..=10, not {n}"));
        }
    }
    if m.common.endian == Endian::Dce {
        // Suricata 7.0.10 refuses every byte_math with dce ("holds other invalid
        // modifiers": its default string base counts as one).
        return Err("byte_math: dce is refused by Suricata 7.0.10".into());
    }
    Ok(m)
}

/// `isdataat:[!]N[,relative][,rawbytes]`
pub fn isdataat(v: &str) -> Result<IsDataAt, String> {
    let p = csv(v);
    let (negated, first) = match p[0].strip_prefix('!') {
        Some(r) => (true, r.trim()),
        None => (false, p[0]),
    };
    let mut d = IsDataAt {
        negated,
        offset: num(first)?,
        relative: false,
        rawbytes: false,
    };
    for f in &p[1..] {
        match *f {
            "relative" => d.relative = true,
            "rawbytes" => d.rawbytes = true,
            _ => return Err(format!("isdataat: unknown option '{f}'")),
        }
    }
    Ok(d)
}

/// `flow:opt,opt,...`
pub fn flow(v: &str) -> Result<Flow, String> {
    let mut f = Flow::default();
    for o in csv(v) {
        let slot = match o {
            "to_server" | "from_client" => &mut f.to_server,
            "to_client" | "from_server" => &mut f.to_client,
            "established" => &mut f.established,
            "not_established" => &mut f.not_established,
            "stateless" => &mut f.stateless,
            "only_stream" => &mut f.only_stream,
            "no_stream" => &mut f.no_stream,
            "only_frag" => &mut f.only_frag,
            "no_frag" => &mut f.no_frag,
            _ => return Err(format!("unknown flow option '{o}'")),
        };
        if *slot {
            return Err(format!("flow option '{o}' given twice"));
        }
        *slot = true;
    }
    let bad = [
        (f.to_server && f.to_client, "to_server and to_client"),
        (
            f.established && f.not_established,
            "established and not_established",
        ),
        (
            f.stateless && (f.established || f.not_established),
            "stateless and (not_)established",
        ),
        (f.only_stream && f.no_stream, "only_stream and no_stream"),
        (f.only_frag && f.no_frag, "only_frag and no_frag"),
    ];
    for (b, what) in bad {
        if b {
            return Err(format!("contradictory flow options: {what}"));
        }
    }
    Ok(f)
}

fn valid_bit_name(n: &str) -> bool {
    !n.is_empty() && !n.contains(|c: char| c.is_whitespace() || c == ',' || c == '"')
}

/// `flowbits:cmd[,name]`
pub fn flowbits(v: &str) -> Result<Flowbits, String> {
    let (cmd_s, rest) = match v.split_once(',') {
        Some((c, r)) => (c.trim(), Some(r.trim())),
        None => (v.trim(), None),
    };
    let cmd = bits_cmd(cmd_s)?;
    if cmd == BitsCmd::NoAlert {
        if rest.is_some() {
            return Err("flowbits:noalert takes no name".into());
        }
        return Ok(Flowbits {
            cmd,
            names: vec![],
            all: false,
        });
    }
    let rest = rest.ok_or_else(|| format!("flowbits:{cmd_s} needs a name"))?;
    let all = rest.contains('&');
    if all && rest.contains('|') {
        return Err("flowbits: cannot mix '&' and '|'".into());
    }
    let names: Vec<String> = rest
        .split(['&', '|'])
        .map(|s| s.trim().to_owned())
        .collect();
    if names.iter().any(|n| !valid_bit_name(n)) {
        return Err(format!("flowbits: bad name '{rest}'"));
    }
    if names.len() > 1 && matches!(cmd, BitsCmd::Toggle) {
        return Err("flowbits: toggle takes a single name".into());
    }
    Ok(Flowbits { cmd, names, all })
}

/// Parses a `flowbits`/`xbits` command word.
pub fn bits_cmd(s: &str) -> Result<BitsCmd, String> {
    Ok(match s {
        "set" => BitsCmd::Set,
        "unset" => BitsCmd::Unset,
        "toggle" => BitsCmd::Toggle,
        "isset" => BitsCmd::IsSet,
        "isnotset" => BitsCmd::IsNotSet,
        "noalert" => BitsCmd::NoAlert,
        _ => return Err(format!("unknown flowbits command '{s}'")),
    })
}

/// `threshold:type T, track K, count N, seconds S` (`detection_filter` when `typed` is
/// false: no type).
pub fn threshold(v: &str, typed: bool) -> Result<Threshold, String> {
    let mut kind = None;
    let mut track = None;
    let mut count = None;
    let mut seconds = None;
    let mut multiplier = None;
    for part in csv(v) {
        let mut w = part.split_whitespace();
        let (k, a) = (w.next().unwrap_or(""), w.next());
        let a = a.ok_or_else(|| format!("'{part}' needs a value"))?;
        match k {
            "type" if typed => {
                kind = Some(
                    ThresholdType::parse(a)
                        .ok_or_else(|| format!("unknown threshold type '{a}'"))?,
                )
            }
            "track" => track = Some(Track::parse(a).ok_or_else(|| format!("unknown track '{a}'"))?),
            "count" => count = Some(uint(a, u32::MAX as u64)? as u32),
            "seconds" => seconds = Some(uint(a, u32::MAX as u64)? as u32),
            "multiplier" if typed => multiplier = Some(uint(a, u32::MAX as u64)? as u32),
            _ => return Err(format!("unknown option '{part}'")),
        }
    }
    if typed && kind.is_none() {
        return Err("missing type".into());
    }
    let backoff = kind == Some(ThresholdType::Backoff);
    let t = Threshold {
        kind,
        track: track.ok_or("missing track")?,
        count: count.ok_or("missing count")?,
        seconds: if backoff {
            seconds.unwrap_or(0)
        } else {
            seconds.ok_or("missing seconds")?
        },
        multiplier,
    };
    if backoff && t.multiplier.is_none() {
        return Err("backoff needs a multiplier".into());
    }
    if t.count == 0 && !matches!(kind, Some(ThresholdType::Backoff)) {
        return Err("count must be at least 1".into());
    }
    Ok(t)
}

/// `flags:[mod]FLAGS[,mask]`
pub fn tcp_flags(v: &str) -> Result<TcpFlags, String> {
    let (main, mask) = match v.split_once(',') {
        Some((a, b)) => (a.trim(), Some(b.trim())),
        None => (v.trim(), None),
    };
    let mut modifier = None;
    let mut set = 0u8;
    let mut any = false;
    for c in main.chars() {
        if let Some(m) = FlagsModifier::from_char(c) {
            if modifier.is_some() {
                return Err("flags: more than one modifier".into());
            }
            modifier = Some(m);
            continue;
        }
        match c {
            'F' | 'S' | 'R' | 'P' | 'A' | 'U' | 'C' | 'E' | '0' | '1' | '2' | 'f' | 's' | 'r'
            | 'p' | 'a' | 'u' | 'c' | 'e' => {
                set |= TcpFlags::letter_bit(c).unwrap_or(0);
                any = true;
            }
            ' ' => {}
            _ => return Err(format!("flags: invalid flag '{c}'")),
        }
    }
    if !any {
        return Err("flags: no flags".into());
    }
    let ignore = match mask {
        Some(m) => {
            if m.is_empty()
                || !m
                    .chars()
                    .all(|c| "FSRPAUCE12".contains(c.to_ascii_uppercase()))
            {
                return Err(format!("flags: invalid mask '{m}'"));
            }
            m.chars()
                .filter_map(TcpFlags::letter_bit)
                .fold(0, |a, b| a | b)
        }
        None => 0,
    };
    Ok(TcpFlags {
        modifier: modifier.unwrap_or_default(),
        set,
        ignore,
    })
}

/// IP protocol names accepted by `ip_proto`.
pub fn ip_proto_number(s: &str) -> Option<u8> {
    Some(match s.to_ascii_lowercase().as_str() {
        "hopopt" => 0,
        "icmp" => 1,
        "igmp" => 2,
        "ipip" | "ipv4" => 4,
        "tcp" => 6,
        "udp" => 17,
        "ipv6" => 41,
        "ipv6-route" => 43,
        "ipv6-frag" => 44,
        "rsvp" => 46,
        "gre" => 47,
        "esp" => 50,
        "ah" => 51,
        "ipv6-icmp" | "icmpv6" => 58,
        "ipv6-nonxt" => 59,
        "ipv6-opts" => 60,
        "eigrp" => 88,
        "ospf" | "ospfigp" => 89,
        "pim" => 103,
        "vrrp" => 112,
        "l2tp" => 115,
        "sctp" => 132,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The forms Suricata 7.0.10 takes and refuses in its unsigned-integer syntax and
    /// for plain numbers (checked with `suricata -T`; found by the differential
    /// harness's `dhcp`/`snmp`/`krb5` families).
    #[test]
    fn suricata_integer_syntax() {
        let m32 = u64::from(u32::MAX);
        for ok in [
            "5", "=5", "!5", "!=5", "<1", ">=1", "<=0", "0-2", "5<>7", " 3 ",
        ] {
            assert!(suricata_uint(ok, m32).is_ok(), "{ok}");
        }
        for bad in [
            ">=0",
            "<0",
            "<=4294967295",
            ">4294967295",
            "4294967296",
            "1-2",
            "0-1",
        ] {
            assert!(suricata_uint(bad, m32).is_err(), "{bad}");
        }
        for bad in ["0x10", "+3", "!5-7", "-1", "=5-7"] {
            assert!(suricata_uint(bad, m32).is_err(), "{bad}");
        }
        assert_eq!(
            suricata_uint(">=18446744073709551615", u64::MAX).unwrap(),
            IntCmp::Ge(u64::MAX)
        );
        assert!(suricata_uint("<=18446744073709551615", u64::MAX).is_err());
        assert!(suricata_uint("18446744073709551616", u64::MAX).is_err());
        assert_eq!(decimal(" 10", 255), Ok(10));
        for bad in ["<11", "!10", "+10", "0x0a", "256", "-1", ""] {
            assert!(decimal(bad, 255).is_err(), "{bad}");
        }
    }

    #[test]
    fn content_escapes_and_hex() {
        assert_eq!(
            content_value("\"a|41 42|b\"").unwrap(),
            (false, b"aABb".to_vec())
        );
        assert_eq!(
            content_value("!\"a\\;\\\"\\\\\\:\"").unwrap(),
            (true, b"a;\"\\:".to_vec())
        );
        assert_eq!(content_value("\"|4142 43|\"").unwrap().1, b"ABC");
        assert_eq!(content_value("\"|0d0a|\"").unwrap().1, b"\r\n");
        for bad in [
            "\"\"",
            "\"|4|\"",
            "\"|41\"",
            "\"|4 1|\"",
            "\"|zz|\"",
            "\"a\\x\"",
            "abc",
            "\"a\"b\"",
            "\"a\\\"",
        ] {
            assert!(content_value(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn numbers_and_comparisons() {
        assert_eq!(int("0x10").unwrap(), 16);
        assert_eq!(int("-5").unwrap(), -5);
        assert!(int("x").is_err());
        assert_eq!(num("var1").unwrap(), Num::Var("var1".into()));
        assert_eq!(int_cmp("<10", 65535).unwrap(), IntCmp::Lt(10));
        assert_eq!(int_cmp(">= 3", 65535).unwrap(), IntCmp::Ge(3));
        assert_eq!(int_cmp("3<>9", 65535).unwrap(), IntCmp::Range(3, 9));
        assert_eq!(int_cmp("3-9", 65535).unwrap(), IntCmp::Range(3, 9));
        assert_eq!(int_cmp("!5", 65535).unwrap(), IntCmp::Ne(5));
        assert_eq!(int_cmp("=5", 65535).unwrap(), IntCmp::Eq(5));
        assert!(int_cmp("9<>3", 65535).is_err());
        assert!(int_cmp("300", 255).is_err());
        assert!(IntCmp::Range(3, 9).matches(4) && !IntCmp::Range(3, 9).matches(3));
        assert_eq!(cmp_max(IntCmp::Lt(10)), Some(9));
    }

    #[test]
    fn byte_keywords() {
        let t = byte_test("2, !&, 0x8000, 0, relative, little, bitmask 0x0ff0").unwrap();
        assert!(t.negated && t.op == ByteOp::And && t.common.relative);
        assert_eq!(t.common.endian, Endian::Little);
        assert_eq!(t.common.bitmask, Some(0xff0));
        let t = byte_test("4,>,1000,0,string,dec").unwrap();
        assert_eq!(t.common.string, Some(NumBase::Dec));
        assert!(byte_test("4,=>,1,0").is_err());
        assert!(byte_test("9,=,1,0").is_err());
        assert!(byte_test("3,=,1,0,dce").is_err());
        assert!(byte_test("4,=,1").is_err());
        let j = byte_jump("4,0,relative,multiplier 2,align,post_offset -4,from_beginning").unwrap();
        assert!(
            j.align && j.from_beginning && j.multiplier == Some(2) && j.post_offset == Some(-4)
        );
        assert!(byte_jump("4,0,bogus").is_err());
        // As Suricata 7.0.10 rejects them.
        assert!(byte_jump("2,0,bitmask 0xff").is_err());
        assert!(byte_jump("2,0,multiplier 0").is_err());
        assert!(byte_jump("2,65536,relative").is_err());
        assert!(byte_jump("2,-65536").is_err());
        assert!(byte_jump("2,-65535,relative").is_ok());
        assert!(byte_jump("2,0,post_offset 65536").is_err());
        assert!(byte_jump("2,0,post_offset -65536").is_err());
        assert!(byte_jump("2,0,post_offset -65535").is_ok());
        let e = byte_extract("2,0,len,relative,little").unwrap();
        assert_eq!(e.name, "len");
        assert!(byte_extract("2,0,1bad").is_err());
        let m =
            byte_math("bytes 2, offset 0, oper +, rvalue 10, result x, relative, endian little")
                .unwrap();
        assert_eq!(m.oper, MathOp::Add);
        assert!(byte_math("bytes 2, offset 0, oper %, rvalue 10, result x").is_err());
        assert!(byte_math("bytes 2, offset 0, oper +, rvalue 10").is_err());
        let d = isdataat("!1,relative").unwrap();
        assert!(d.negated && d.relative);
    }

    #[test]
    fn flow_flowbits_threshold_flags() {
        let f = flow("established, from_client").unwrap();
        assert!(f.established && f.to_server);
        assert!(flow("to_server,to_client").is_err());
        assert!(flow("established,not_established").is_err());
        assert!(flow("only_stream,no_stream").is_err());
        assert!(flow("sideways").is_err());
        assert!(flow("established,established").is_err());
        let b = flowbits("isset,a|b").unwrap();
        assert_eq!(b.names, ["a", "b"]);
        assert!(!b.all);
        assert_eq!(flowbits("noalert").unwrap().cmd, BitsCmd::NoAlert);
        assert!(flowbits("set").is_err());
        assert!(flowbits("frob,x").is_err());
        let t = threshold("type limit, track by_src, count 1, seconds 60", true).unwrap();
        assert_eq!(t.kind, Some(ThresholdType::Limit));
        assert!(threshold("type limit, count 1, seconds 60", true).is_err());
        assert!(threshold("track by_dst, count 5, seconds 60", false).is_ok());
        assert!(threshold("type limit, track by_src, count 1, seconds 60", false).is_err());
        let fl = tcp_flags("S,CE").unwrap();
        assert_eq!(fl.set, 0x02);
        assert_eq!(fl.ignore, 0x80 | 0x40);
        assert_eq!(tcp_flags("+SA").unwrap().modifier, FlagsModifier::All);
        assert_eq!(tcp_flags("sa").unwrap().set, 0x12);
        assert!(tcp_flags("X").is_err());
        assert_eq!(ip_proto_number("TCP"), Some(6));
    }
}
