//! HTTP/2 transactions are freed like HTTP/1's (the engine's `txfree`): through
//! [`AppFlow::free_txs_before`](crate::AppFlow::free_txs_before), a long connection
//! of many streams holds only the streams still in progress, and later streams keep
//! their ids and contents.

use super::frame::{frame, FrameType, FLAG_END_HEADERS, FLAG_END_STREAM, PREFACE};
use super::hpack::tests::literal_block;
use crate::http::HttpBuffer;
use crate::{AppCtx, AppFlow, AppProto, Direction, Transport};

fn request(stream: u32, path: &str, end: bool) -> Vec<u8> {
    let fields = [
        (":method", "GET"),
        (":authority", "h"),
        (":scheme", "http"),
        (":path", path),
    ];
    let flags = FLAG_END_HEADERS | if end { FLAG_END_STREAM } else { 0 };
    frame(FrameType::HEADERS, flags, stream, &literal_block(&fields))
}

fn response(stream: u32, body: &[u8]) -> Vec<u8> {
    let mut v = frame(
        FrameType::HEADERS,
        FLAG_END_HEADERS,
        stream,
        &literal_block(&[(":status", "200")]),
    );
    v.extend(frame(FrameType::DATA, FLAG_END_STREAM, stream, body));
    v
}

/// The id below which every transaction is complete both ways (in order, as the
/// engine frees them).
fn done_before(f: &AppFlow) -> u64 {
    let (mut bound, mut stop) = (0, false);
    f.each_tx(&mut |tx| {
        if stop || !tx.is_final() {
            stop = true;
        } else {
            bound = tx.id() + 1;
        }
    });
    bound
}

fn live(f: &AppFlow) -> Vec<u64> {
    let mut ids = Vec::new();
    f.each_tx(&mut |tx| ids.push(tx.id()));
    ids
}

#[test]
fn a_long_connection_holds_only_the_streams_in_progress() {
    let mut ctx = AppCtx::default();
    let mut f = AppFlow::new(Transport::Tcp, 40000, 80);
    let mut c = PREFACE.to_vec();
    c.extend(frame(FrameType::SETTINGS, 0, 0, &[]));
    f.parse(&mut ctx, Direction::ToServer, &c);
    f.parse(
        &mut ctx,
        Direction::ToClient,
        &frame(FrameType::SETTINGS, 0, 0, &[]),
    );
    assert_eq!(f.app_proto(), AppProto::Http2);
    let mut most = 0;
    for i in 0..200u32 {
        let stream = 1 + 2 * i;
        let path = format!("/p{i}");
        f.parse(&mut ctx, Direction::ToServer, &request(stream, &path, true));
        f.parse(
            &mut ctx,
            Direction::ToClient,
            &response(stream, format!("body {i}").as_bytes()),
        );
        // The stream's transaction is the newest, with its request and response.
        let tx = f
            .http2()
            .and_then(|h| h.txs().last())
            .expect("a live transaction");
        let uri = tx.buffer(HttpBuffer::Uri, Direction::ToServer);
        let body = tx.buffer(HttpBuffer::ResponseBody, Direction::ToClient);
        let (id, uri, body) = (tx.id(), uri.map(<[u8]>::to_vec), body.map(<[u8]>::to_vec));
        assert_eq!(uri.as_deref(), Some(path.as_bytes()));
        assert_eq!(body, Some(format!("body {i}").into_bytes()));
        // Two SETTINGS transactions (ids 0 and 1), then one per stream.
        assert_eq!(id, 2 + i as u64);
        most = most.max(live(&f).len());
        let bound = done_before(&f);
        f.free_txs_before(&mut ctx, bound);
        assert!(
            live(&f).is_empty(),
            "all complete, all freed: {:?}",
            live(&f)
        );
    }
    assert!(most <= 3, "{most} transactions live at once");
}

#[test]
fn a_stream_in_progress_holds_back_the_later_ones() {
    let mut ctx = AppCtx::default();
    let mut f = AppFlow::new(Transport::Tcp, 40000, 80);
    let mut c = PREFACE.to_vec();
    c.extend(frame(FrameType::SETTINGS, 0, 0, &[]));
    c.extend(request(1, "/slow", false));
    f.parse(&mut ctx, Direction::ToServer, &c);
    for s in [3, 5] {
        f.parse(&mut ctx, Direction::ToServer, &request(s, "/fast", true));
        f.parse(&mut ctx, Direction::ToClient, &response(s, b"ok"));
    }
    // The empty SETTINGS (0) is not kept; stream 1 (1) is still open, so 3 and 5
    // (2, 3), complete, wait behind it.
    let bound = done_before(&f);
    assert_eq!(bound, 0);
    f.free_txs_before(&mut ctx, bound);
    assert_eq!(live(&f), vec![1, 2, 3]);
    // Stream 1 completes: everything goes, and a later stream still parses.
    f.parse(
        &mut ctx,
        Direction::ToServer,
        &frame(FrameType::DATA, FLAG_END_STREAM, 1, b"x"),
    );
    f.parse(&mut ctx, Direction::ToClient, &response(1, b"late"));
    let bound = done_before(&f);
    f.free_txs_before(&mut ctx, bound);
    assert!(live(&f).is_empty(), "{:?}", live(&f));
    f.parse(&mut ctx, Direction::ToServer, &request(7, "/next", true));
    assert_eq!(live(&f), vec![4]);
}
