//! `rpc:<program>[,<version>|*[,<procedure>|*]]`: the packet's payload is an ONC RPC
//! call (RFC 5531) to that program, version and procedure, as Suricata checks it:
//! on the packet's own payload (no stream), a TCP payload after its 4-byte record
//! mark, a UDP payload from its start; message type CALL and RPC version 2.

use crate::sig::{failed, Refusal};

/// A compiled `rpc` condition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RpcC {
    program: u32,
    version: Option<u32>,
    procedure: Option<u32>,
}

/// Parses the value of `rpc`.
pub(crate) fn compile(value: Option<&str>) -> Result<RpcC, Refusal> {
    let v = value.map(str::trim).unwrap_or("");
    let bad = || {
        failed(
            "rpc",
            format!("rpc:{v}: expected <program>[,<version>|*[,<procedure>|*]]"),
        )
    };
    let parts: Vec<&str> = v.split(',').map(str::trim).collect();
    if parts.len() > 3 {
        return Err(bad());
    }
    let num = |s: &str| s.parse::<u32>().map_err(|_| bad());
    let opt = |i: usize| match parts.get(i) {
        None | Some(&"*") => Ok(None),
        Some(s) => num(s).map(Some),
    };
    Ok(RpcC {
        program: num(parts[0])?,
        version: opt(1)?,
        procedure: opt(2)?,
    })
}

impl RpcC {
    /// Whether packet `p` (decoded from `frame`) carries a matching call.
    pub(crate) fn matches(&self, p: &wire::Packet, frame: &[u8]) -> bool {
        let payload = p.payload(frame);
        let msg = if p.is_tcp() {
            payload.get(4..)
        } else if p.is_udp() {
            Some(payload)
        } else {
            None
        };
        let Some(msg) = msg.filter(|m| m.len() >= 24) else {
            return false;
        };
        let word = |i: usize| u32::from_be_bytes([msg[i], msg[i + 1], msg[i + 2], msg[i + 3]]);
        // xid, type (0: CALL), rpcvers (2), program, version, procedure.
        word(4) == 0
            && word(8) == 2
            && word(12) == self.program
            && self.version.is_none_or(|v| word(16) == v)
            && self.procedure.is_none_or(|v| word(20) == v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values() {
        let c = compile(Some("100000, *, 3")).unwrap();
        assert_eq!(
            c,
            RpcC {
                program: 100000,
                version: None,
                procedure: Some(3)
            }
        );
        assert_eq!(compile(Some("100003")).unwrap().version, None);
        for bad in ["", "x", "1,2,3,4", "1,y"] {
            assert!(compile(Some(bad)).is_err(), "{bad}");
        }
    }
}
