//! Per-protocol stream depths: Suricata lets some parsers keep following a TCP
//! session past `stream.reassembly.depth` (`app-layer.protocols.<name>.stream-depth`,
//! a size, 0 = unlimited). SMB and Modbus track their sessions completely unless
//! configured otherwise ("By default track it completely" in `suricata.yaml`), so a
//! long SMB session (a file copy, a psexec console) is parsed to its end.

use crate::AppProto;

/// The protocols that read a `stream-depth` setting, and their default when it is
/// absent (0 = unlimited).
pub const CONFIGURABLE: &[(AppProto, u64)] = &[(AppProto::Smb, 0), (AppProto::Modbus, 0)];

/// The stream depth of each protocol that has one of its own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StreamDepths(Vec<(AppProto, u64)>);

impl Default for StreamDepths {
    fn default() -> Self {
        StreamDepths(CONFIGURABLE.to_vec())
    }
}

impl StreamDepths {
    /// Sets `proto`'s depth (`stream-depth` configured); ignored for a protocol that
    /// has no such setting in Suricata.
    pub fn set(&mut self, proto: AppProto, depth: u64) {
        if let Some(e) = self.0.iter_mut().find(|(p, _)| *p == proto) {
            e.1 = depth;
        }
    }

    /// The depth of `proto`'s sessions, if the protocol sets its own (0 = unlimited);
    /// `None`: `stream.reassembly.depth` applies.
    pub fn get(&self, proto: AppProto) -> Option<u64> {
        self.0.iter().find(|(p, _)| *p == proto).map(|e| e.1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smb_is_unlimited_unless_configured_and_http_follows_the_global_depth() {
        let mut d = StreamDepths::default();
        assert_eq!(d.get(AppProto::Smb), Some(0));
        assert_eq!(d.get(AppProto::Http), None);
        d.set(AppProto::Smb, 4096);
        d.set(AppProto::Http, 4096);
        assert_eq!(d.get(AppProto::Smb), Some(4096));
        assert_eq!(d.get(AppProto::Http), None);
    }
}
