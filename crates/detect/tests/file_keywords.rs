//! The file options (`filename`, `fileext`, `filemagic`, `filesize`, `filemd5`,
//! `filestore`) on the files of HTTP transactions, as Suricata's file keywords
//! documentation describes them.

mod common;
use common::*;

/// An HTTP download of `body` as `/dl/<name>`, its request and response parsed; the
/// app layer computes MD5s when `md5`.
fn download(name: &str, body: &[u8], md5: bool) -> app::AppFlow {
    download_with(name, body, md5, false)
}

/// [`download`] with libmagic on or off, as the engine sets it when an output or a
/// rule needs file types (`FileNeeds::magic`): without it an HTTP body's file keeps
/// no head for libmagic to read.
fn download_with(name: &str, body: &[u8], md5: bool, magic: bool) -> app::AppFlow {
    let mut cfg = app::Config::default();
    cfg.files.md5 = md5;
    cfg.files.magic = magic;
    let mut ctx = app::AppCtx::new(cfg);
    let mut af = app::AppFlow::new(app::Transport::Tcp, 1234, 80);
    let req = format!("GET /dl/{name} HTTP/1.1\r\nHost: example.com\r\n\r\n");
    af.parse(&mut ctx, app::Direction::ToServer, req.as_bytes());
    let head = format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n", body.len());
    af.parse(&mut ctx, app::Direction::ToClient, head.as_bytes());
    af.parse(&mut ctx, app::Direction::ToClient, body);
    af
}

/// The sids alerting on the flow's transactions, inspected to the client.
fn to_client_sids(det: &detect::Detector, af: &app::AppFlow) -> Vec<u32> {
    let mut s = det.scratch();
    let mut fd = detect::FlowDetect::new();
    let mut p = tcp(b"");
    p.meta.src[3] = 2;
    p.meta.dst[3] = 1;
    p.meta.sport = 80;
    p.meta.dport = 1234;
    let fi = detect::FlowInfo {
        to_server: false,
        established: true,
        payload_in_stream: true,
        app_proto: af.app_proto(),
        counts: Default::default(),
    };
    let input = detect::Input {
        app: Some(af),
        eof_open: false,
        txs: true,
        ..detect::Input::packet(&p.meta, &p.frame, Some(fi))
    };
    let mut out = Vec::new();
    det.inspect(&mut s, Some(&mut fd), &input, &mut out);
    let mut sids: Vec<u32> = out.iter().map(|a| a.sid).collect();
    sids.sort_unstable();
    sids
}

fn rule(sid: u32, opts: &str) -> String {
    format!("alert http any any -> any any (msg:\"f\"; {opts} sid:{sid};)\n")
}

#[test]
fn names_extensions_and_sizes() {
    let det = detector(
        &[
            rule(1, "filename:\"report\";"),
            rule(2, "fileext:\"PDF\";"),
            rule(3, "fileext:\"exe\";"),
            rule(4, "filename:!\"report\";"),
            rule(5, "filesize:10;"),
            rule(6, "filesize:>100;"),
            rule(7, "filesize:5<>20; fileext:\"pdf\";"),
            rule(8, "flow:to_server; filename:\"report\";"),
        ]
        .concat(),
    );
    let af = download("Report.pdf", b"0123456789", false);
    assert_eq!(af.app_proto(), app::AppProto::Http);
    assert_eq!(to_client_sids(&det, &af), [1, 2, 5, 7]);
}

#[test]
fn hash_lists_match_closed_files() {
    let dir = std::env::temp_dir().join(format!("osprey-filekw-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let list = dir.join("bad.md5");
    // MD5("abc") and an unrelated digest.
    std::fs::write(
        &list,
        "900150983cd24fb0d6963f7d28e17f72\nd41d8cd98f00b204e9800998ecf8427e\n",
    )
    .unwrap();
    let l = list.display();
    let det = detector(
        &[
            rule(1, &format!("filemd5:{l};")),
            rule(2, &format!("filemd5:!{l};")),
            rule(3, &format!("filemd5:{l}; filestore;")),
        ]
        .concat(),
    );
    assert!(det.file_needs().md5 && !det.file_needs().sha256);
    let af = download("a.txt", b"abc", true);
    assert_eq!(to_client_sids(&det, &af), [1, 3]);
    let mut stored = Vec::new();
    af.each_tx(&mut |tx| stored.extend(tx.files().unwrap().iter().map(app::File::store_requested)));
    assert_eq!(stored, [true]);
    let af = download("a.txt", b"abd", true);
    assert_eq!(to_client_sids(&det, &af), [2]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn magic_comes_from_libmagic() {
    if !app::files::magic::available() {
        eprintln!("skipped: libmagic or its database is not installed");
        return;
    }
    let det = detector(
        &[
            rule(1, "filemagic:\"pdf document\";"),
            rule(2, "filemagic:\"PE32\";"),
            rule(3, "filemagic:!\"executable\";"),
        ]
        .concat(),
    );
    let mut pdf = b"%PDF-1.4\n".to_vec();
    pdf.extend_from_slice(&[b' '; 600]);
    assert!(det.file_needs().magic);
    let af = download_with("x", &pdf, false, det.file_needs().magic);
    assert_eq!(to_client_sids(&det, &af), [1, 3]);
}

#[test]
fn a_missing_hash_list_fails_the_rule() {
    let vars = rules::Vars::suricata_default();
    let text = rule(1, "filesha256:/nonexistent/osprey/list.sha256;");
    let (set, _) = rules::RuleSet::load_str(&text, None, &vars, &Default::default());
    let (det, diags) = detect::Detector::build(&set.rules, &Default::default(), &vars);
    assert_eq!(det.len(), 0);
    assert_eq!(diags.len(), 1);
    assert_eq!(diags[0].kind, detect::DiagKind::Failed);
}
