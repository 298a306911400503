//! FTP on port 21 with its data connections: the greeting, USER/PASS, then a `PORT`
//! (active: the server connects from port 20 to the port named; the address the
//! client's own or another one, a bounce; lowercase now and then; a number past 255
//! now and then) or `PASV` (passive: the client connects to the port of the `227`
//! reply), `EPSV` with its `229` reply; then `RETR` (the server sends the file) or
//! `STOR` (the client sends it) on the data connection opened after the `150` reply,
//! the file empty now and then or the data connection never opened, `226` at the end.
//! The rule takes `ftpbounce` (alone, after `content:"PORT"`, on `ftp` or `tcp`) or
//! `ftpdata_command:retr|stor` on the data connection (the command itself or the other
//! one; `list`, which Suricata refuses, now and then).

use super::bufcond::Cond;
use super::session::Tcp;
use super::Flow;
use crate::case::{Spec, L4};
use crate::rulegen::{base, Family, Gen};
use std::net::IpAddr;

/// FTP control and data connections.
pub const FTP: Family = Family {
    name: "ftp",
    keywords: &["ftpbounce", "ftpdata_command", "content", "nocase", "flow"],
    weight: 1,
    make: ftp,
};

/// The `h1,h2,h3,h4` text of an IPv4 address (of the client for IPv6 flows: the
/// documentation address 192.0.2.1).
fn commas(ip: IpAddr) -> String {
    match ip {
        IpAddr::V4(a) => a.octets().map(|o| o.to_string()).join(","),
        IpAddr::V6(_) => "192,0,2,1".into(),
    }
}

fn ftp(g: &mut Gen<'_>) -> Spec {
    let intent = g.intent();
    let v6 = g.chance(0.15);
    let mut f = Flow::new(g.index, v6, 21);
    let (client, server) = (f.client, f.server);
    let mut t = Tcp::open(&mut f);
    let first = b"USER dt\r\n".to_vec();
    t.send(g, &mut f, false, b"220 dt FTP server ready\r\n");
    t.send(g, &mut f, true, &first);
    t.send(g, &mut f, false, b"331 Password required\r\n");
    t.send(g, &mut f, true, b"PASS dt\r\n");
    t.send(g, &mut f, false, b"230 Logged in\r\n");
    let data_port = g.pick(&[1024u16, 40_001, 65_535, 20_480]);
    let (p1, p2) = (data_port >> 8, data_port & 0xFF);
    let mode = g.pick(&["port", "port", "pasv", "epsv"]);
    let mut bounce = false;
    match mode {
        "port" => {
            bounce = g.chance(0.5);
            let host = if bounce {
                g.pick(&["192,168,7,9", "0,0,0,0", "10,255,255,255"])
                    .to_string()
            } else {
                commas(client)
            };
            let (a, b) = if g.chance(0.1) {
                (256u16, p2)
            } else {
                (p1, p2)
            };
            let verb = if g.chance(0.2) { "port" } else { "PORT" };
            t.send(
                g,
                &mut f,
                true,
                format!("{verb} {host},{a},{b}\r\n").as_bytes(),
            );
            t.send(g, &mut f, false, b"200 PORT command successful\r\n");
        }
        "pasv" => {
            t.send(g, &mut f, true, b"PASV\r\n");
            let host = commas(server);
            t.send(
                g,
                &mut f,
                false,
                format!("227 Entering Passive Mode ({host},{p1},{p2}).\r\n").as_bytes(),
            );
        }
        _ => {
            t.send(g, &mut f, true, b"EPSV\r\n");
            t.send(
                g,
                &mut f,
                false,
                format!("229 Entering Extended Passive Mode (|||{data_port}|)\r\n").as_bytes(),
            );
        }
    }
    let retr = g.chance(0.5);
    let file = format!("dt{}.bin", g.index);
    let cmd = if retr { "RETR" } else { "STOR" };
    t.send(g, &mut f, true, format!("{cmd} {file}\r\n").as_bytes());
    t.send(
        g,
        &mut f,
        false,
        b"150 Opening BINARY mode data connection\r\n",
    );
    let opened = g.chance(0.9);
    if opened {
        // The data connection: from the server's port 20 to the client (active), from
        // the client to the server's data port (passive).
        let mut d = f.clone();
        d.frames.clear();
        if mode == "port" {
            d.client = server;
            d.server = client;
            d.sport = 20;
            d.dport = data_port;
        } else {
            d.sport = f.sport.wrapping_add(1);
            d.dport = data_port;
        }
        let sender_is_opener = (mode == "port") == retr;
        let body = if g.chance(0.15) {
            Vec::new()
        } else {
            let n = g.size(1, 3000);
            g.filler(n)
        };
        let mut dt = Tcp::open(&mut d);
        for chunk in body.chunks(1400) {
            dt.send(g, &mut d, sender_is_opener, chunk);
        }
        dt.close(&mut d);
        f.frames.extend(d.frames);
    }
    t.send(g, &mut f, false, b"226 Transfer complete\r\n");
    t.send(g, &mut f, true, b"QUIT\r\n");
    t.send(g, &mut f, false, b"221 Goodbye\r\n");
    t.close(&mut f);
    let header = [
        format!("[{client},{server}]"),
        "any".to_string(),
        format!("[{client},{server}]"),
        "any".to_string(),
    ];
    let (name, cond, proto): (String, Cond, &'static str) = if g.chance(0.5) {
        let pre = match g.size(0, 2) {
            0 => "",
            1 => "content:\"PORT\"; nocase; ",
            _ => "flow:to_server; content:\"PORT \"; ",
        };
        // A bounce case hits as written; its miss twin is the same rule (the traffic
        // decides), so a non-bounce case is a miss either way.
        let c = format!("{pre}ftpbounce;");
        (
            format!("bounce-{mode}-{}", if bounce { "other" } else { "own" }),
            Cond {
                hit: c.clone(),
                miss: c,
            },
            g.pick(&["ftp", "tcp"]),
        )
    } else {
        let (h, m) = if retr {
            ("retr", "stor")
        } else {
            ("stor", "retr")
        };
        let m = if g.chance(0.08) { "list" } else { m };
        (
            format!("data-{mode}-{h}{}", if opened { "" } else { "-unopened" }),
            Cond {
                hit: format!("ftpdata_command:{h};"),
                miss: format!("ftpdata_command:{m};"),
            },
            g.pick(&["ftp-data", "ftp-data", "tcp"]),
        )
    };
    let texts = super::bufcond::texts(g, intent, std::iter::once(&cond));
    let mut s = base(&name, intent, v6, L4::Tcp, proto);
    s.header = Some(header);
    s.tweaks.dport = Some(21);
    s.opts = texts.join(" ");
    s.payload = first;
    s.script = Some(f.frames);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_parse_mostly_and_flows_are_written() {
        let (cases, ok) = crate::flows::sample_cases(200, ftp);
        assert!(ok >= 180, "{ok} of 200 parse");
        assert!(cases.iter().all(|c| c.frames(0).len() >= 20));
    }
}
