//! The application-layer memcaps: `app-layer.protocols.http.memcap` and
//! `app-layer.protocols.ftp.memcap`, each one budget of bytes for the whole engine
//! (every worker's configuration clones the same [`AppMemcaps`] handle), reported as
//! Suricata's `http.memuse`/`ftp.memuse` (bytes held now, each worker reporting its
//! own flows' share, [`WorkerUse`]) and `http.memcap`/
//! `ftp.memcap` (how often the cap refused memory).
//!
//! What is counted is Osprey's own estimate of a flow's parser state
//! ([`crate::http::HttpState`], [`crate::ftp::FtpState`] and the FTP data connections'
//! state): the state itself, its transactions with their buffers and files, the
//! parser's pending lines. A flow's share is re-measured after each chunk its parser is
//! handed and after its transactions are freed, and given back when the flow's
//! application state goes ([`Charge`]'s `Drop`). When a flow's growth does not fit
//! under the cap, its parser stops for good, as libhtp stops a connection whose
//! allocation failed: the refusal is counted (`http.memcap`, `ftp.memcap`), the flow
//! reports an application-layer error (`app_layer.error.<proto>.alloc`, and
//! `app-layer.error-policy` applies), and what it already holds stays counted until its
//! transactions are freed or the flow ends. Suricata checks each allocation of libhtp
//! and of its FTP parser instead, so the two engines refuse at different points; both
//! default to no cap.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Which application-layer budget a state counts against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pool {
    /// HTTP/1 (`app-layer.protocols.http.memcap`, `http.memuse`).
    Http = 0,
    /// FTP control and data connections (`app-layer.protocols.ftp.memcap`,
    /// `ftp.memuse`).
    Ftp = 1,
}

impl Pool {
    /// The `stats.json` name of the bytes held (`http.memuse`, `ftp.memuse`).
    pub fn memuse_name(self) -> &'static str {
        match self {
            Pool::Http => "http.memuse",
            Pool::Ftp => "ftp.memuse",
        }
    }
}

#[derive(Debug, Default)]
struct Shared {
    used: [AtomicUsize; 2],
    /// Caps in bytes, 0 for none.
    caps: [usize; 2],
}

/// The HTTP and FTP budgets of a run, shared by every worker (clones share them).
#[derive(Clone, Debug, Default)]
pub struct AppMemcaps(Arc<Shared>);

impl AppMemcaps {
    /// Budgets of `http` and `ftp` bytes (0: unlimited, Suricata's default for both).
    pub fn new(http: usize, ftp: usize) -> Self {
        AppMemcaps(Arc::new(Shared {
            used: Default::default(),
            caps: [http, ftp],
        }))
    }

    /// The cap of `pool` in bytes (0: none).
    pub fn cap(&self, pool: Pool) -> usize {
        self.0.caps[pool as usize]
    }

    /// Bytes `pool` holds now, over every worker.
    pub fn used(&self, pool: Pool) -> usize {
        self.0.used[pool as usize].load(Ordering::Relaxed)
    }

    /// Takes `n` bytes of `pool` if they fit under its cap; false (nothing taken)
    /// otherwise.
    fn try_take(&self, pool: Pool, n: usize) -> bool {
        let cap = self.cap(pool);
        let used = &self.0.used[pool as usize];
        if cap == 0 {
            used.fetch_add(n, Ordering::Relaxed);
            return true;
        }
        used.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |v| {
            v.checked_add(n).filter(|&t| t <= cap)
        })
        .is_ok()
    }

    /// Takes `n` bytes of `pool` whatever its cap (memory that exists already).
    fn force(&self, pool: Pool, n: usize) {
        self.0.used[pool as usize].fetch_add(n, Ordering::Relaxed);
    }

    /// Gives `n` bytes of `pool` back.
    fn give(&self, pool: Pool, n: usize) {
        let _ =
            self.0.used[pool as usize].fetch_update(Ordering::Relaxed, Ordering::Relaxed, |v| {
                Some(v.saturating_sub(n))
            });
    }
}

/// The bytes one worker's flows hold per budget (its `http.memuse`/`ftp.memuse`: the
/// engine's are the sum of its workers'). Clones share the counts: each worker makes
/// its own with [`WorkerUse::default`].
#[derive(Clone, Debug, Default)]
pub struct WorkerUse(Arc<[AtomicUsize; 2]>);

impl WorkerUse {
    /// Bytes this worker's flows hold in `pool`.
    pub fn used(&self, pool: Pool) -> usize {
        self.0[pool as usize].load(Ordering::Relaxed)
    }

    fn add(&self, pool: Pool, n: usize) {
        self.0[pool as usize].fetch_add(n, Ordering::Relaxed);
    }

    fn sub(&self, pool: Pool, n: usize) {
        let _ = self.0[pool as usize].fetch_update(Ordering::Relaxed, Ordering::Relaxed, |v| {
            Some(v.saturating_sub(n))
        });
    }
}

/// The bytes one flow's application state holds in one budget; given back when dropped.
#[derive(Debug)]
pub struct Charge {
    caps: AppMemcaps,
    worker: WorkerUse,
    pool: Pool,
    bytes: usize,
    refused: bool,
}

impl Charge {
    /// A charge of nothing yet against `pool` of `caps`, held by a flow of `worker`.
    pub fn new(caps: &AppMemcaps, worker: &WorkerUse, pool: Pool) -> Self {
        Charge {
            caps: caps.clone(),
            worker: worker.clone(),
            pool,
            bytes: 0,
            refused: false,
        }
    }

    /// Whether growth was ever refused (the flow's parser then stopped).
    pub fn refused(&self) -> bool {
        self.refused
    }

    /// The budget it counts against.
    pub fn pool(&self) -> Pool {
        self.pool
    }

    /// Bytes held now.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// The state now holds `bytes`: takes or gives the difference. False when growth
    /// did not fit under the cap; the bytes are then counted anyway (they are
    /// allocated), and the caller stops the parser.
    pub fn set(&mut self, bytes: usize) -> bool {
        let fits = if bytes > self.bytes {
            let grow = bytes - self.bytes;
            let ok = self.caps.try_take(self.pool, grow);
            if !ok {
                self.caps.force(self.pool, grow);
                self.refused = true;
            }
            self.worker.add(self.pool, grow);
            ok
        } else {
            self.caps.give(self.pool, self.bytes - bytes);
            self.worker.sub(self.pool, self.bytes - bytes);
            true
        };
        self.bytes = bytes;
        fits
    }
}

impl Drop for Charge {
    fn drop(&mut self) {
        self.caps.give(self.pool, self.bytes);
        self.worker.sub(self.pool, self.bytes);
    }
}

/// Heap bytes of a byte buffer (its capacity).
pub(crate) fn vec_bytes<T>(v: &Vec<T>) -> usize {
    v.capacity() * std::mem::size_of::<T>()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charges_share_one_budget_and_give_back_on_drop() {
        let caps = AppMemcaps::new(1000, 0);
        let (w1, w2) = (WorkerUse::default(), WorkerUse::default());
        let mut a = Charge::new(&caps, &w1, Pool::Http);
        let mut b = Charge::new(&caps.clone(), &w2, Pool::Http);
        assert!(a.set(600));
        assert!(!a.refused());
        assert!(!b.set(500), "600 + 500 is over the cap");
        assert!(b.refused());
        assert_eq!(
            caps.used(Pool::Http),
            1100,
            "refused growth is still counted"
        );
        assert!(b.set(300), "shrinking always fits");
        assert_eq!(caps.used(Pool::Http), 900);
        assert_eq!((w1.used(Pool::Http), w2.used(Pool::Http)), (600, 300));
        assert!(b.set(400));
        assert!(!b.set(401));
        drop(a);
        assert_eq!(caps.used(Pool::Http), 401);
        assert_eq!((w1.used(Pool::Http), w2.used(Pool::Http)), (0, 401));
        drop(b);
        assert_eq!(caps.used(Pool::Http), 0);
        assert_eq!(w2.used(Pool::Http), 0);
        assert_eq!(caps.used(Pool::Ftp), 0);
    }

    #[test]
    fn no_cap_counts_without_refusing() {
        let caps = AppMemcaps::default();
        let mut c = Charge::new(&caps, &WorkerUse::default(), Pool::Ftp);
        assert!(c.set(usize::MAX / 4));
        assert_eq!(caps.used(Pool::Ftp), usize::MAX / 4);
        assert_eq!(caps.cap(Pool::Ftp), 0);
        drop(c);
        assert_eq!(caps.used(Pool::Ftp), 0);
    }

    fn http_flow(ctx: &mut crate::AppCtx) -> crate::AppFlow {
        use crate::{AppFlow, Direction, Transport};
        let mut f = AppFlow::new(Transport::Tcp, 40000, 80);
        f.parse(
            ctx,
            Direction::ToServer,
            b"GET /a HTTP/1.1\r\nHost: h\r\n\r\n",
        );
        f.parse(
            ctx,
            Direction::ToClient,
            b"HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n",
        );
        f.parse(ctx, Direction::ToClient, &[b'x'; 2500]);
        f
    }

    #[test]
    fn an_http_flow_over_the_cap_stops_with_an_alloc_error() {
        use crate::{AppCtx, Counter, Direction};
        let mut ctx = AppCtx::default();
        let mut free = http_flow(&mut ctx);
        assert!(!free.take_error());
        let held = ctx.config.memcaps.used(Pool::Http);
        assert!(held > 2500, "the body is counted: {held}");
        let name = |ctx: &AppCtx, n: &str| ctx.counters().find(|(k, _)| *k == n).unwrap().1;
        assert_eq!(name(&ctx, "http.memuse"), held as u64);
        assert_eq!(ctx.memuse.used(Pool::Http), held);
        free.free_txs_before(&mut ctx, 1);
        assert!(
            ctx.config.memcaps.used(Pool::Http) < held,
            "freed transactions"
        );
        drop(free);
        assert_eq!(ctx.config.memcaps.used(Pool::Http), 0);

        // A cap the second flow's body does not fit under.
        ctx.config.memcaps = AppMemcaps::new(held + held / 2, 0);
        let first = http_flow(&mut ctx);
        let mut second = http_flow(&mut ctx);
        assert!(second.take_error(), "the parser stopped");
        assert!(!second.take_error(), "reported once");
        assert_eq!(ctx.counters.get(Counter::HttpMemcap), 1);
        assert_eq!(ctx.counters.get(Counter::ErrorHttpAlloc), 1);
        let before = ctx.config.memcaps.used(Pool::Http);
        second.parse(&mut ctx, Direction::ToClient, &[b'y'; 2500]);
        assert_eq!(
            ctx.config.memcaps.used(Pool::Http),
            before,
            "nothing parsed"
        );
        assert_eq!(ctx.counters.get(Counter::HttpMemcap), 1, "counted once");
        drop((first, second));
        assert_eq!(ctx.config.memcaps.used(Pool::Http), 0);
        assert_eq!(name(&ctx, "http.memuse"), 0);
    }

    #[test]
    fn threads_never_exceed_the_cap_with_granted_bytes() {
        let caps = AppMemcaps::new(10_000, 0);
        let hs: Vec<_> = (0..4)
            .map(|_| {
                let caps = caps.clone();
                std::thread::spawn(move || {
                    let mut granted = 0;
                    for _ in 0..1000 {
                        if caps.try_take(Pool::Http, 10) {
                            granted += 10;
                        }
                    }
                    granted
                })
            })
            .collect();
        let total: usize = hs.into_iter().map(|h| h.join().unwrap()).sum();
        assert_eq!(total, 10_000);
        assert_eq!(caps.used(Pool::Http), 10_000);
    }
}
