//! One driver for fuzzing every registered parser with arbitrary bytes: the cargo-fuzz
//! target `fuzz/fuzz_targets/app_flow.rs` and the proptest in `tests/arbitrary.rs` both
//! call [`drive`], so a protocol added to the registry is fuzzed with no new code.
//!
//! Input layout: byte 0 picks the protocol (index into the registry), byte 1 the
//! transport (bit 0: UDP) and the rest is a sequence of records `[ctl, len, bytes...]`:
//! `ctl` bit 0 is the direction, bit 1 makes the record a hole of `len * 16` bytes
//! instead of data (TCP only).

use crate::{registry, AppCtx, AppFlow, Config, Direction, Transport};

/// Feeds `data` to a flow of the protocol and transport it names, then closes the flow
/// and renders every transaction's EVE records and alert object (the paths the engine
/// takes). Never panics on any input: that is what the callers check.
pub fn drive(data: &[u8]) {
    let [p, t, rest @ ..] = data else {
        return;
    };
    let protos = registry::protocols();
    let def = &protos[usize::from(*p) % protos.len()];
    let transport = if t & 1 == 1 {
        Transport::Udp
    } else {
        Transport::Tcp
    };
    // Half the inputs record frames too (`frame` rules), read and marked inspected
    // after each record.
    let config = Config {
        frames: t & 2 != 0,
        ..Config::default()
    };
    let mut ctx = AppCtx::new(config);
    let mut flow = AppFlow::forced(&mut ctx, transport, def.proto);
    let mut rest = rest;
    let mut records = 0u32;
    while let [ctl, len, tail @ ..] = rest {
        let n = usize::from(*len).min(tail.len());
        let (chunk, next) = tail.split_at(n);
        let dir = if ctl & 1 == 0 {
            Direction::ToServer
        } else {
            Direction::ToClient
        };
        match (transport, ctl & 2 != 0) {
            (Transport::Tcp, true) => flow.gap(&mut ctx, dir, u64::from(*len) * 16),
            (Transport::Tcp, false) => flow.parse(&mut ctx, dir, chunk),
            (Transport::Udp, _) => flow.datagram(&mut ctx, dir, chunk),
        }
        rest = next;
        if let Some(f) = flow.frames() {
            // As detection and the alert's `frame` object read them: every pending
            // frame, then each again by its id; its bytes never exceed its length.
            for (fr, b) in f.pending_frames(dir) {
                let again = f.get(dir, fr.id).map(|(g, c)| (g, c.len()));
                assert_eq!(again, Some((fr, b.len())), "frame {} by id", fr.id);
                assert!(b.len() as u64 <= fr.len, "frame {} bytes", fr.id);
            }
            let _ = f.pending_tx_min();
            f.inspected(dir);
        }
        // Rendering walks every live transaction: now and then, not after every record
        // (that would make long inputs quadratic).
        records += 1;
        if records.is_multiple_of(16) {
            render(&flow);
        }
    }
    flow.close(&mut ctx);
    render(&flow);
}

/// Walks every transaction the way detection and logging do.
fn render(flow: &AppFlow) {
    flow.each_tx(&mut |tx| {
        let _ = tx.fingerprint();
        let _ = tx.alert_object();
        tx.log(true, &mut |_, v| drop(v));
        let _ = tx.log_siblings(true);
        if let Some(files) = tx.files() {
            for f in files.iter() {
                let _ = (f.name(), f.size(), f.head());
            }
        }
        for b in crate::buffers().filter(|b| b.proto() == tx.proto()) {
            for dir in [Direction::ToServer, Direction::ToClient] {
                tx.buffers(b, dir, &mut |x| {
                    std::hint::black_box(x);
                });
            }
        }
    });
}
