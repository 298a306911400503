//! Flow- and host-state keywords through the whole detector: `stream_size`,
//! `flow.age`, `xbits`/`hostbits` across flows, `flowint`, and the IP/TCP header options
//! (`ipopts`, `fragbits`, `fragoffset`, `tcp.mss`, `l3_proto`).

mod common;

use common::{detector, flow, sids_with, tcp, Pkt};
use detect::{FlowCounts, FlowDetect, FlowInfo};

fn with_counts(stream: Option<[u32; 2]>, first_secs: u64) -> Option<FlowInfo> {
    Some(FlowInfo {
        counts: FlowCounts {
            first_secs,
            stream,
            ..Default::default()
        },
        ..flow(true).unwrap()
    })
}

fn at(mut p: Pkt, secs: u64) -> Pkt {
    p.meta.ts = wire::Timestamp::from_secs_nanos(secs, 0);
    p
}

#[test]
fn stream_size_compares_the_tracker_counts() {
    let det = detector(
        "alert tcp any any -> any any (stream_size:client,<,5; sid:1;)\n\
         alert tcp any any -> any any (stream_size:server,>=,100; sid:2;)\n\
         alert tcp any any -> any any (stream_size:both,>,3; sid:3;)\n\
         alert tcp any any -> any any (stream_size:either,=,1; sid:4;)",
    );
    let mut s = det.scratch();
    let p = tcp(b"x");
    let mut got = sids_with(&det, &mut s, None, &p, with_counts(Some([1, 200]), 0));
    got.sort_unstable();
    assert_eq!(got, [1, 2, 4]);
    let mut got = sids_with(&det, &mut s, None, &p, with_counts(Some([10, 50]), 0));
    got.sort_unstable();
    assert_eq!(got, [3]);
    // No TCP session: no stream size.
    assert!(sids_with(&det, &mut s, None, &p, with_counts(None, 0)).is_empty());
}

#[test]
fn flow_age_is_seconds_since_the_first_packet() {
    let det = detector("alert tcp any any -> any any (flow.age:>=10; sid:1;)");
    let mut s = det.scratch();
    assert!(sids_with(
        &det,
        &mut s,
        None,
        &at(tcp(b"x"), 109),
        with_counts(None, 100)
    )
    .is_empty());
    assert_eq!(
        sids_with(
            &det,
            &mut s,
            None,
            &at(tcp(b"x"), 110),
            with_counts(None, 100)
        ),
        [1]
    );
}

#[test]
fn xbits_cross_flows_by_host_and_expire() {
    let det = detector(
        "alert tcp any any -> any any (content:\"login\"; xbits:set,seen,track ip_src,expire 5; noalert; sid:1;)\n\
         alert tcp any any -> any any (content:\"data\"; xbits:isset,seen,track ip_src; sid:2;)\n\
         alert tcp any any -> any any (content:\"back\"; xbits:isset,seen,track ip_dst; sid:3;)",
    );
    let mut s = det.scratch();
    let (mut f1, mut f2) = (FlowDetect::default(), FlowDetect::default());
    let data = at(tcp(b"data"), 100);
    assert!(sids_with(&det, &mut s, Some(&mut f2), &data, flow(true)).is_empty());
    // The set rule is noalert.
    let login = at(tcp(b"login"), 100);
    assert!(sids_with(&det, &mut s, Some(&mut f1), &login, flow(true)).is_empty());
    // Another flow from the same source sees the bit.
    assert_eq!(
        sids_with(&det, &mut s, Some(&mut f2), &data, flow(true)),
        [2]
    );
    // A reply towards that host: tracked as destination.
    let mut back = at(tcp(b"back"), 101);
    std::mem::swap(&mut back.meta.src, &mut back.meta.dst);
    assert_eq!(
        sids_with(&det, &mut s, Some(&mut f2), &back, flow(false)),
        [3]
    );
    // Expired 5 s after the set.
    let late = at(tcp(b"data"), 106);
    assert!(sids_with(&det, &mut s, Some(&mut f2), &late, flow(true)).is_empty());
}

#[test]
fn hostbits_and_xbits_share_the_host_table() {
    let det = detector(
        "alert tcp any any -> any any (content:\"a\"; hostbits:set,bad; sid:1;)\n\
         alert tcp any any -> any any (content:\"b\"; xbits:isset,bad,track ip_src; sid:2;)\n\
         alert tcp any any -> any any (content:\"c\"; hostbits:isnotset,bad,dst; sid:3;)",
    );
    let mut s = det.scratch();
    assert_eq!(sids_with(&det, &mut s, None, &tcp(b"c"), flow(true)), [3]);
    assert!(sids_with(&det, &mut s, None, &tcp(b"b"), flow(true)).is_empty());
    assert_eq!(sids_with(&det, &mut s, None, &tcp(b"a"), flow(true)), [1]);
    assert_eq!(sids_with(&det, &mut s, None, &tcp(b"b"), flow(true)), [2]);
    assert_eq!(sids_with(&det, &mut s, None, &tcp(b"c"), flow(true)), [3]);
}

#[test]
fn ip_header_options_read_the_ipv4_header() {
    let det = detector(
        "alert ip any any -> any any (fragbits:D; sid:1;)\n\
         alert ip any any -> any any (fragbits:*MR; sid:2;)\n\
         alert ip any any -> any any (ipopts:rr; sid:3;)\n\
         alert ip any any -> any any (fragoffset:>0; sid:4;)\n\
         alert ip any any -> any any (l3_proto:ipv4; sid:5;)",
    );
    let mut s = det.scratch();
    // The helper's 40 header bytes: a 20-byte IPv4 header (DF set) and the L4 header.
    let mut p = tcp(b"x");
    p.frame[0] = 0x45;
    p.frame[6] = 0x40;
    let mut got = sids_with(&det, &mut s, None, &p, flow(true));
    got.sort_unstable();
    assert_eq!(got, [1, 5]);
    // IHL 6 with a record-route option, MF set, offset 3.
    p.frame[0] = 0x46;
    p.frame[6] = 0x20;
    p.frame[7] = 3;
    p.frame[20..24].copy_from_slice(&[7, 3, 4, 0]);
    let mut got = sids_with(&det, &mut s, None, &p, flow(true));
    got.sort_unstable();
    assert_eq!(got, [2, 3, 4, 5]);
}

#[test]
fn flowint_counts_per_flow() {
    let det = detector(
        "alert tcp any any -> any any (content:\"req\"; flowint:n,+,1; noalert; sid:1;)\n\
         alert tcp any any -> any any (content:\"chk\"; flowint:n,>=,2; sid:2;)\n\
         alert tcp any any -> any any (content:\"chk\"; flowint:n,notset; sid:3;)",
    );
    let mut s = det.scratch();
    let (mut f1, mut f2) = (FlowDetect::default(), FlowDetect::default());
    let (req, chk) = (tcp(b"req"), tcp(b"chk"));
    assert_eq!(
        sids_with(&det, &mut s, Some(&mut f1), &chk, flow(true)),
        [3]
    );
    assert!(sids_with(&det, &mut s, Some(&mut f1), &req, flow(true)).is_empty());
    assert!(sids_with(&det, &mut s, Some(&mut f1), &chk, flow(true)).is_empty());
    sids_with(&det, &mut s, Some(&mut f1), &req, flow(true));
    assert_eq!(
        sids_with(&det, &mut s, Some(&mut f1), &chk, flow(true)),
        [2]
    );
    // Another flow has its own variables.
    assert_eq!(
        sids_with(&det, &mut s, Some(&mut f2), &chk, flow(true)),
        [3]
    );
}
