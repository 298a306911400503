//! The file keywords over HTTP/1: a file downloaded (its name from the URI's last
//! segment or from a `Content-Disposition` header; the body with a Content-Length,
//! chunked, or cut short by the connection's end) or uploaded in a multipart/form-data
//! POST, its bytes one of a few real types (PNG, GIF, PDF, ZIP, ELF, gzip, plain text)
//! and 30 to 3,000 bytes long. One or two conditions: `filename` and `fileext` (plain,
//! negated, another case), `file.name` with a content, `filesize` (exact, `<`, `>`,
//! `<=`, `>=`, a range `A<>B` or `A-B`, with a unit), `filemd5`/`filesha1`/`filesha256`
//! with a list file written next to the rules (the file's hash among others, or only
//! others; negated), `filemagic` (a word of the type, its case changed, negated),
//! `file.data` with a content, `isdataat` (absolute, negated, relative), and `filestore`
//! with every direction and scope next to a condition.

use md5::Digest as _;

use super::{spoil, Flow};
use crate::case::{Intent, Spec, L4};
use crate::rulegen::{base, content_text, Family, Gen};
use wire::tcp_flags::{ACK, PSH};

/// File keywords over HTTP/1.
pub const FILEKW: Family = Family {
    name: "filekw",
    keywords: &[
        "filename",
        "fileext",
        "file.name",
        "filesize",
        "filemd5",
        "filesha1",
        "filesha256",
        "filemagic",
        "filestore",
        "file.data",
        "file_data",
        "isdataat",
        "content",
        "nocase",
        "flow",
    ],
    weight: 4,
    make: filekw,
};

/// A file of a real type: (extension, bytes, a word libmagic prints for it).
pub(super) fn file_of(g: &mut Gen<'_>, n: usize) -> (&'static str, Vec<u8>, &'static str) {
    let kind = g.size(0, 6);
    let mut b: Vec<u8> = match kind {
        0 => {
            let mut v = b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR".to_vec();
            v.extend_from_slice(&[
                0, 0, 0, 32, 0, 0, 0, 16, 8, 2, 0, 0, 0, 0x12, 0x34, 0x56, 0x78,
            ]);
            v
        }
        1 => {
            let mut v = b"GIF89a".to_vec();
            v.extend_from_slice(&[16, 0, 16, 0, 0x80, 0, 0]);
            v
        }
        2 => b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n".to_vec(),
        3 => {
            let mut v = b"PK\x03\x04\x14\x00\x00\x00\x08\x00".to_vec();
            v.extend_from_slice(&[0; 16]);
            v.extend_from_slice(&[5, 0, 0, 0]);
            v.extend_from_slice(b"a.txt");
            v
        }
        4 => {
            let mut v = b"\x7fELF\x02\x01\x01\x00".to_vec();
            v.extend_from_slice(&[0; 8]);
            v.extend_from_slice(&[2, 0, 0x3e, 0, 1, 0, 0, 0]);
            v.extend_from_slice(&[0; 40]);
            v.extend_from_slice(&[64, 0, 56, 0, 0, 0, 64, 0, 0, 0, 0, 0]);
            v
        }
        5 => b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03".to_vec(),
        _ => b"Hello this is plain text\n".to_vec(),
    };
    let (ext, word) = [
        ("png", "PNG image"),
        ("gif", "GIF image"),
        ("pdf", "PDF document"),
        ("zip", "Zip archive"),
        ("elf", "ELF"),
        ("gz", "gzip compressed"),
        ("txt", "ASCII text"),
    ][kind];
    while b.len() < n {
        let m = g.size(1, 12);
        if kind == 6 {
            b.extend(g.filler(m));
            b.push(b' ');
        } else {
            b.extend(g.filler(m));
        }
    }
    if kind == 6 {
        b.push(b'\n');
    }
    (ext, b, word)
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// A list file of hashes of `len` hex digits: `own` (when given) among two to four
/// random ones.
fn hash_list(g: &mut Gen<'_>, own: Option<&str>, len: usize) -> Vec<u8> {
    let mut lines: Vec<String> = (0..g.size(2, 4))
        .map(|_| {
            (0..len)
                .map(|_| char::from(b"0123456789abcdef"[g.size(0, 15)]))
                .collect()
        })
        .collect();
    if let Some(h) = own {
        let at = g.size(0, lines.len());
        let h = if g.chance(0.2) {
            h.to_uppercase()
        } else {
            h.to_string()
        };
        lines.insert(at, h);
    }
    let mut t = lines.join("\n");
    t.push('\n');
    t.into_bytes()
}

/// Files a rule names: (file name, contents).
type SideFiles = Vec<(String, Vec<u8>)>;

/// The rule condition on the file (hit, miss), its kind and the side files it names.
fn file_cond(
    g: &mut Gen<'_>,
    name: &str,
    ext: &str,
    data: &[u8],
    word: &str,
    size: usize,
) -> (String, String, &'static str, SideFiles) {
    let idx = g.index;
    let kind = g.pick(&[
        "filename",
        "fileext",
        "file.name",
        "filesize",
        "filesize",
        "hash",
        "hash",
        "filemagic",
        "file.data",
        "isdataat",
    ]);
    let mut files = Vec::new();
    let (h, m) = match kind {
        "filename" => {
            let v = match g.size(0, 2) {
                0 => name.to_string(),
                1 => name[..name.len().min(4)].to_string(),
                _ => name.to_uppercase(),
            };
            let neg = g.chance(0.2);
            let (a, b) = (
                v.clone(),
                String::from_utf8_lossy(&spoil(v.as_bytes())).into_owned(),
            );
            if neg {
                (format!("filename:!\"{b}\";"), format!("filename:!\"{a}\";"))
            } else {
                (format!("filename:\"{a}\";"), format!("filename:\"{b}\";"))
            }
        }
        "fileext" => {
            let v = if g.chance(0.3) {
                ext.to_uppercase()
            } else {
                ext.to_string()
            };
            let other = if ext == "txt" { "exe" } else { "txt" };
            if g.chance(0.2) {
                (
                    format!("fileext:!\"{other}\";"),
                    format!("fileext:!\"{v}\";"),
                )
            } else {
                (format!("fileext:\"{v}\";"), format!("fileext:\"{other}\";"))
            }
        }
        "file.name" => {
            let v = name.as_bytes();
            let (piece, m) = match g.size(0, 2) {
                0 => (v.to_vec(), " startswith; endswith;"),
                1 => (v[v.len() - ext.len()..].to_vec(), " endswith;"),
                _ => (v[..v.len().min(3)].to_vec(), ""),
            };
            let t = |c: &[u8]| format!("file.name; content:\"{}\";{m}", content_text(c));
            (t(&piece), t(&spoil(&piece)))
        }
        "filesize" => {
            let n = size as u64;
            match g.size(0, 6) {
                0 => (format!("filesize:{n};"), format!("filesize:{};", n + 1)),
                1 => (format!("filesize:<{};", n + 1), format!("filesize:<{n};")),
                2 => (format!("filesize:>{};", n - 1), format!("filesize:>{n};")),
                3 => (
                    format!("filesize:{}<>{};", n - 1, n + 1),
                    format!("filesize:{}<>{};", n, n + 5),
                ),
                4 => (
                    format!("filesize:{}-{};", n.saturating_sub(3), n + 3),
                    format!("filesize:{}-{};", n + 1, n + 9),
                ),
                5 => (format!("filesize:>={n};"), format!("filesize:<={};", n - 1)),
                _ => {
                    // A unit: whole kilobytes around the size.
                    let kb = n / 1024;
                    (
                        format!("filesize:<{}KB;", kb + 1),
                        format!("filesize:>{}KB;", kb + 1),
                    )
                }
            }
        }
        "hash" => {
            let (kw, own, len) = match g.size(0, 2) {
                0 => ("filemd5", hex(&md5::Md5::digest(data)), 32),
                1 => ("filesha1", hex(&sha1::Sha1::digest(data)), 40),
                _ => ("filesha256", hex(&sha2::Sha256::digest(data)), 64),
            };
            let ext_name = &kw[4..];
            let with = format!("dt-{idx}-with.{ext_name}");
            let without = format!("dt-{idx}-without.{ext_name}");
            files.push((with.clone(), hash_list(g, Some(&own), len)));
            files.push((without.clone(), hash_list(g, None, len)));
            if g.chance(0.25) {
                (format!("{kw}:!{without};"), format!("{kw}:!{with};"))
            } else {
                (format!("{kw}:{with};"), format!("{kw}:{without};"))
            }
        }
        "filemagic" => {
            let v = if g.chance(0.3) {
                word.to_lowercase()
            } else {
                word.to_string()
            };
            let nocase = if g.chance(0.3) { " nocase;" } else { "" };
            let spoiled = String::from_utf8_lossy(&spoil(v.as_bytes())).into_owned();
            if g.chance(0.2) {
                (
                    format!("filemagic:!\"{spoiled}\";{nocase}"),
                    format!("filemagic:!\"{v}\";{nocase}"),
                )
            } else {
                (
                    format!("filemagic:\"{v}\";{nocase}"),
                    format!("filemagic:\"{spoiled}\";{nocase}"),
                )
            }
        }
        "file.data" => {
            let a = g.size(0, data.len() - 6);
            let piece = data[a..a + 6].to_vec();
            let kw = g.pick(&["file.data", "file_data"]);
            let t = |c: &[u8]| format!("{kw}; content:\"{}\";", content_text(c));
            (t(&piece), t(&spoil(&piece)))
        }
        _ => {
            // isdataat on the file's bytes, absolute or after a content.
            let n = data.len();
            match g.size(0, 2) {
                0 => (
                    format!("file.data; isdataat:{};", n - 1),
                    format!("file.data; isdataat:{n};"),
                ),
                1 => (
                    format!("file.data; isdataat:!{n};"),
                    format!("file.data; isdataat:!{};", n - 1),
                ),
                _ => {
                    let piece = data[..4].to_vec();
                    let c = content_text(&piece);
                    (
                        format!(
                            "file.data; content:\"{c}\"; depth:4; isdataat:{},relative;",
                            n - 5
                        ),
                        format!(
                            "file.data; content:\"{c}\"; depth:4; isdataat:{},relative;",
                            n - 4
                        ),
                    )
                }
            }
        }
    };
    (h, m, kind, files)
}

fn filekw(g: &mut Gen<'_>) -> Spec {
    let variant = g.pick(&[
        "get",
        "get",
        "get-disposition",
        "get-chunked",
        "get-cut",
        "post",
    ]);
    let intent = g.intent();
    let hit = intent == Intent::Hit;
    let v6 = g.v6();
    let mut s = base(variant, intent, v6, L4::Tcp, "http");
    s.tweaks.dport = Some(80);
    let mut f = Flow::new(g.index, v6, 80);
    let size = g.size(30, 3000);
    let (ext, data, word) = file_of(g, size);
    let size = data.len();
    let nl = g.size(3, 8);
    let stem = String::from_utf8_lossy(&g.needle(nl)).into_owned();
    let name = format!("{stem}.{ext}");
    let dir_l = g.size(2, 6);
    let dir = String::from_utf8_lossy(&g.needle(dir_l)).into_owned();
    let upload = variant == "post";
    let (req, resp): (Vec<u8>, Vec<u8>) = if upload {
        let boundary = "----dtboundary7MA4YWxk";
        let mut body = format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"f\"; filename=\"{name}\"\r\nContent-Type: application/octet-stream\r\n\r\n"
        )
        .into_bytes();
        body.extend_from_slice(&data);
        body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
        let mut r = format!(
            "POST /{dir}/upload HTTP/1.1\r\nHost: files.test\r\nContent-Type: multipart/form-data; boundary={boundary}\r\nContent-Length: {}\r\n\r\n",
            body.len()
        )
        .into_bytes();
        r.extend(body);
        (
            r,
            b"HTTP/1.1 200 OK\r\nServer: dt\r\nContent-Length: 2\r\n\r\nok".to_vec(),
        )
    } else {
        let (path, disp) = if variant == "get-disposition" {
            (
                format!("/{dir}/download?id=7"),
                format!("Content-Disposition: attachment; filename=\"{name}\"\r\n"),
            )
        } else {
            (format!("/{dir}/{name}"), String::new())
        };
        let req = format!("GET {path} HTTP/1.1\r\nHost: files.test\r\nUser-Agent: dt\r\n\r\n")
            .into_bytes();
        let mut r = format!(
            "HTTP/1.1 200 OK\r\nServer: dt\r\nContent-Type: application/octet-stream\r\n{disp}"
        )
        .into_bytes();
        match variant {
            "get-chunked" => {
                r.extend_from_slice(b"Transfer-Encoding: chunked\r\n\r\n");
                let mut off = 0;
                while off < data.len() {
                    let n = g.size(1, 700).min(data.len() - off);
                    r.extend_from_slice(format!("{n:x}\r\n").as_bytes());
                    r.extend_from_slice(&data[off..off + n]);
                    r.extend_from_slice(b"\r\n");
                    off += n;
                }
                r.extend_from_slice(b"0\r\n\r\n");
            }
            "get-cut" => {
                let more = g.size(1, 200);
                r.extend_from_slice(format!("Content-Length: {}\r\n\r\n", size + more).as_bytes());
                r.extend_from_slice(&data);
            }
            _ => {
                r.extend_from_slice(format!("Content-Length: {size}\r\n\r\n").as_bytes());
                r.extend_from_slice(&data);
            }
        }
        (req, r)
    };
    // The conversation: each message in segments of at most 1,400 bytes.
    let (ci, si) = (52_000u32, 91_000u32);
    f.handshake(ci, si);
    let (mut c, mut sv) = (ci + 1, si + 1);
    for p in req.chunks(1400) {
        f.tcp(true, c, sv, PSH | ACK, &[], p);
        c += p.len() as u32;
    }
    for p in resp.chunks(1400) {
        f.tcp(false, sv, c, PSH | ACK, &[], p);
        sv += p.len() as u32;
    }
    f.tcp(true, c, sv, ACK, &[], &[]);
    f.close(c, sv);
    // The rule: one or two file conditions, sometimes `filestore`, a flow direction.
    let (h1, m1, k1, mut files) = file_cond(g, &name, ext, &data, word, size);
    let mut template = format!("{variant}-{k1}");
    let mut hit_t = vec![h1];
    let mut miss_t = vec![m1];
    if g.chance(0.3) {
        let (h2, m2, k2, f2) = file_cond(g, &name, ext, &data, word, size);
        if k2 != k1 {
            template = format!("{template}+{k2}");
            hit_t.push(h2.clone());
            miss_t.push(h2);
            files.extend(f2);
            let _ = m2;
        }
    }
    if g.chance(0.25) {
        let fs = g.pick(&[
            "filestore;",
            "filestore:request,file;",
            "filestore:response,file;",
            "filestore:both,tx;",
            "filestore:to_server,flow;",
            "filestore:to_client,ssn;",
            "filestore:both,flow;",
            "filestore:request,tx;",
        ]);
        hit_t.push(fs.to_string());
        miss_t.push(fs.to_string());
        template.push_str("+filestore");
    }
    let flow = match g.size(0, 2) {
        0 => "",
        _ if upload => "flow:established,to_server; ",
        _ => "flow:established,to_client; ",
    };
    s.template = template;
    s.opts = format!("{flow}{}", if hit { hit_t } else { miss_t }.join(" "));
    if !upload {
        s.header = Some(f.server_to_client_header());
    }
    s.files = files;
    s.payload = data;
    s.script = Some(f.frames);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_have_their_type_and_size() {
        let mut rng = gen::rng::Rng::new(3);
        let mut g = Gen {
            rng: &mut rng,
            index: 0,
        };
        for _ in 0..50 {
            let (ext, b, _) = file_of(&mut g, 100);
            assert!(b.len() >= 100);
            match ext {
                "png" => assert!(b.starts_with(b"\x89PNG")),
                "gif" => assert!(b.starts_with(b"GIF89a")),
                "elf" => assert!(b.starts_with(b"\x7fELF")),
                _ => {}
            }
        }
        let l = hash_list(&mut g, Some("abc"), 3);
        assert!(String::from_utf8(l)
            .unwrap()
            .lines()
            .any(|x| x.eq_ignore_ascii_case("abc")));
    }

    #[test]
    fn every_condition_is_drawn_and_hash_rules_name_their_files() {
        let mut rng = gen::rng::Rng::new(13);
        let mut templates = std::collections::BTreeSet::new();
        for index in 0..400 {
            let mut g = Gen {
                rng: &mut rng,
                index,
            };
            let s = filekw(&mut g);
            templates.insert(s.template.clone());
            for (name, _) in &s.files {
                assert!(name.starts_with(&format!("dt-{index}-")));
            }
            if s.opts.contains("filemd5") || s.opts.contains("filesha") {
                assert_eq!(s.files.len() % 2, 0, "{}", s.opts);
            }
        }
        for k in [
            "filename",
            "fileext",
            "file.name",
            "filesize",
            "hash",
            "filemagic",
            "file.data",
            "isdataat",
            "filestore",
        ] {
            assert!(
                templates.iter().any(|t| t.contains(k)),
                "{k}: {templates:?}"
            );
        }
    }
}
