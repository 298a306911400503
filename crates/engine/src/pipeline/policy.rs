//! Stage (d), policy: IPS verdicts, the exception policies (memory caps, app-layer
//! errors) and the conditions forced for QA (`--simulate-*`).

use crate::config::EngineConfig;
use crate::exception::{Condition, ExceptionPolicy, Policies, PolicyStats, Simulate};
use crate::flows::FlowExt;
use crate::verdict::Ips;
use output::stats::StatsTree;

/// What an exception policy leaves of a packet's processing (in increasing order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Effect {
    /// Nothing changes.
    Continue,
    /// The app layer goes on; detection skips the packet.
    NoDetect,
    /// The packet goes no further (dropped, or its flow bypassed).
    Stop,
}

/// The verdicts, exception policies and simulated conditions of one pipeline.
pub(super) struct Policy {
    /// IPS verdicts and counters (`EngineConfig::ips`).
    pub(super) ips: Ips,
    /// Exception policies (memory caps, app-layer errors) and how often each applied.
    exceptions: Policies,
    stats: PolicyStats,
    /// Conditions forced at given packets (`--simulate-*`).
    pub(super) simulate: Simulate,
}

impl Policy {
    /// The policies `config` asks for.
    pub(super) fn new(config: &EngineConfig) -> Self {
        Policy {
            ips: Ips::new(config.ips),
            exceptions: config.exceptions,
            stats: PolicyStats::default(),
            simulate: config.simulate,
        }
    }

    /// Applies the policy of condition `c` to a packet and (when it has one) its flow
    /// `ext`: counts it, drops in IPS mode, marks the flow. Returns the packet's
    /// [`Effect`] and whether the flow is to be bypassed.
    pub(super) fn apply(&mut self, c: Condition, ext: Option<&mut FlowExt>) -> (Effect, bool) {
        let policy = self.exceptions.get(c);
        if policy == ExceptionPolicy::Ignore {
            return (Effect::Continue, false);
        }
        self.stats.record(c, policy);
        match policy {
            ExceptionPolicy::Ignore => (Effect::Continue, false),
            ExceptionPolicy::PassPacket => (Effect::NoDetect, false),
            ExceptionPolicy::PassFlow => {
                if let Some(e) = ext {
                    e.no_inspect = true;
                }
                (Effect::NoDetect, false)
            }
            ExceptionPolicy::Bypass => (Effect::Stop, ext.is_some()),
            ExceptionPolicy::DropPacket => {
                self.ips.exception_drop(c, false);
                (Effect::Stop, false)
            }
            ExceptionPolicy::DropFlow | ExceptionPolicy::Reject => {
                self.ips
                    .exception_drop(c, policy == ExceptionPolicy::Reject);
                if let Some(e) = ext {
                    e.detect.drop_flow();
                }
                (Effect::Stop, false)
            }
        }
    }

    /// How often each exception policy applied, into `tree`.
    pub(super) fn add_exception_counters(&self, tree: &mut StatsTree) {
        for (name, v) in self.stats.counters(&self.exceptions) {
            tree.add(&name, v);
        }
    }
}
