//! A response body that grows packet by packet is scanned by its prefilter only past
//! what the last scan covered (`body_scan.rs`): the alerts must be those of inspecting
//! the whole body at once, whatever the cut, for patterns across the cuts and for rules
//! whose fast pattern arrived packets before the rest of their match.

mod common;
use common::*;

const RULES: &str = "\
alert http any any -> any any (msg:\"across\"; flow:to_client; file_data; content:\"across-the-cut-pattern\"; sid:1;)
alert http any any -> any any (msg:\"early then late\"; flow:to_client; file_data; content:\"early-marker-xyz\"; fast_pattern; content:\"late\"; distance:0; sid:2;)
alert http any any -> any any (msg:\"body\"; flow:to_client; http.response_body; content:\"QQQ-at-the-end\"; sid:3;)
alert http any any -> any any (msg:\"absent\"; flow:to_client; file_data; content:\"never-in-the-body\"; sid:4;)
";

/// The body: rule 2's fast pattern early, its second content and the others later.
fn body() -> Vec<u8> {
    let mut b = Vec::new();
    b.extend_from_slice(b"start early-marker-xyz ");
    b.extend(std::iter::repeat_n(b'.', 300));
    b.extend_from_slice(b" across-the-cut-pattern ");
    b.extend(std::iter::repeat_n(b'-', 200));
    b.extend_from_slice(b" late QQQ-at-the-end");
    b
}

/// Runs one response whose body is parsed in pieces of `cut` bytes, inspecting the
/// flow after each piece with the flow's detection state kept; returns the sids
/// alerted, in order.
fn run(cut: usize) -> Vec<u32> {
    let det = detector(RULES);
    let mut s = det.scratch();
    let mut fd = detect::FlowDetect::new();
    // Every piece is inspectable (Suricata's minimal inspect size set to one byte).
    let cfg = app::Config {
        response_body_minimal_inspect_size: 1,
        ..app::Config::default()
    };
    let mut ctx = app::AppCtx::new(cfg);
    let mut af = app::AppFlow::new(app::Transport::Tcp, 1234, 80);
    af.parse(
        &mut ctx,
        app::Direction::ToServer,
        b"GET /f HTTP/1.1\r\nHost: example.com\r\n\r\n",
    );
    let body = body();
    // The response stays unfinished (more body announced than sent): every inspection
    // after the first sees the body grown, none its completion, which would scan it whole.
    let head = format!(
        "HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n",
        body.len() + 100
    );
    af.parse(&mut ctx, app::Direction::ToClient, head.as_bytes());
    let mut p = tcp(b"");
    p.meta.src[3] = 2;
    p.meta.dst[3] = 1;
    p.meta.sport = 80;
    p.meta.dport = 1234;
    let mut sids = Vec::new();
    for piece in body.chunks(cut) {
        af.parse(&mut ctx, app::Direction::ToClient, piece);
        let fi = detect::FlowInfo {
            to_server: false,
            established: true,
            payload_in_stream: true,
            app_proto: af.app_proto(),
            counts: Default::default(),
        };
        let input = detect::Input {
            app: Some(&af),
            ..detect::Input::packet(&p.meta, &p.frame, Some(fi))
        };
        let mut out = Vec::new();
        det.inspect(&mut s, Some(&mut fd), &input, &mut out);
        sids.extend(out.iter().map(|a| a.sid));
    }
    sids
}

#[test]
fn growing_body_alerts_as_the_whole_body_does() {
    let whole = run(usize::MAX);
    assert_eq!(whole, [1, 2, 3], "the body at once");
    for cut in [1, 2, 3, 5, 7, 16, 22, 23, 64, 100, 311] {
        let mut got = run(cut);
        got.sort_unstable();
        assert_eq!(got, whole, "pieces of {cut} bytes");
    }
}

/// HTTP's `file.data` to the client and `http.response_body` are the same bytes: one
/// prefilter holds the fast patterns of both, so the body is scanned once and the rules
/// of both buffers alert from that scan.
#[test]
fn response_body_and_file_data_share_one_scan() {
    let rules = "\
alert http any any -> any any (msg:\"file\"; flow:to_client; file_data; content:\"file-data-pattern\"; sid:21;)
alert http any any -> any any (msg:\"body\"; flow:to_client; http.response_body; content:\"response-body-pattern\"; sid:22;)
alert http any any -> any any (msg:\"both\"; flow:to_client; http.response_body; content:\"file-data-pattern\"; content:\"response-body-pattern\"; sid:23;)
alert http any any -> any any (msg:\"absent\"; flow:to_client; http.response_body; content:\"not-in-this-body\"; sid:24;)
";
    let det = detector(rules);
    let mut s = det.scratch();
    let mut fd = detect::FlowDetect::new();
    let mut ctx = app::AppCtx::new(app::Config::default());
    let mut af = app::AppFlow::new(app::Transport::Tcp, 1234, 80);
    af.parse(
        &mut ctx,
        app::Direction::ToServer,
        b"GET /f HTTP/1.1\r\nHost: example.com\r\n\r\n",
    );
    let mut body = b"<html> file-data-pattern ".to_vec();
    body.extend(std::iter::repeat_n(b'.', 500));
    body.extend_from_slice(b" response-body-pattern </html>");
    let head = format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n", body.len());
    af.parse(&mut ctx, app::Direction::ToClient, head.as_bytes());
    af.parse(&mut ctx, app::Direction::ToClient, &body);
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
        app: Some(&af),
        ..detect::Input::packet(&p.meta, &p.frame, Some(fi))
    };
    let mut out = Vec::new();
    det.inspect(&mut s, Some(&mut fd), &input, &mut out);
    let mut sids: Vec<u32> = out.iter().map(|a| a.sid).collect();
    sids.sort_unstable();
    assert_eq!(sids, [21, 22, 23]);
    assert_eq!(
        s.stats().mpm_bytes,
        body.len() as u64,
        "the body scanned once for both buffers"
    );
}
