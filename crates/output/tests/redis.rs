//! The Redis sink against a real `redis-server` the test starts: every mode, with and
//! without pipelining, and an outage (server killed mid-run, records buffered then
//! dropped past the bound, delivery resumed when it is back).

mod common;

use common::{quick, record, redis_server, temp_dir, wait_for, Redis, Val};
use output::sink::{RedisMode, RedisSpec};
use output::{LineWriter, SinkSpec};

/// Records `range` as Redis holds them: with the host name last, as Suricata adds it
/// for this filetype.
fn records(range: std::ops::Range<usize>) -> Vec<String> {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap();
    let host = serde_json::Value::from(host.trim()).to_string();
    common::records(range)
        .into_iter()
        .map(|r| format!("{},\"host\":{host}}}", r.strip_suffix('}').unwrap()))
        .collect()
}

fn spec(port: u16, mode: RedisMode, key: &str, pipelining: Option<usize>) -> SinkSpec {
    SinkSpec::Redis(RedisSpec {
        server: "127.0.0.1".into(),
        port,
        mode,
        key: key.into(),
        pipelining,
        host: None,
    })
}

#[test]
fn lpush_rpush_and_publish_with_and_without_pipelining() {
    let Some(bin) = redis_server() else { return };
    let dir = temp_dir("redis-modes");
    let redis = Redis::start(&bin, &dir, None);
    let mut client = redis.client();
    let cases = [
        (RedisMode::Lpush, None, "lp"),
        (RedisMode::Lpush, Some(7), "lp7"),
        (RedisMode::Rpush, None, "rp"),
        (RedisMode::Rpush, Some(10), "rp10"),
    ];
    for (mode, pipelining, key) in cases {
        let w = LineWriter::open_with(&spec(redis.port, mode, key, pipelining), None, &quick(1000))
            .unwrap();
        for i in 0..25 {
            w.write_line(record(i)).unwrap();
        }
        // A part batch (25 is not a multiple of 7 or 10) goes too: at shutdown.
        assert_eq!(w.finish().unwrap(), 25, "{key}");
        let mut want = records(0..25);
        if mode == RedisMode::Lpush {
            want.reverse();
        }
        assert_eq!(client.list(key), want, "{key}");
    }

    // A pipelined part batch goes when the writer is idle, not only at shutdown.
    let w = LineWriter::open_with(
        &spec(redis.port, RedisMode::Rpush, "idle", Some(100)),
        None,
        &quick(1000),
    )
    .unwrap();
    for i in 0..3 {
        w.write_line(record(i)).unwrap();
    }
    wait_for("idle flush", || client.list("idle").len() == 3);
    assert_eq!(w.finish().unwrap(), 3);

    // PUBLISH: a subscriber sees every record in order.
    let mut sub = redis.client();
    let Val::List(ack) = sub.cmd(&["SUBSCRIBE", "chan"]).unwrap() else {
        panic!("subscribe")
    };
    assert_eq!(ack[0], Val::Bulk(b"subscribe".to_vec()));
    for pipelining in [None, Some(4)] {
        let w = LineWriter::open_with(
            &spec(redis.port, RedisMode::Publish, "chan", pipelining),
            None,
            &quick(1000),
        )
        .unwrap();
        for i in 0..10 {
            w.write_line(record(i)).unwrap();
        }
        assert_eq!(w.finish().unwrap(), 10);
        for want in records(0..10) {
            let Val::List(m) = sub.read().unwrap() else {
                panic!("message")
            };
            assert_eq!(m[0], Val::Bulk(b"message".to_vec()));
            assert_eq!(m[1], Val::Bulk(b"chan".to_vec()));
            assert_eq!(m[2], Val::Bulk(want.into_bytes()));
        }
    }
    drop(redis);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn survives_a_server_restart_dropping_only_past_the_bound() {
    let Some(bin) = redis_server() else { return };
    for pipelining in [None, Some(8)] {
        let dir = temp_dir(&format!("redis-outage-{}", pipelining.unwrap_or(0)));
        let redis = Redis::start(&bin, &dir, None);
        let port = redis.port;
        let w = LineWriter::open_with(
            &spec(port, RedisMode::Rpush, "eve", pipelining),
            None,
            &quick(50),
        )
        .unwrap();
        for i in 0..20 {
            w.write_line(record(i)).unwrap();
        }
        wait_for("first records delivered", || w.delivered() == 20);
        assert_eq!(redis.client().list("eve"), records(0..20));
        redis.kill();

        // Down: 50 records fit the buffer, the other 50 are dropped and counted.
        for i in 20..120 {
            w.write_line(record(i)).unwrap();
        }
        assert_eq!(w.dropped(), 50);

        let redis = Redis::start(&bin, &dir, Some(port));
        wait_for("buffered records delivered", || w.delivered() == 70);
        assert!(w.reconnects() >= 1);
        for i in 120..130 {
            w.write_line(record(i)).unwrap();
        }
        assert_eq!(w.finish().unwrap(), 80);
        // The restarted server saved nothing: it holds what came after the outage, in
        // order, and nothing else.
        let mut want = records(20..70);
        want.extend(records(120..130));
        assert_eq!(redis.client().list("eve"), want);
        drop(redis);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
