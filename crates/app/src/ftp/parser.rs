//! FTP control-channel syntax (RFC 959, RFC 2428): command lines, reply lines, and the
//! addresses of `PORT`/`EPRT` commands and `227`/`229` replies. Zero-copy: each
//! function takes one line (without its end of line) and borrows from it.

/// The commands Suricata's FTP parser knows (RFC 959, 2228, 2389, 2428, 3659 and the
/// `X` variants of RFC 775). A line that starts with none of them makes no transaction.
pub const COMMANDS: &[&str] = &[
    "ABOR", "ACCT", "ADAT", "ALLO", "APPE", "AUTH", "CCC", "CDUP", "CONF", "CWD", "DELE", "ENC",
    "EPRT", "EPSV", "FEAT", "HELP", "LANG", "LIST", "LPRT", "LPSV", "MDTM", "MIC", "MKD", "MLSD",
    "MLST", "MODE", "NLST", "NOOP", "OPTS", "PASS", "PASV", "PBSZ", "PORT", "PROT", "PWD", "QUIT",
    "REIN", "REST", "RETR", "RMD", "RNFR", "RNTO", "SITE", "SIZE", "SMNT", "STAT", "STOR", "STOU",
    "STRU", "SYST", "TYPE", "USER", "XCUP", "XCWD", "XMKD", "XPWD", "XRMD",
];

/// A client command line: the command it starts with and what follows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Command<'a> {
    /// The command (upper case, from [`COMMANDS`]).
    pub name: &'static str,
    /// The bytes after the command and the one separator after it; `None` when the
    /// line has nothing after the command.
    pub data: Option<&'a [u8]>,
}

/// The command line `line` starts with (case-insensitive; as Suricata matches a prefix,
/// `USERHOST x` is `USER` with data `OST x`); `None` for a line that starts with no
/// known command.
pub fn command(line: &[u8]) -> Option<Command<'_>> {
    let name = COMMANDS
        .iter()
        .filter(|c| line.len() >= c.len() && line[..c.len()].eq_ignore_ascii_case(c.as_bytes()))
        .max_by_key(|c| c.len())?;
    let data = line.get(name.len() + 1..).filter(|d| !d.is_empty());
    Some(Command { name, data })
}

/// A server reply line: its 3-digit code, if it starts with one followed by a space, a
/// dash or the end of the line, and its text (after the code and separator, or the whole
/// line without a code).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reply<'a> {
    /// The completion code.
    pub code: Option<[u8; 3]>,
    /// The text.
    pub text: &'a [u8],
}

impl Reply<'_> {
    /// A positive preliminary reply (`1yz`): the command's final reply is still to come.
    pub fn preliminary(&self) -> bool {
        self.code.is_some_and(|c| c[0] == b'1')
    }

    /// The code as a number.
    pub fn number(&self) -> Option<u16> {
        self.code.map(|c| {
            c.iter()
                .fold(0u16, |n, d| n * 10 + u16::from(d.wrapping_sub(b'0')))
        })
    }
}

/// Splits reply line `line` into code and text.
pub fn reply(line: &[u8]) -> Reply<'_> {
    let coded = line.len() >= 3
        && line[..3].iter().all(u8::is_ascii_digit)
        && matches!(line.get(3), None | Some(b' ' | b'-'));
    if coded {
        Reply {
            code: Some([line[0], line[1], line[2]]),
            text: line.get(4..).unwrap_or(&[]),
        }
    } else {
        Reply {
            code: None,
            text: line,
        }
    }
}

/// The port of `h1,h2,h3,h4,p1,p2` (a `PORT` argument or a `227` reply's numbers).
fn comma_port(s: &[u8]) -> Option<u16> {
    let mut n = [0u16; 6];
    let mut parts = s.split(|&b| b == b',');
    for v in &mut n {
        let p = parts.next()?.trim_ascii();
        if p.is_empty() || p.len() > 3 || !p.iter().all(u8::is_ascii_digit) {
            return None;
        }
        *v = p.iter().fold(0, |a, d| a * 10 + u16::from(d - b'0'));
        if *v > 255 {
            return None;
        }
    }
    if parts.next().is_some() {
        return None;
    }
    Some((n[4] << 8) | n[5])
}

/// The IPv4 address and port of a `PORT` command's data (`h1,h2,h3,h4,p1,p2`).
pub fn port_command(data: &[u8]) -> Option<([u8; 4], u16)> {
    let port = comma_port(data)?;
    let mut ip = [0u8; 4];
    for (o, p) in ip.iter_mut().zip(data.split(|&b| b == b',')) {
        *o = std::str::from_utf8(p.trim_ascii()).ok()?.parse().ok()?;
    }
    Some((ip, port))
}

/// The IPv4 address of a `PORT` command's data: its first four numbers, whatever
/// follows them (Suricata's `ftpbounce` looks at the address only).
pub fn port_address(data: &[u8]) -> Option<[u8; 4]> {
    let mut ip = [0u8; 4];
    let mut parts = data.split(|&b| b == b',');
    for o in ip.iter_mut() {
        *o = std::str::from_utf8(parts.next()?.trim_ascii())
            .ok()?
            .parse()
            .ok()?;
    }
    Some(ip)
}

/// The address and port of an `EPRT` command's data (`|1|132.235.1.2|6275|`, RFC
/// 2428): the address as text (IPv4 or IPv6) and the port.
pub fn eprt_command(data: &[u8]) -> Option<(std::net::IpAddr, u16)> {
    let d = *data.first()?;
    let mut f = data[1..].split(|&b| b == d);
    let af = f.next()?;
    let addr = std::str::from_utf8(f.next()?).ok()?;
    let port = std::str::from_utf8(f.next()?).ok()?.parse().ok()?;
    let ip = match af {
        b"1" => std::net::IpAddr::V4(addr.parse().ok()?),
        b"2" => std::net::IpAddr::V6(addr.parse().ok()?),
        _ => return None,
    };
    Some((ip, port))
}

/// The port of a `227 Entering Passive Mode (h1,h2,h3,h4,p1,p2)` reply text: the six
/// numbers after its first `(` (or, without parentheses, its first digits).
pub fn pasv_reply(text: &[u8]) -> Option<u16> {
    let start = match text.iter().position(|&b| b == b'(') {
        Some(i) => i + 1,
        None => text.iter().position(u8::is_ascii_digit)?,
    };
    let rest = &text[start..];
    let end = rest
        .iter()
        .position(|&b| !(b.is_ascii_digit() || b == b',' || b == b' '))
        .unwrap_or(rest.len());
    comma_port(&rest[..end])
}

/// The port of a `229 Entering Extended Passive Mode (|||6446|)` reply text.
pub fn epsv_reply(text: &[u8]) -> Option<u16> {
    let open = text.iter().position(|&b| b == b'(')?;
    let inner = &text[open + 1..];
    let d = *inner.first()?;
    let mut f = inner[1..].split(|&b| b == d);
    f.next()?;
    f.next()?;
    let port = f.next()?;
    std::str::from_utf8(port).ok()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn commands_as_suricata_matches_them() {
        // Lines of sv-ether.pcap's flows 192.168.1.2:2720 -> 147.234.1.253:21 and
        // 172.16.1.10:1049 -> 69.64.34.124:6667.
        assert_eq!(
            command(b"USER anonymous"),
            Some(Command {
                name: "USER",
                data: Some(b"anonymous")
            })
        );
        assert_eq!(command(b"PASV").unwrap().data, None);
        assert_eq!(port_address(b"0,0,0,0,256,65"), Some([0, 0, 0, 0]));
        assert_eq!(port_command(b"0,0,0,0,256,65"), None);
        assert_eq!(port_address(b"10,1,2"), None);
        assert_eq!(command(b"retr SiteStat.xml").unwrap().name, "RETR");
        let c = command(b"USERHOST damn-0262937047").unwrap();
        assert_eq!(
            (c.name, c.data),
            ("USER", Some(&b"OST damn-0262937047"[..]))
        );
        assert_eq!(command(b"NICK damn-0262937047"), None);
        assert_eq!(command(b"XPWD").unwrap().name, "XPWD");
        assert_eq!(command(b"PWD").unwrap().name, "PWD");
        assert_eq!(command(b""), None);
    }

    #[test]
    fn replies() {
        let r = reply(b"227 Entering Passive Mode (147,234,1,253,230,119).");
        assert_eq!(r.code, Some(*b"227"));
        assert_eq!(r.number(), Some(227));
        assert_eq!(pasv_reply(r.text), Some(58999));
        let r = reply(b"230-Welcome To ECI FTP Server");
        assert_eq!(
            (r.code, r.text),
            (Some(*b"230"), &b"Welcome To ECI FTP Server"[..])
        );
        let r = reply(b" /pub\t\t-> Public Folder.");
        assert_eq!(r.code, None);
        assert!(reply(b"150 Here comes the directory listing.").preliminary());
        assert_eq!(reply(b"+OK bye").code, None);
        assert_eq!(reply(b"226").code, Some(*b"226"));
        assert_eq!(reply(b"2261").code, None);
    }

    #[test]
    fn data_addresses() {
        assert_eq!(
            port_command(b"192,168,0,13,234,10"),
            Some(([192, 168, 0, 13], 59914))
        );
        assert_eq!(port_command(b"192,168,0,13,234"), None);
        assert_eq!(port_command(b"192,168,0,13,234,256"), None);
        assert_eq!(
            eprt_command(b"|1|132.235.1.2|6275|"),
            Some(("132.235.1.2".parse().unwrap(), 6275))
        );
        assert_eq!(
            eprt_command(b"|2|fd00:10:16:1::3|40001|"),
            Some(("fd00:10:16:1::3".parse().unwrap(), 40001))
        );
        assert_eq!(eprt_command(b"|3|x|1|"), None);
        assert_eq!(
            epsv_reply(b"Entering Extended Passive Mode (|||6446|)"),
            Some(6446)
        );
        assert_eq!(
            pasv_reply(b"Entering Passive Mode (127,0,0,1,185,13)."),
            Some(47373)
        );
        assert_eq!(
            pasv_reply(b"Entering Passive Mode 10,0,0,1,4,1"),
            Some(1025)
        );
        assert_eq!(epsv_reply(b"nothing"), None);
    }

    proptest! {
        #[test]
        fn arbitrary_lines_never_panic(line in proptest::collection::vec(any::<u8>(), 0..64)) {
            let _ = command(&line);
            let r = reply(&line);
            let _ = r.number();
            let _ = port_command(&line);
            let _ = eprt_command(&line);
            let _ = pasv_reply(&line);
            let _ = epsv_reply(&line);
        }
    }
}
