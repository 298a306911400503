//! Stage (c), detection: the detection stage (when rules are loaded), the alert sink
//! its alerts go to, and whether thresholds are held for a check shared by workers.

use crate::alerts::{AlertSink, PendingAlert};
use crate::detection::{DetectStage, Origin};
use crate::offload::OffloadStage;
use crate::timing::StageTimer;
use crate::verdict::Ips;
use std::sync::Arc;
use wire::Packet;

/// Detection and alerts of one pipeline.
pub(super) struct Detection {
    /// Detection, `None` without rules.
    pub(super) stage: Option<DetectStage>,
    /// Where alerts (and EVE app-layer records) go.
    pub(super) sink: AlertSink,
    /// Alerts of rules tracked by source, destination or rule are held for a shared
    /// threshold check ([`super::Pipeline::share_thresholds`]).
    share_thresholds: bool,
}

impl Detection {
    /// Detection by `stage` into `sink`.
    pub(super) fn new(stage: Option<DetectStage>, sink: AlertSink) -> Self {
        Detection {
            stage,
            sink,
            share_thresholds: false,
        }
    }

    /// The GPU offload stage, when detection has one.
    pub(super) fn offload(&mut self) -> Option<&mut OffloadStage> {
        self.stage.as_mut().and_then(|d| d.offload.as_mut())
    }

    /// Inspects a packet without a flow (when detection is on); its verdict goes to
    /// `ips`.
    pub(super) fn packet(&mut self, p: &Packet, buf: &[u8], origin: Origin, ips: &mut Ips) {
        if let Some(det) = self.stage.as_mut() {
            det.packet(p, buf, origin, &mut self.sink);
            ips.apply(det.verdict, None);
        }
    }

    /// Holds the alerts of rules whose threshold is tracked by source, destination or
    /// rule for a check shared by every worker.
    pub(super) fn share_thresholds(&mut self) {
        self.share_thresholds = true;
        self.sink.deferred.get_or_insert_with(Vec::new);
        if let Some(d) = self.stage.as_mut() {
            d.share_thresholds();
        }
    }

    /// The alerts held for the shared threshold check since the last call.
    pub(super) fn held_alerts(&mut self) -> &mut Vec<PendingAlert> {
        self.sink.deferred.get_or_insert_with(Vec::new)
    }

    /// Runs detection with `detector` from now on (`None`: no detection), keeping the
    /// detection timer and the GPU offload stage; `timing`: stage timing is on.
    pub(super) fn set_detector(&mut self, detector: Option<Arc<detect::Detector>>, timing: bool) {
        let timer = self.stage.as_ref().map(|d| d.timer.clone());
        // GPU offload stays built for the rules it was set up with: after a reload its
        // cycles count as stale and matching runs on the CPU.
        let offload = self.stage.as_mut().and_then(|d| d.offload.take());
        let share = self.share_thresholds;
        self.stage = detector.map(|d| {
            let mut stage = DetectStage::new(d, timing);
            if let Some(t) = &timer {
                stage.timer = t.clone();
            }
            stage.offload = offload;
            if share {
                stage.share_thresholds();
            }
            stage
        });
    }

    /// The detection stage's time, merged into `timer`.
    pub(super) fn merge_times(&self, timer: &mut StageTimer) {
        if let Some(det) = &self.stage {
            timer.merge(&det.timer);
        }
    }
}
