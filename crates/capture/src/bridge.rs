//! Inline capture (IPS) between two interfaces, as Suricata's AF_PACKET
//! `copy-mode: ips` with `copy-iface`: every frame received on one interface is read
//! through its TPACKET_V2 ring (frames handed over one by one, as Suricata's IPS mode
//! does, rather than V3 blocks that wait to fill or time out) and, unless the caller
//! drops it, sent unchanged out of the other interface.

use std::io;
use std::time::Duration;

use crate::live::{live, Idle, OpenMode};
use crate::{Batch, CaptureError, CaptureStats, Frame, LiveOptions, LiveSource, Source};

/// Largest ring block timeout on a bridge, in milliseconds (a TPACKET_V3 block reaches
/// user space when it is full or this old). The bridge's rings are TPACKET_V2, which hand
/// every frame over at once; the cap stays for the options it is given.
pub const BRIDGE_BLOCK_TIMEOUT_MS: u32 = 1;

/// A [`Source`] over two interfaces joined inline. Frames read from the first have
/// `Frame::interface` 0, from the second 1; [`forward`](Bridge::forward) sends a frame
/// out of the other one. The sockets ignore what this host sends on the interfaces, so
/// forwarded frames are not read back.
///
/// Open one bridge per worker with the same [`LiveOptions::fanout_group`]: the first
/// interface's sockets join that `PACKET_FANOUT` hash group and the second's the next
/// group id. The kernel's fanout hash is symmetric and computed from the packet, and
/// each worker joins both groups in the same order, so both directions of a flow, on
/// either interface, reach the same worker. IP fragments are forwarded as they came
/// (no defragmentation in the fanout group); a fragmented datagram may therefore be
/// inspected on another worker than the rest of its flow.
pub struct Bridge {
    sides: [LiveSource; 2],
    /// Which side is read first by the next `next_batch` (alternates, for fairness).
    turn: usize,
    forwarded: u64,
    forward_errors: u64,
}

impl Bridge {
    /// Opens `a` and `b` for inline use with `opts` (block timeout capped at
    /// [`BRIDGE_BLOCK_TIMEOUT_MS`]). Needs CAP_NET_RAW; the interfaces should have
    /// receive offloads (GRO, LRO) off, as for Suricata's IPS mode: a coalesced frame
    /// larger than the MTU cannot be sent on and is counted in
    /// [`CaptureStats::forward_errors`].
    pub fn open(a: &str, b: &str, opts: &LiveOptions) -> Result<Bridge, CaptureError> {
        if a == b {
            return Err(live(
                a,
                "inline bridge",
                io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "the two interfaces must differ",
                ),
            ));
        }
        let mut opts = opts.clone();
        opts.block_timeout_ms = opts.block_timeout_ms.clamp(1, BRIDGE_BLOCK_TIMEOUT_MS);
        let first = LiveSource::open_mode(
            a,
            &opts,
            OpenMode {
                interface: 0,
                inline: true,
            },
        )?;
        // A fanout group id belongs to one interface: the second side takes the next id.
        opts.fanout_group = opts.fanout_group.map(|g| g.wrapping_add(1));
        let second = LiveSource::open_mode(
            b,
            &opts,
            OpenMode {
                interface: 1,
                inline: true,
            },
        )?;
        Ok(Bridge {
            sides: [first, second],
            turn: 0,
            forwarded: 0,
            forward_errors: 0,
        })
    }

    /// The two interface names, in `Frame::interface` order.
    pub fn interfaces(&self) -> [&str; 2] {
        [self.sides[0].iface(), self.sides[1].iface()]
    }

    /// Sends `frame` out of the interface it did not come from. Returns false when the
    /// kernel refused it, or the frame was captured truncated (longer than a ring slot:
    /// receive offloads left on), which cannot be sent on (counted in
    /// [`CaptureStats::forward_errors`]).
    pub fn forward(&mut self, frame: &Frame<'_>) -> bool {
        if (frame.data.len() as u64) < u64::from(frame.wire_len) {
            self.forward_errors += 1;
            return false;
        }
        let out = if frame.interface == 0 { 1 } else { 0 };
        self.send(out, frame.data)
    }

    /// Sends `data` (a whole frame, link-layer header included) out of interface `side`
    /// (0 or 1; anything else is the second), e.g. a TCP reset answering a `reject`.
    /// Returns false when the kernel refused it (counted).
    pub fn send(&mut self, side: u32, data: &[u8]) -> bool {
        let side = usize::from(side != 0);
        match self.sides[side].send(data) {
            Ok(()) => {
                self.forwarded += 1;
                true
            }
            Err(_) => {
                self.forward_errors += 1;
                false
            }
        }
    }

    /// Waits until either ring may hold frames (or the poll timeout).
    fn wait(&mut self) -> Result<(), CaptureError> {
        let mut pfds = self.sides.each_ref().map(|side| libc::pollfd {
            fd: side.raw_fd(),
            events: libc::POLLIN | libc::POLLERR,
            revents: 0,
        });
        let timeout = self.sides[0].poll_timeout_ms();
        // SAFETY: `pfds` holds `pfds.len()` valid pollfd structures.
        let r = unsafe { libc::poll(pfds.as_mut_ptr(), pfds.len() as libc::nfds_t, timeout) };
        if r < 0 {
            let e = io::Error::last_os_error();
            if e.kind() != io::ErrorKind::Interrupted {
                return Err(live(self.sides[0].iface(), "poll", e));
            }
        } else if r > 0 {
            for (side, pfd) in self.sides.iter_mut().zip(pfds) {
                if pfd.revents & libc::POLLERR != 0 {
                    side.take_socket_error();
                }
            }
        }
        Ok(())
    }
}

impl Source for Bridge {
    fn next_batch(&mut self, batch: &mut Batch, max: usize) -> Result<usize, CaptureError> {
        let max = max.max(1);
        batch.reset_owned();
        loop {
            let first = self.turn;
            self.turn ^= 1;
            self.sides[first].take_ready(batch, max);
            self.sides[first ^ 1].take_ready(batch, max);
            if !batch.is_empty() {
                return Ok(batch.len());
            }
            let idle = [self.sides[0].idle(), self.sides[1].idle()];
            if idle.iter().all(|i| *i == Idle::Ended) {
                return Ok(0);
            }
            if idle.contains(&Idle::Retry) {
                continue;
            }
            if idle.contains(&Idle::Ended) {
                // One side drained, the other not yet told to stop: it will be at once
                // (the stop flag is shared); don't poll the drained socket.
                std::thread::sleep(Duration::from_millis(1));
                continue;
            }
            self.wait()?;
        }
    }

    fn stats(&self) -> CaptureStats {
        let mut s = self.sides[0].stats();
        s.merge(&self.sides[1].stats());
        s.forwarded = self.forwarded;
        s.forward_errors = self.forward_errors;
        s
    }
}
