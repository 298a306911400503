//! How the sockets of one `PACKET_FANOUT` group share an interface's traffic: Suricata's
//! `cluster-type` (and its `defrag` option) as the kernel's fanout mode and flags.
//!
//! Sockets join one group when they name the same group id on the same interface (in
//! the same network namespace) with the same mode and flags, whichever process opened
//! them: several Osprey processes, each with its own [`Fanout`], read one link as one
//! group when their settings agree (the kernel refuses a socket whose mode or flags
//! differ from the group's with `EINVAL`).

use std::fmt;

/// The kernel's choice of socket for a frame (`PACKET_FANOUT_*`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum FanoutKind {
    /// `cluster_flow`: by the frame's flow hash, the same for both directions of a
    /// flow (`PACKET_FANOUT_HASH`).
    #[default]
    Flow,
    /// `cluster_cpu`: by the CPU that received the frame (`PACKET_FANOUT_CPU`).
    Cpu,
    /// `cluster_qm`: by the NIC receive queue, i.e. the card's RSS hash
    /// (`PACKET_FANOUT_QM`).
    Qm,
    /// `cluster_round_robin`: in turn, whatever the flow (`PACKET_FANOUT_LB`).
    RoundRobin,
    /// `cluster_random`: at random, whatever the flow (`PACKET_FANOUT_RND`).
    Random,
}

impl FanoutKind {
    /// The kind a `cluster-type` value names; `cluster_rollover` is `cluster_flow`, as in
    /// Suricata 7, where it is deprecated. `None` for anything else (`cluster_ebpf`
    /// included: Osprey loads no eBPF programs).
    pub fn parse(s: &str) -> Option<FanoutKind> {
        Some(match s.trim().to_ascii_lowercase().as_str() {
            "cluster_flow" | "cluster_rollover" => FanoutKind::Flow,
            "cluster_cpu" => FanoutKind::Cpu,
            "cluster_qm" => FanoutKind::Qm,
            "cluster_round_robin" => FanoutKind::RoundRobin,
            "cluster_random" => FanoutKind::Random,
            _ => return None,
        })
    }

    /// Suricata's `cluster-type` name.
    pub fn name(self) -> &'static str {
        match self {
            FanoutKind::Flow => "cluster_flow",
            FanoutKind::Cpu => "cluster_cpu",
            FanoutKind::Qm => "cluster_qm",
            FanoutKind::RoundRobin => "cluster_round_robin",
            FanoutKind::Random => "cluster_random",
        }
    }

    /// The kernel's `PACKET_FANOUT_*` mode.
    fn mode(self) -> u32 {
        match self {
            FanoutKind::Flow => libc::PACKET_FANOUT_HASH,
            FanoutKind::Cpu => libc::PACKET_FANOUT_CPU,
            FanoutKind::Qm => libc::PACKET_FANOUT_QM,
            FanoutKind::RoundRobin => libc::PACKET_FANOUT_LB,
            FanoutKind::Random => libc::PACKET_FANOUT_RND,
        }
    }
}

/// The fanout mode and flags of a live socket's group.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Fanout {
    /// How frames are spread over the group's sockets.
    pub kind: FanoutKind,
    /// `defrag: yes`: the kernel reassembles IPv4 fragments before choosing a socket,
    /// so all fragments of a datagram reach the socket of its flow
    /// (`PACKET_FANOUT_FLAG_DEFRAG`).
    pub defrag: bool,
}

/// `cluster_flow` with `defrag: yes`, as Suricata's stock configuration (and Osprey's
/// `-i`).
impl Default for Fanout {
    fn default() -> Fanout {
        Fanout {
            kind: FanoutKind::Flow,
            defrag: true,
        }
    }
}

impl Fanout {
    /// The `PACKET_FANOUT` socket option value joining group `group`; `inline` leaves
    /// defragmentation out (frames are forwarded as they came).
    pub(crate) fn sockopt(self, group: u16, inline: bool) -> libc::c_int {
        let mut mode = self.kind.mode();
        if self.defrag && !inline {
            mode |= libc::PACKET_FANOUT_FLAG_DEFRAG;
        }
        (u32::from(group) | (mode << 16)) as libc::c_int
    }
}

impl fmt::Display for Fanout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.kind.name())?;
        if self.defrag {
            f.write_str(", defrag")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cluster_types_are_the_kernel_modes() {
        let flow = Fanout::default();
        // PACKET_FANOUT_HASH (0) with PACKET_FANOUT_FLAG_DEFRAG (0x8000), group 99.
        assert_eq!(flow.sockopt(99, false), 0x8000_0063_u32 as i32);
        assert_eq!(flow.sockopt(99, true), 0x63, "no defrag inline");
        let qm = Fanout {
            kind: FanoutKind::parse(" Cluster_QM ").unwrap(),
            defrag: false,
        };
        assert_eq!(qm.sockopt(7, false), (5 << 16) | 7);
        assert_eq!(
            FanoutKind::parse("cluster_cpu").map(|k| k.mode()),
            Some(libc::PACKET_FANOUT_CPU)
        );
        assert_eq!(
            FanoutKind::parse("cluster_rollover"),
            Some(FanoutKind::Flow)
        );
        assert_eq!(
            FanoutKind::parse("cluster_round_robin").map(FanoutKind::name),
            Some("cluster_round_robin")
        );
        assert_eq!(FanoutKind::parse("cluster_ebpf"), None);
        assert_eq!(FanoutKind::parse("hash"), None);
        assert_eq!(flow.to_string(), "cluster_flow, defrag");
        assert_eq!(qm.to_string(), "cluster_qm");
    }
}
