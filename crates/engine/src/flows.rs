//! Per-flow state the engine keeps beside the flow table's entries: the application
//! layer (and, with detection, the per-flow detection state). Indexed by the flow's
//! slot, which is stable while the flow lives; removed when the flow is flushed.

use app::AppFlow;
use detect::FlowDetect;
use flow::Slot;

/// What the engine keeps for one flow.
#[derive(Debug, Default)]
pub(crate) struct FlowExt {
    /// Application-layer state (TCP and UDP flows).
    pub(crate) app: Option<AppFlow>,
    /// Detection state (flowbits, transactions already matched, flow-level pass).
    pub(crate) detect: FlowDetect,
    /// How far the flow's transactions have been logged as EVE records.
    pub(crate) log: output::LogCursor,
    /// Exception policy `pass-flow`: no more detection on this flow.
    pub(crate) no_inspect: bool,
    /// Bytes handed to the app layer per direction (to server, to client).
    pub(crate) app_fed: [u64; 2],
    /// The app layer failed (simulated error): it gets no more data.
    pub(crate) app_error: bool,
    /// The flow's streams took its app-layer protocol's own stream depth (or it has
    /// none): done once, when the protocol is known.
    pub(crate) depth_set: bool,
    /// The TCP session was seen closed (the app layer got its end of stream then).
    pub(crate) tcp_closed: bool,
    /// What the flow's EVE `flow`/`netflow` records need (ICMP types, TTLs, alerted).
    pub(crate) marks: crate::flow_log::FlowMarks,
    /// A `drop` record was written for a packet of this direction (`flows: start`).
    pub(crate) drops_logged: [bool; 2],
    /// The `tls-store` output wrote the flow's certificate chain (`tls_store.rs`).
    pub(crate) tls_stored: bool,
    /// Where transaction cleanup resumes (`txfree.rs`): the protocol whose
    /// transactions below the id were handed to [`app::AppFlow::free_txs_before`].
    pub(crate) tx_freed: (app::AppProto, u64),
}

/// Flow extensions by slot.
#[derive(Debug, Default)]
pub(crate) struct FlowExts {
    slots: Vec<Option<FlowExt>>,
}

impl FlowExts {
    /// The extension of `slot`, created with `app` the first time.
    pub(crate) fn get_or_create(
        &mut self,
        slot: Slot,
        app: impl FnOnce() -> Option<AppFlow>,
    ) -> &mut FlowExt {
        let i = slot as usize;
        if i >= self.slots.len() {
            self.slots.resize_with(i + 1, || None);
        }
        self.slots[i].get_or_insert_with(|| FlowExt {
            app: app(),
            detect: FlowDetect::new(),
            log: output::LogCursor::default(),
            no_inspect: false,
            app_fed: [0; 2],
            app_error: false,
            depth_set: false,
            tcp_closed: false,
            marks: Default::default(),
            drops_logged: [false; 2],
            tls_stored: false,
            tx_freed: (app::AppProto::Unknown, 0),
        })
    }

    /// The extension of `slot`, if the flow has one.
    pub(crate) fn get_mut(&mut self, slot: Slot) -> Option<&mut FlowExt> {
        self.slots.get_mut(slot as usize).and_then(Option::as_mut)
    }

    /// Starts the detection state of every live flow afresh (the rules changed).
    pub(crate) fn reset_detect(&mut self) {
        for ext in self.slots.iter_mut().flatten() {
            ext.detect = FlowDetect::new();
        }
    }

    /// Takes the extension of `slot` out (the flow ended).
    pub(crate) fn remove(&mut self, slot: Slot) -> Option<FlowExt> {
        self.slots.get_mut(slot as usize).and_then(Option::take)
    }
}
