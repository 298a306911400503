//! The `unix_stream`, `unix_dgram` and `syslog` sinks against listeners the test opens:
//! records arrive framed as Suricata's filetypes frame them; when the listener goes
//! away they are buffered, dropped past the bound and counted, and delivery resumes
//! when it comes back.

mod common;

use std::io::{BufRead, BufReader};
use std::os::unix::net::{UnixDatagram, UnixListener};
use std::path::Path;
use std::sync::mpsc::{channel, Receiver, TryRecvError};
use std::time::Duration;

use common::{quick, record, records, temp_dir, wait_for};
use output::{LineWriter, SinkOptions, SinkSpec};

/// Stops a listener thread.
struct Stopper {
    tx: std::sync::mpsc::Sender<()>,
    thread: std::thread::JoinHandle<()>,
}

impl Stopper {
    /// Stops the listener and waits until its sockets are closed.
    fn stop(self) {
        let _ = self.tx.send(());
        self.thread.join().unwrap();
    }
}

/// Accepts one connection on `path` and sends every line it reads; the listener and
/// the connection close when `stop` gets a message or is dropped (or the writer goes).
fn stream_listener(path: &Path) -> (Receiver<String>, Stopper) {
    let listener = UnixListener::bind(path).unwrap();
    let (tx, rx) = channel();
    let (stop_tx, stop) = channel::<()>();
    let thread = std::thread::spawn(move || {
        let (conn, _) = listener.accept().unwrap();
        conn.set_read_timeout(Some(Duration::from_millis(20)))
            .unwrap();
        let mut r = BufReader::new(conn);
        let mut line = String::new();
        loop {
            if !matches!(stop.try_recv(), Err(TryRecvError::Empty)) {
                return;
            }
            match r.read_line(&mut line) {
                Ok(0) => return,
                Ok(_) if line.ends_with('\n') => {
                    let _ = tx.send(line.trim_end_matches('\n').to_owned());
                    line.clear();
                }
                Ok(_) => {}
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) => {}
                Err(e) => panic!("{e}"),
            }
        }
    });
    (
        rx,
        Stopper {
            tx: stop_tx,
            thread,
        },
    )
}

/// Receives datagrams on `path` until `stop` gets a message or is dropped.
fn dgram_listener(path: &Path) -> (Receiver<String>, Stopper) {
    let sock = UnixDatagram::bind(path).unwrap();
    sock.set_read_timeout(Some(Duration::from_millis(20)))
        .unwrap();
    let (tx, rx) = channel();
    let (stop_tx, stop) = channel::<()>();
    let thread = std::thread::spawn(move || {
        let mut buf = vec![0u8; 1 << 16];
        loop {
            if !matches!(stop.try_recv(), Err(TryRecvError::Empty)) {
                return;
            }
            match sock.recv(&mut buf) {
                Ok(n) => {
                    let _ = tx.send(String::from_utf8(buf[..n].to_vec()).unwrap());
                }
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) => {}
                Err(e) => panic!("{e}"),
            }
        }
    });
    (
        rx,
        Stopper {
            tx: stop_tx,
            thread,
        },
    )
}

/// Takes `n` messages from `rx`.
fn take(rx: &Receiver<String>, n: usize) -> Vec<String> {
    (0..n)
        .map(|i| {
            rx.recv_timeout(Duration::from_secs(10))
                .unwrap_or_else(|_| panic!("message {i} of {n} did not come"))
        })
        .collect()
}

/// The outage every socket sink goes through: 20 records delivered; the listener
/// goes; 100 written (50 buffered, 50 dropped); it comes back; the 50 delivered, then
/// 10 more. `listen` opens the listener at the sink's path; `unframe` turns what it
/// received into the record.
fn outage(
    spec: &SinkSpec,
    sock: &Path,
    opts: SinkOptions,
    listen: fn(&Path) -> (Receiver<String>, Stopper),
    unframe: &dyn Fn(&str) -> String,
) {
    let (rx, stop) = listen(sock);
    let w = LineWriter::open_with(spec, None, &opts).unwrap();
    for i in 0..20 {
        w.write_line(record(i)).unwrap();
    }
    let got: Vec<String> = take(&rx, 20).iter().map(|m| unframe(m)).collect();
    assert_eq!(got, records(0..20));
    wait_for("first records delivered", || w.delivered() == 20);

    // The listener goes away.
    stop.stop();
    drop(rx);
    std::fs::remove_file(sock).unwrap();
    for i in 20..120 {
        w.write_line(record(i)).unwrap();
    }
    assert_eq!(w.dropped(), 50);

    // Back.
    let (rx, _stop) = listen(sock);
    wait_for("buffered records delivered", || w.delivered() == 70);
    assert!(w.reconnects() >= 1);
    for i in 120..130 {
        w.write_line(record(i)).unwrap();
    }
    assert_eq!(w.finish().unwrap(), 80);
    let got: Vec<String> = take(&rx, 60).iter().map(|m| unframe(m)).collect();
    let mut want = records(20..70);
    want.extend(records(120..130));
    assert_eq!(got, want);
    assert!(rx.recv_timeout(Duration::from_millis(100)).is_err());
}

#[test]
fn unix_stream_lines_survive_the_listener_going_away() {
    let dir = temp_dir("ustream");
    let sock = dir.join("eve.sock");
    let spec = SinkSpec::UnixStream { path: sock.clone() };
    outage(&spec, &sock, quick(50), stream_listener, &|m| m.to_owned());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn unix_dgram_datagrams_survive_the_listener_going_away() {
    let dir = temp_dir("udgram");
    let sock = dir.join("eve.sock");
    let spec = SinkSpec::UnixDgram { path: sock.clone() };
    // Each datagram ends with a newline, as Suricata's do.
    outage(&spec, &sock, quick(50), dgram_listener, &|m| {
        m.strip_suffix('\n')
            .unwrap_or_else(|| panic!("{m:?}"))
            .to_owned()
    });
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Checks one message is `<174>Mmm dd hh:mm:ss suricata[PID]: ` and returns the rest
/// (no newline at the end, as in Suricata's).
fn unsyslog(m: &str) -> String {
    let rest = m.strip_prefix("<174>").unwrap_or_else(|| panic!("{m:?}"));
    let (stamp, rest) = rest.split_at(15);
    let b = stamp.as_bytes();
    let months = "JanFebMarAprMayJunJulAugSepOctNovDec";
    assert!(months.contains(&stamp[..3]) && b[3] == b' ', "{m:?}");
    assert!(b[4] == b' ' || b[4].is_ascii_digit(), "{m:?}");
    assert!(b[5].is_ascii_digit() && b[6] == b' ', "{m:?}");
    assert!(
        stamp[7..]
            .bytes()
            .enumerate()
            .all(|(i, c)| if i == 2 || i == 5 {
                c == b':'
            } else {
                c.is_ascii_digit()
            }),
        "{m:?}"
    );
    let head = format!(" suricata[{}]: ", std::process::id());
    rest.strip_prefix(&head)
        .unwrap_or_else(|| panic!("{m:?}"))
        .to_owned()
}

#[test]
fn syslog_messages_as_glibc_writes_them_and_survive_the_listener_going_away() {
    let dir = temp_dir("syslog");
    let sock = dir.join("log");
    let spec = SinkSpec::Syslog {
        identity: "suricata".into(),
        facility: "local5".into(),
        level: "Info".into(),
    };
    let opts = SinkOptions {
        syslog_socket: sock.clone(),
        ..quick(50)
    };
    outage(&spec, &sock, opts, dgram_listener, &unsyslog);
    // An unknown facility or level is refused when the output opens.
    let bad = SinkSpec::Syslog {
        identity: "suricata".into(),
        facility: "local9".into(),
        level: "Info".into(),
    };
    let e = LineWriter::open_with(&bad, None, &quick(50)).err().unwrap();
    assert_eq!(e.kind(), std::io::ErrorKind::InvalidInput);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_listener_that_never_reads_never_stalls_the_producer_and_nothing_is_lost_silently() {
    let dir = temp_dir("ustream-stuck");
    let sock = dir.join("eve.sock");
    let listener = UnixListener::bind(&sock).unwrap();
    let mut opts = quick(100);
    opts.limits.io_timeout = Duration::from_millis(100);
    opts.limits.linger = Duration::from_millis(200);
    let w =
        LineWriter::open_with(&SinkSpec::UnixStream { path: sock.clone() }, None, &opts).unwrap();
    // Connected at the first record: accepted, and then never read.
    let held = std::thread::spawn(move || listener.accept().unwrap().0);
    let n = 20_000;
    let t = std::time::Instant::now();
    for i in 0..n {
        w.write_line(record(i)).unwrap();
    }
    // Far less than one write timeout per record: the producer never waited on the
    // socket.
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
    let counts = w.counts().unwrap();
    let delivered = w.finish().unwrap();
    drop(held.join().unwrap());
    assert!(counts.dropped() > 0);
    assert_eq!(delivered + counts.dropped(), n as u64);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_datagram_too_big_for_the_socket_is_dropped_and_counted_not_retried() {
    let dir = temp_dir("udgram-big");
    let sock = dir.join("eve.sock");
    let (rx, _stop) = dgram_listener(&sock);
    let w = LineWriter::open_with(
        &SinkSpec::UnixDgram { path: sock.clone() },
        None,
        &quick(50),
    )
    .unwrap();
    w.write_line(vec![b'x'; 4 << 20]).unwrap();
    w.write_line(record(1)).unwrap();
    let got = take(&rx, 1);
    assert_eq!(got[0], format!("{}\n", records(1..2)[0]));
    let counts = w.counts().unwrap();
    assert_eq!(w.finish().unwrap(), 1);
    assert_eq!(counts.dropped(), 1);
    std::fs::remove_dir_all(&dir).unwrap();
}
