//! The end of flows: sweeping idle flows, shutdown, and flushing the flows that ended
//! on pseudo-packets.

use super::{EndReason, Ended, FlowTracker, StreamData, NO_STREAM};
use crate::reasm::{Chunk, Consumer, Reassembly};
use crate::tcp::{Direction, TcpState};

impl FlowTracker {
    /// True when ended flows wait for [`FlowTracker::drain_ended`].
    pub fn has_ended(&self) -> bool {
        self.table.has_ended()
    }

    /// End the flows of sweep part `part` (see [`FlowTable::sweep`]) idle past their
    /// timeout at `now_us`, and fragments waiting longer than the defrag timeout (call
    /// periodically with parts 0, 1, 2, ..., like Suricata's flow manager).
    ///
    /// [`FlowTable::sweep`]: crate::table::FlowTable::sweep
    pub fn sweep(&mut self, now_us: u64, part: usize) {
        self.now_us = now_us;
        self.table.sweep(now_us, part);
        self.defrag.expire(now_us);
    }

    /// End every flow (end of capture). Follow with [`FlowTracker::drain_ended`].
    pub fn shutdown(&mut self) {
        self.shutting_down = true;
        self.table.end_all();
    }

    /// Flush and free every ended flow: `f` sees each with whatever stream data its
    /// consumers had not taken yet (the pseudo-packet inspection).
    pub fn drain_ended(&mut self, mut f: impl FnMut(Ended<'_>)) {
        while let Some(slot) = self.table.pop_ended() {
            let (key, mut flow, last_us) = {
                let e = self.table.entry(slot);
                (e.key, e.value, e.last_us)
            };
            let reason = if self.shutting_down {
                EndReason::Shutdown
            } else if self.table.emergency() {
                EndReason::Emergency
            } else {
                EndReason::Timeout
            };
            if flow.locally_bypassed() {
                self.stats.end_bypassed += 1;
            } else {
                self.stats.end_state[flow.state as usize] += 1;
            }
            if flow.tcp.state != TcpState::None {
                self.stats.end_tcp_state[flow.tcp.state as usize] += 1;
                if self.sessions_alive > 0 {
                    self.sessions_alive -= 1;
                    // At shutdown the share stays taken (see `FlowTable::end_all`).
                    if !self.shutting_down {
                        self.cfg.shared.sessions.give(crate::SESSION_BYTES);
                    }
                }
            }
            let [s0, s1, s2, s3] = &mut self.scratch;
            for s in [&mut *s0, &mut *s1, &mut *s2, &mut *s3] {
                s.clear();
            }
            // A bypassed flow is not flushed: what its streams held stays unseen.
            if flow.streams != NO_STREAM && !flow.locally_bypassed() {
                let pair = &mut self.streams[flow.streams as usize];
                let mut any = false;
                for (k, (sa, sr)) in [(&mut *s0, &mut *s2), (&mut *s1, &mut *s3)]
                    .into_iter()
                    .enumerate()
                {
                    // A closed session keeps unacknowledged data from the app layer.
                    let g = if flow.tcp.state == TcpState::Closed {
                        let upto = pair[k].offset_of(flow.tcp.half[k].last_ack).unwrap_or(0);
                        pair[k].take(Consumer::App, upto, false, sa)
                    } else {
                        pair[k].take(Consumer::App, 0, true, sa)
                    };
                    self.stats.gaps += g as u64;
                    flow.gaps[k] |= g > 0;
                    // Inline, raw inspection ran on each packet's bytes at arrival:
                    // what a session closed with the FIN handshake left (a Fast Open
                    // SYN's data, taken by the stream before the session existed) is
                    // not inspected at the end, as Suricata 7.0.10 (difftest
                    // `tcpseg/tfo-acked` in IPS mode); an open session's is
                    // (bug-4571-03: a midstream pick-up's data).
                    if !(self.cfg.inline && flow.tcp.state == TcpState::Closed) {
                        pair[k].take(Consumer::Raw, 0, true, sr);
                    }
                    any |= !sa.is_empty() || !sr.is_empty();
                }
                if any {
                    self.stats.pseudo += 1;
                }
            }
            {
                let e = self.table.entry(slot);
                let pair =
                    (flow.streams != NO_STREAM).then(|| &self.streams[flow.streams as usize]);
                let [s0, s1, s2, s3] = &self.scratch;
                fn sd<'a>(
                    k: usize,
                    ch: &'a [Chunk],
                    pair: Option<&'a [Reassembly; 2]>,
                ) -> StreamData<'a> {
                    let dir = if k == 0 {
                        Direction::ToServer
                    } else {
                        Direction::ToClient
                    };
                    StreamData {
                        dir,
                        chunks: ch,
                        stream: pair.map(|p| &p[k]),
                    }
                }
                f(Ended {
                    slot,
                    key,
                    client_is_src: !e.value.client_is_dst,
                    flow: &flow,
                    app: [sd(0, s0, pair), sd(1, s1, pair)],
                    raw: [sd(0, s2, pair), sd(1, s3, pair)],
                    reason,
                    emergency: reason == EndReason::Emergency,
                    last_us,
                });
            }
            if flow.streams != NO_STREAM {
                self.free_stream_pair(flow.streams);
            }
            self.table.release(slot);
        }
        self.shutting_down = false;
    }
}
