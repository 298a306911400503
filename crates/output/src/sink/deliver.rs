//! The delivery thread of a socket sink: takes records from the [`Queue`], hands them
//! to a [`Transport`], and when the destination goes away keeps them buffered and
//! reconnects with backoff, without the producers ever waiting on it.

use std::io;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::queue::Queue;
use super::SinkLimits;

/// What became of a batch handed to [`Transport::send`].
#[derive(Debug)]
pub(crate) struct Sent {
    /// Records from the front of the batch that are settled (delivered or refused).
    pub done: usize,
    /// Of those, the records the destination refused (counted as dropped).
    pub refused: u64,
    /// The connection failed after `done` records: the rest go again on a new one.
    pub broken: Option<io::Error>,
}

impl Sent {
    /// The whole batch delivered.
    pub(crate) fn all(n: usize) -> Sent {
        Sent {
            done: n,
            refused: 0,
            broken: None,
        }
    }
}

/// One kind of destination (a Unix socket, syslog, Redis).
pub(crate) trait Transport: Send {
    /// Records per send (a Redis pipeline's batch size; 1 sends each as it comes).
    fn batch(&self) -> usize;
    /// Whether to wait (up to [`SinkLimits::flush_idle`]) for a whole batch before
    /// sending a part one (Redis pipelining); otherwise what is there goes at once.
    fn gather(&self) -> bool {
        false
    }
    /// Makes the connection (again).
    fn connect(&mut self, limits: &SinkLimits) -> io::Result<()>;
    /// Sends `records` (each without its newline) over the connection.
    fn send(&mut self, records: &[Vec<u8>]) -> Sent;
    /// Forgets the connection.
    fn disconnect(&mut self);
}

/// Runs the delivery loop until the queue is closed and empty (or the linger at
/// shutdown ran out); returns the records delivered.
pub(crate) fn run(queue: Arc<Queue>, mut t: Box<dyn Transport>, limits: SinkLimits) -> u64 {
    let mut connected = false;
    let mut ever_connected = false;
    let mut backoff = limits.backoff_min;
    let mut next_try = Instant::now();
    let mut linger_end: Option<Instant> = None;
    let mut lost_at: Option<Instant> = None;
    loop {
        if linger_end.is_none() && queue.closing() {
            linger_end = Some(Instant::now() + limits.linger);
        }
        let idle = if t.gather() {
            limits.flush_idle
        } else {
            Duration::ZERO
        };
        let Some(batch) = queue.take(t.batch(), idle, linger_end) else {
            break;
        };
        if !connected {
            let now = Instant::now();
            if now < next_try {
                queue.settle(batch, 0);
                let wake = linger_end.map_or(next_try, |l| l.min(next_try));
                queue.pause(wake);
                // A close during the pause starts the linger at the top of the loop.
                if linger_end.is_some_and(|l| Instant::now() >= l) {
                    break;
                }
                continue;
            }
            match t.connect(&limits) {
                Ok(()) => {
                    connected = true;
                    if ever_connected {
                        queue.counts.reconnects.fetch_add(1, Ordering::Relaxed);
                    }
                    if let Some(at) = lost_at.take() {
                        tracing::info!(
                            "output {}: connected again after {:.1}s; {} records dropped so far",
                            queue.name,
                            at.elapsed().as_secs_f64(),
                            queue.counts.dropped.load(Ordering::Relaxed)
                        );
                    }
                    ever_connected = true;
                }
                Err(e) => {
                    if lost_at.is_none() {
                        lost_at = Some(now);
                        tracing::warn!(
                            "output {}: cannot connect: {e}; buffering records and retrying",
                            queue.name
                        );
                    }
                    next_try = now + backoff;
                    backoff = (backoff * 2).min(limits.backoff_max);
                    queue.settle(batch, 0);
                    if linger_end.is_some_and(|l| now >= l) {
                        break;
                    }
                    continue;
                }
            }
        }
        let sent = t.send(&batch.records);
        let delivered = (sent.done as u64).saturating_sub(sent.refused);
        queue
            .counts
            .delivered
            .fetch_add(delivered, Ordering::Relaxed);
        queue.counts.add_dropped(sent.refused);
        queue.settle(batch, sent.done);
        // At shutdown the linger counts from the last progress: a destination that
        // takes records keeps getting them until none are left.
        if sent.done > 0 {
            // The backoff starts again only once records go through, so a destination
            // that accepts connections and then fails them is not hammered.
            backoff = limits.backoff_min;
            if linger_end.is_some() {
                linger_end = Some(Instant::now() + limits.linger);
            }
        }
        if let Some(e) = sent.broken {
            tracing::warn!(
                "output {}: connection lost: {e}; buffering records and reconnecting",
                queue.name
            );
            t.disconnect();
            connected = false;
            lost_at.get_or_insert_with(Instant::now);
            next_try = Instant::now() + backoff;
            backoff = (backoff * 2).min(limits.backoff_max);
        }
    }
    let left = queue.abandon(None);
    if left > 0 {
        tracing::warn!(
            "output {}: {left} records could not be delivered before shutdown (dropped)",
            queue.name
        );
    }
    queue.counts.delivered.load(Ordering::Relaxed)
}

/// The backoff and linger settings in effect for tests that need them short.
#[cfg(test)]
pub(crate) fn quick_limits() -> SinkLimits {
    SinkLimits {
        backoff_min: Duration::from_millis(10),
        backoff_max: Duration::from_millis(100),
        linger: Duration::from_millis(500),
        ..SinkLimits::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// A destination that is up or down as the test says, and records what it got.
    struct Fake {
        up: Arc<Mutex<bool>>,
        got: Arc<Mutex<Vec<Vec<u8>>>>,
    }

    impl Transport for Fake {
        fn batch(&self) -> usize {
            4
        }
        fn gather(&self) -> bool {
            true
        }
        fn connect(&mut self, _: &SinkLimits) -> io::Result<()> {
            if *self.up.lock().unwrap() {
                Ok(())
            } else {
                Err(io::ErrorKind::ConnectionRefused.into())
            }
        }
        fn send(&mut self, records: &[Vec<u8>]) -> Sent {
            if !*self.up.lock().unwrap() {
                return Sent {
                    done: 0,
                    refused: 0,
                    broken: Some(io::ErrorKind::BrokenPipe.into()),
                };
            }
            // "bad" is refused, as a Redis error reply would be.
            let refused = records.iter().filter(|r| r.as_slice() == b"bad").count();
            self.got
                .lock()
                .unwrap()
                .extend(records.iter().filter(|r| r.as_slice() != b"bad").cloned());
            Sent {
                done: records.len(),
                refused: refused as u64,
                broken: None,
            }
        }
        fn disconnect(&mut self) {}
    }

    #[test]
    fn buffers_while_down_then_delivers_in_order() {
        let up = Arc::new(Mutex::new(false));
        let got = Arc::new(Mutex::new(Vec::new()));
        let limits = SinkLimits {
            buffer_records: 50,
            flush_idle: Duration::from_millis(5),
            ..quick_limits()
        };
        let q = Arc::new(Queue::new(limits.clone(), "fake".into()));
        let fake = Fake {
            up: up.clone(),
            got: got.clone(),
        };
        let (q2, l2) = (q.clone(), limits.clone());
        let th = std::thread::spawn(move || run(q2, Box::new(fake), l2));
        for i in 0..80u32 {
            q.push(i.to_string().into_bytes());
        }
        q.push(b"bad".to_vec());
        std::thread::sleep(Duration::from_millis(50));
        *up.lock().unwrap() = true;
        std::thread::sleep(Duration::from_millis(300));
        q.close();
        let delivered = th.join().unwrap();
        let got = got.lock().unwrap();
        let want: Vec<Vec<u8>> = (0..50u32).map(|i| i.to_string().into_bytes()).collect();
        assert_eq!(*got, want);
        assert_eq!(delivered, 50);
        // 30 past the bound, and "bad" too.
        assert_eq!(q.counts.dropped.load(Ordering::Relaxed), 31);
    }

    /// Accepts every connection and fails every send.
    struct Flapping {
        connects: Arc<Mutex<u32>>,
    }

    impl Transport for Flapping {
        fn batch(&self) -> usize {
            1
        }
        fn connect(&mut self, _: &SinkLimits) -> io::Result<()> {
            *self.connects.lock().unwrap() += 1;
            Ok(())
        }
        fn send(&mut self, _: &[Vec<u8>]) -> Sent {
            Sent {
                done: 0,
                refused: 0,
                broken: Some(io::ErrorKind::ConnectionReset.into()),
            }
        }
        fn disconnect(&mut self) {}
    }

    #[test]
    fn a_destination_that_fails_every_send_gets_backoff_not_a_storm() {
        let connects = Arc::new(Mutex::new(0));
        let q = Arc::new(Queue::new(quick_limits(), "flap".into()));
        let t = Flapping {
            connects: connects.clone(),
        };
        let q2 = q.clone();
        let th = std::thread::spawn(move || run(q2, Box::new(t), quick_limits()));
        q.push(b"x".to_vec());
        std::thread::sleep(Duration::from_millis(400));
        // 10, 20, 40, 80, then every 100 ms: about 6, not one per 10 ms.
        let n = *connects.lock().unwrap();
        assert!((3..=10).contains(&n), "{n} connections in 400 ms");
        q.close();
        assert_eq!(th.join().unwrap(), 0);
        assert_eq!(q.counts.dropped(), 1);
    }

    #[test]
    fn linger_runs_out_when_the_destination_never_comes() {
        let up = Arc::new(Mutex::new(false));
        let q = Arc::new(Queue::new(quick_limits(), "fake".into()));
        let fake = Fake {
            up,
            got: Arc::default(),
        };
        let q2 = q.clone();
        let th = std::thread::spawn(move || run(q2, Box::new(fake), quick_limits()));
        for _ in 0..10 {
            q.push(b"x".to_vec());
        }
        let t = Instant::now();
        q.close();
        assert_eq!(th.join().unwrap(), 0);
        assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
        assert_eq!(q.counts.dropped.load(Ordering::Relaxed), 10);
    }
}
