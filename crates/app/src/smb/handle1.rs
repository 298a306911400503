//! SMB1 messages on the flow state: each command of a request (the AndX chain
//! included) opens its transaction, except reads, writes and `TRANS`/`TRANS2`, which
//! carry file data or named-pipe traffic; each command of a response completes the
//! transaction its command, multiplex id and process id name.

use super::events::{self as ev, raise};
use super::names;
use super::pipe;
use super::smb1::{self, Block, Header};
use super::state::{SmbState, Tree, Wait};
use super::tx::TxKind;
use crate::{AppCtx, Direction};

/// An SMB1 message travelling `dir`.
pub(crate) fn message(st: &mut SmbState, ctx: &mut AppCtx, dir: Direction, m: &[u8]) {
    let Some(h) = smb1::header(m) else {
        raise(st, ctx, ev::MALFORMED_DATA, None);
        return;
    };
    match (h.response, dir) {
        (false, Direction::ToServer) => {
            for b in smb1::blocks(m, &h) {
                request(st, ctx, &h, m, &b);
            }
        }
        (true, Direction::ToClient) => {
            for b in smb1::blocks(m, &h) {
                response(st, ctx, &h, m, &b);
            }
        }
        (true, Direction::ToServer) => raise(st, ctx, ev::RESPONSE_TO_SERVER, None),
        (false, Direction::ToClient) => raise(st, ctx, ev::REQUEST_TO_CLIENT, None),
    }
}

fn key(h: &Header, cmd: u8) -> (u8, u16, u64) {
    (1, u16::from(cmd), u64::from(h.mid) << 32 | u64::from(h.pid))
}

/// The transaction of the non-DCERPC bytes carried by `command` on pipe `fid` (see
/// [`TxKind::PipeData`]): the live one of that command and pipe, or a new one.
fn pipe_data_tx(
    st: &mut SmbState,
    ctx: &mut AppCtx,
    fid: &[u8],
    command: &'static str,
    ids: (u64, u32),
) -> u64 {
    let found = st.txs.iter().rev().find(|t| {
        t.command == command && matches!(&t.kind, TxKind::PipeData { fid: f } if f == fid)
    });
    match found {
        Some(t) => t.id,
        None => st.new_tx(ctx, command, ids, TxKind::PipeData { fid: fid.to_vec() }),
    }
}

fn malformed(st: &mut SmbState, ctx: &mut AppCtx) {
    raise(st, ctx, ev::MALFORMED_DATA, None);
}

/// The `status` and `status_code` of a response.
fn status(h: &Header) -> (String, String) {
    if h.nt_status {
        names::nt_status_fields(h.status)
    } else {
        names::dos_status_fields(h.status as u8, (h.status >> 16) as u16)
    }
}

fn request(st: &mut SmbState, ctx: &mut AppCtx, h: &Header, m: &[u8], b: &Block<'_>) {
    let ids = if b.command == smb1::NEGOTIATE {
        (0, 0)
    } else {
        (u64::from(h.uid), u32::from(h.tid))
    };
    let name = names::smb1_command(b.command);
    let kind = match b.command {
        smb1::NEGOTIATE => {
            let dialects = smb1::negotiate_request(b);
            if dialects.is_empty() {
                raise(st, ctx, ev::NEGOTIATE_MALFORMED_DIALECTS, None);
            }
            st.smb1_dialects = dialects.clone();
            TxKind::Negotiate {
                smb2: false,
                client_dialects: dialects,
                client_guid: Vec::new(),
                server_guid: Vec::new(),
                max_sizes: None,
            }
        }
        smb1::SESSION_SETUP_ANDX => {
            let Some(ss) = smb1::session_setup_request(b, h.unicode) else {
                return malformed(st, ctx);
            };
            let auth = super::auth::parse(ss.blob).unwrap_or_else(|_| {
                raise(st, ctx, ev::MALFORMED_NTLMSSP_REQUEST, None);
                None
            });
            TxKind::SessionSetup {
                auth,
                request: Some((ss.native_os, ss.native_lm)),
                response: None,
            }
        }
        smb1::TREE_CONNECT_ANDX => {
            let Some((path, service)) = smb1::tree_connect_request(b, h.unicode) else {
                return malformed(st, ctx);
            };
            TxKind::TreeConnect {
                path,
                service: Some((service, None)),
                share_type: None,
                pipe: false,
            }
        }
        smb1::NT_CREATE_ANDX => {
            let Some((name, disposition, options)) = smb1::nt_create_request(b, h.unicode) else {
                return malformed(st, ctx);
            };
            TxKind::Create {
                name,
                directory: options & 1 != 0,
                disposition,
                delete_on_close: options & 0x1000 != 0,
                times: [0; 4],
                size: 0,
                fid: Vec::new(),
            }
        }
        smb1::CLOSE => {
            if let Some(fid) = smb1::close_request(b) {
                st.close_fid(fid);
            }
            TxKind::Generic
        }
        smb1::READ_ANDX => {
            let Some((fid, offset)) = smb1::read_andx_request(b) else {
                return malformed(st, ctx);
            };
            let w = if st.fid(fid).is_some_and(|f| f.pipe) {
                Wait::Pipe {
                    fid: fid.to_vec(),
                    ids,
                }
            } else {
                Wait::Read {
                    fid: fid.to_vec(),
                    offset,
                    ids: (0, 0),
                }
            };
            st.wait(key(h, b.command), w);
            return;
        }
        smb1::WRITE_ANDX => {
            let Some((fid, offset, data)) = smb1::write_andx_request(m, b) else {
                return malformed(st, ctx);
            };
            if !st.fid(fid).is_some_and(|f| f.pipe) {
                st.file_data(ctx, Direction::ToServer, (fid, offset, data), name, (0, 0));
            } else if pipe::not_dcerpc(st, Direction::ToServer, (fid, data)) {
                // Suricata 7.0.10 logs such writes as a WRITE_ANDX transaction of
                // their pipe, which carries the event (`smb.pcap`, port 49193).
                let id = pipe_data_tx(st, ctx, fid, name, ids);
                raise(st, ctx, ev::MALFORMED_DATA, Some(id));
                st.wait(key(h, b.command), Wait::Write(id));
            } else if let Some(id) =
                pipe::data(st, ctx, Direction::ToServer, (fid, data), name, ids, None)
            {
                st.wait(key(h, b.command), Wait::Write(id));
            }
            return;
        }
        smb1::TRANS => {
            // TransactNmPipe: a write and a read on the pipe whose FID follows.
            if let Some((setup, data)) = smb1::trans_request(m, b) {
                if let (Some(0x26), Some(fid)) = (setup.first(), setup.get(2..4)) {
                    if !pipe::not_dcerpc(st, Direction::ToServer, (fid, data))
                        && pipe::data(st, ctx, Direction::ToServer, (fid, data), name, ids, None)
                            .is_some()
                    {
                        let w = Wait::Pipe {
                            fid: fid.to_vec(),
                            ids,
                        };
                        st.wait(key(h, b.command), w);
                    }
                }
            }
            return;
        }
        smb1::TRANS2 => return,
        _ => TxKind::Generic,
    };
    let id = st.new_tx(ctx, name, ids, kind);
    // Suricata leaves a LOCKING_ANDX unanswered.
    if b.command != smb1::LOCKING_ANDX {
        st.wait(key(h, b.command), Wait::Tx(id));
    }
}

fn response(st: &mut SmbState, ctx: &mut AppCtx, h: &Header, m: &[u8], b: &Block<'_>) {
    let Some(wait) = st.answer(key(h, b.command)) else {
        return;
    };
    let ok = h.status == 0;
    match wait {
        Wait::Read {
            fid, offset, ids, ..
        } => {
            if !ok {
                return;
            }
            let Some(data) = smb1::read_andx_response(m, b) else {
                return malformed(st, ctx);
            };
            let name = names::smb1_command(smb1::READ_ANDX);
            st.file_data(ctx, Direction::ToClient, (&fid, offset, data), name, ids);
        }
        Wait::Write(id) => {
            if let Some(t) = st.tx_mut(id) {
                t.status = Some(status(h));
            }
        }
        Wait::Pipe { fid, ids } => {
            let data = match b.command {
                smb1::TRANS => smb1::trans_response(m, b),
                _ => smb1::read_andx_response(m, b),
            };
            let name = names::smb1_command(b.command);
            let bytes = data.unwrap_or(&[]);
            if pipe::not_dcerpc(st, Direction::ToClient, (&fid, bytes)) {
                if b.command == smb1::READ_ANDX {
                    // The pipe's READ_ANDX transaction carries the event, as
                    // Suricata 7.0.10 logs it (sv-ether, port 3049).
                    let id = pipe_data_tx(st, ctx, &fid, name, ids);
                    if let Some(t) = st.tx_mut(id) {
                        t.status = Some(status(h));
                    }
                    raise(st, ctx, ev::MALFORMED_DATA, Some(id));
                }
                return;
            }
            pipe::data(
                st,
                ctx,
                Direction::ToClient,
                (&fid, bytes),
                name,
                ids,
                Some(status(h)),
            );
        }
        Wait::Tx(id) => tx_response(st, h, b, id),
    }
}

/// The answer of transaction `id`.
fn tx_response(st: &mut SmbState, h: &Header, b: &Block<'_>, id: u64) {
    let ok = h.status == 0;
    if b.command == smb1::NEGOTIATE {
        if let Some((index, guid)) = smb1::negotiate_response(b) {
            if let Some(d) = st.smb1_dialects.get(usize::from(index)) {
                st.dialect = Some(String::from_utf8_lossy(d).into_owned());
            }
            if let Some(TxKind::Negotiate { server_guid, .. }) = st.tx_mut(id).map(|t| &mut t.kind)
            {
                *server_guid = guid.unwrap_or_default().to_vec();
            }
        }
    }
    let mut tree = None;
    let mut fid = None;
    let dialect = st.dialect_name();
    let Some(t) = st.tx_mut(id) else {
        return;
    };
    t.status = Some(status(h));
    // The answer's ids, except for a negotiation (no session or tree yet).
    if b.command != smb1::NEGOTIATE {
        t.session_id = u64::from(h.uid);
        t.tree_id = u32::from(h.tid);
    }
    t.dialect = dialect;
    t.done = true;
    match &mut t.kind {
        TxKind::SessionSetup { response, .. } => {
            if let Some(ss) = smb1::session_setup_response(b, h.unicode) {
                *response = Some((ss.native_os, ss.native_lm));
            }
        }
        TxKind::TreeConnect {
            path,
            service,
            pipe,
            ..
        } => {
            let answered = smb1::tree_connect_response(b);
            *pipe = answered == b"IPC";
            if let Some((_, resp)) = service {
                *resp = Some(answered);
            }
            if ok {
                tree = Some(Tree {
                    id: u32::from(h.tid),
                    path: path.clone(),
                    pipe: *pipe,
                });
            }
        }
        TxKind::Create {
            name,
            times,
            size,
            fid: f,
            ..
        } if ok => {
            if let Some(r) = smb1::nt_create_response(b) {
                *times = r.times;
                *size = r.size;
                *f = r.fid.clone();
                fid = Some((r.fid, name.clone(), t.tree_id));
            }
        }
        _ => {}
    }
    if let Some(tr) = tree {
        st.add_tree(tr);
    }
    if let Some((fid, name, tree_id)) = fid {
        st.add_fid(fid, name, tree_id);
    }
}
