//! DCERPC over SMB named pipes: the bytes written to and read from a pipe (SMB1
//! `WRITE_ANDX`/`READ_ANDX`/`TRANS`, SMB2 `WRITE`/`READ`/`IOCTL FSCTL_PIPE_TRANSCEIVE`)
//! feed one [`DcerpcConn`] per pipe; each DCERPC call becomes an SMB transaction
//! carrying it (the command that carried the call's request names it; an answer with
//! no call opens one named after the answer's command), complete once the call is
//! answered.

use super::state::SmbState;
use super::tx::TxKind;
use crate::dcerpc::parser::co_header;
use crate::dcerpc::DcerpcConn;
use crate::{AppCtx, Direction};

/// Pipes followed per flow at most (the oldest is forgotten).
pub const MAX_PIPES: usize = 64;

/// Whether Suricata 7.0.10 follows DCERPC on a named pipe opened as `name`: only the
/// services it knows by name (a write or read on another pipe, `netlogon` or `PSEXESVC`,
/// opens no transaction; the `smb` difftest family).
pub(crate) fn dcerpc_service(name: &[u8]) -> bool {
    matches!(
        name,
        b"svcctl" | b"srvsvc" | b"atsvc" | b"lsarpc" | b"samr" | b"spoolss" | b"winreg"
    )
}

/// Whether the bytes of a message on pipe `fid` travelling `dir` are not DCERPC:
/// they should start a PDU (none is in progress) but are no PDU header (a psexec
/// service's own protocol, a console's stdin and stdout). Such bytes are not parsed;
/// Suricata counts a read or write carrying them as malformed data (once per message,
/// the pipe's DCERPC state kept), not a `TRANS` transaction.
pub(crate) fn not_dcerpc(st: &SmbState, dir: Direction, (fid, bytes): (&[u8], &[u8])) -> bool {
    !bytes.is_empty()
        && co_header(bytes).is_none()
        && st
            .pipes
            .iter()
            .find(|(f, _)| f == fid)
            .is_none_or(|(_, c)| c.at_pdu_start(dir))
}

/// Bytes of pipe `fid` travelling `dir`, carried by `command` with the message's ids;
/// `status`: the SMB status of the message that carried them (a response). Returns
/// the last SMB transaction the bytes opened or updated, if they were DCERPC.
pub(crate) fn data(
    st: &mut SmbState,
    ctx: &mut AppCtx,
    dir: Direction,
    (fid, bytes): (&[u8], &[u8]),
    command: &'static str,
    ids: (u64, u32),
    status: Option<(String, String)>,
) -> Option<u64> {
    let i = match st.pipes.iter().position(|(f, _)| f == fid) {
        Some(i) => i,
        None => {
            if st.pipes.len() >= MAX_PIPES {
                st.pipes.pop_front();
            }
            st.pipes.push_back((fid.to_vec(), DcerpcConn::new()));
            st.pipes.len() - 1
        }
    };
    let conn = &mut st.pipes[i].1;
    let out = conn.parse(dir, bytes, ctx.config.max_tx);
    let calls: Vec<_> = out
        .touched
        .iter()
        .filter_map(|&id| conn.tx(id).cloned())
        .collect();
    let bound = conn.interfaces().to_vec();
    let mut last = None;
    for call in calls {
        let found = st.txs.iter().rev().find(|t| {
            matches!(&t.kind, TxKind::Dcerpc { fid: f, call: c, .. } if f == fid && c.id == call.id)
        });
        let id = match found {
            Some(t) => t.id,
            None => {
                let kind = TxKind::Dcerpc {
                    fid: fid.to_vec(),
                    call: Box::new(call.clone()),
                    bound: Vec::new(),
                };
                st.new_tx(ctx, command, ids, kind)
            }
        };
        let dialect = st.dialect_name();
        if let Some(t) = st.tx_mut(id) {
            t.done = call.response_done();
            if let Some(s) = &status {
                t.status = Some(s.clone());
                t.dialect = dialect;
            }
            if let TxKind::Dcerpc {
                call: c, bound: b, ..
            } = &mut t.kind
            {
                **c = call;
                b.clone_from(&bound);
            }
        }
        last = Some(id);
    }
    last
}
