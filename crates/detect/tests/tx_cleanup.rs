//! Transaction cleanup: a long keep-alive HTTP flow whose inspected transactions are
//! freed as [`detect::Detector::tx_done_before`] allows holds O(1) transactions and
//! raises the same alerts as when every transaction is kept.

mod common;
use common::*;

const RULES: &str = "\
alert http any any -> any any (msg:\"uri\"; flow:to_server; http.uri; content:\"/evil\"; sid:1;)
alert http any any -> any any (msg:\"body\"; flow:to_client; file_data; content:\"secret\"; sid:2;)
alert http any any -> any any (msg:\"status\"; flow:to_client; http.stat_code; content:\"404\"; sid:3;)
";

/// Runs `n` request/response pairs of one keep-alive flow through the app layer and
/// detection, a packet each way per pair; with `free`, what detection is done with is
/// freed after each packet. Returns the alerts (sid, what matched) and the most
/// transactions live at once.
fn run(n: usize, free: bool) -> (Vec<String>, usize) {
    let det = detector(RULES);
    let mut s = det.scratch();
    let mut fd = detect::FlowDetect::new();
    let mut ctx = app::AppCtx::new(app::Config::default());
    let mut af = app::AppFlow::new(app::Transport::Tcp, 1234, 80);
    let (mut alerts, mut most) = (Vec::new(), 0);
    for i in 0..n {
        let uri = if i % 10 == 3 { "/evil" } else { "/page" };
        let req = format!("GET {uri}/{i} HTTP/1.1\r\nHost: example.com\r\n\r\n");
        let body = if i % 7 == 2 { "a secret" } else { "nothing" };
        let status = if i % 5 == 1 {
            "404 Not Found"
        } else {
            "200 OK"
        };
        let res = format!(
            "HTTP/1.1 {status}\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        for (dir, bytes) in [
            (app::Direction::ToServer, req.as_bytes()),
            (app::Direction::ToClient, res.as_bytes()),
        ] {
            af.parse(&mut ctx, dir, bytes);
            let to_server = dir == app::Direction::ToServer;
            let mut p = tcp(b"");
            if !to_server {
                p.meta.src[3] = 2;
                p.meta.dst[3] = 1;
                p.meta.sport = 80;
                p.meta.dport = 1234;
            }
            let fi = detect::FlowInfo {
                to_server,
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
            alerts.extend(out.iter().map(|a| format!("{} {:?}", a.sid, a.matched_on)));
            let mut live = 0;
            af.each_tx(&mut |_| live += 1);
            most = most.max(live);
            if free {
                let bound = det.tx_done_before(&fd);
                af.free_txs_before(&mut ctx, bound);
                fd.forget_txs_before(bound);
            }
        }
    }
    (alerts, most)
}

#[test]
fn keep_alive_flow_holds_o1_transactions_with_the_same_alerts() {
    let (kept, most_kept) = run(300, false);
    let (freed, most_freed) = run(300, true);
    // Every pair's alerts: 30 URIs, 43 bodies, 60 statuses.
    assert_eq!(kept.len(), 30 + 43 + 60, "{kept:?}");
    assert_eq!(freed, kept);
    assert_eq!(most_kept, 300);
    assert!(most_freed <= 2, "{most_freed} transactions live at once");
}

#[test]
fn nothing_is_freed_before_both_directions_are_inspected() {
    let det = detector(RULES);
    let mut ctx = app::AppCtx::new(app::Config::default());
    let mut af = app::AppFlow::new(app::Transport::Tcp, 1234, 80);
    af.parse(
        &mut ctx,
        app::Direction::ToServer,
        b"GET / HTTP/1.1\r\nHost: a\r\n\r\n",
    );
    af.parse(
        &mut ctx,
        app::Direction::ToClient,
        b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
    );
    // Complete both ways, but not inspected yet: detection is not done with it.
    let fd = detect::FlowDetect::new();
    assert_eq!(det.tx_done_before(&fd), 0);
    // Without transaction rules nothing waits for detection.
    let packet_only = detector("alert tcp any any -> any any (msg:\"p\"; content:\"x\"; sid:9;)\n");
    assert_eq!(packet_only.tx_done_before(&fd), u64::MAX);
}
