//! Transaction cleanup, as Suricata's: after a packet went through the app layer,
//! detection and the loggers, the flow's transactions that every consumer is done with
//! are freed, so a long keep-alive flow holds only the transactions still in progress.
//! A transaction goes once it is complete both ways and inspected in its final state in
//! each direction that has transaction rules ([`detect::Detector::tx_done_before`]),
//! no frame of it waits for inspection (`app::frames::FlowFrames::pending_tx_min`),
//! and its records and files were written ([`output::AppLogger::done_before`]).

use crate::flows::FlowExt;
use detect::Detector;
use output::AppLogger;

/// Frees the transactions of `ext`'s flow that detection (`detector`, `None`: no
/// detection on the flow) and `logger` are done with. Returns how many went.
pub(crate) fn free_done(
    ext: &mut FlowExt,
    ctx: &mut app::AppCtx,
    detector: Option<&Detector>,
    logger: &AppLogger,
) -> u64 {
    let Some(app) = ext.app.as_ref() else {
        return 0;
    };
    let mut bound = logger.done_before(app, &ext.log);
    if let Some(det) = detector.filter(|_| !ext.no_inspect) {
        bound = bound.min(det.tx_done_before(&ext.detect));
        // An HTTP/1 message's frame still to inspect keeps its transaction (its
        // alert writes it).
        if let Some(t) = app.frames().and_then(|f| f.pending_tx_min()) {
            bound = bound.min(t);
        }
    }
    // Complete both ways, in order: the first transaction still in progress stops it.
    // The walk resumes where the last cleanup ended: the transactions below were freed
    // then, or kept by a state that holds them in a bounded table of its own (SMB),
    // complete and below an earlier bound (the bounds only rise). Without this, such a
    // flow's hundreds of finished transactions were walked and handed over again on
    // every packet.
    let proto = app.app_proto();
    let from = if ext.tx_freed.0 == proto {
        ext.tx_freed.1
    } else {
        0
    };
    if bound <= from {
        return 0;
    }
    let (mut first, mut upto, mut open) = (None, None, true);
    app.each_tx_from(from, &mut |tx| {
        if !open {
            return;
        }
        if tx.id() >= bound || !tx.is_final() {
            open = false;
            return;
        }
        first.get_or_insert(tx.id());
        upto = Some(tx.id() + 1);
    });
    let (Some(first), Some(upto)) = (first, upto) else {
        return 0;
    };
    if let Some(app) = ext.app.as_mut() {
        app.free_txs_before(ctx, upto);
    }
    ext.detect.forget_txs_before(upto);
    ext.tx_freed = (proto, upto);
    upto - first
}
