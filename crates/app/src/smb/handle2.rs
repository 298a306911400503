//! SMB2/3 messages on the flow state: each request opens its transaction (reads and
//! writes go to file transactions instead), each response completes the transaction
//! its command and message id name. Compounded messages are handled one by one.

use super::events::{self as ev, raise};
use super::names;
use super::pipe;
use super::smb2::{self, Header};
use super::state::{SmbState, Tree, Wait};
use super::tx::TxKind;
use crate::{AppCtx, Direction};

/// Commands that open no transaction: Suricata 7 logs no record for them.
const NO_TX: [u16; 6] = [0x0a, 0x0c, 0x0d, 0x0f, 0x10, 0x12];

/// `FSCTL_PIPE_TRANSCEIVE`: a write and a read on a named pipe.
const FSCTL_PIPE_TRANSCEIVE: u32 = 0x0011_c017;

/// Compounded messages in one record at most.
const MAX_COMPOUND: usize = 32;

/// An SMB2 record travelling `dir` (one message or a compound chain).
pub(crate) fn message(st: &mut SmbState, ctx: &mut AppCtx, dir: Direction, mut m: &[u8]) {
    for _ in 0..MAX_COMPOUND {
        let Some(h) = smb2::header(m) else {
            raise(st, ctx, ev::MALFORMED_DATA, None);
            return;
        };
        let next = h.next as usize;
        let this = if next >= smb2::HDR_LEN && next < m.len() {
            &m[..next]
        } else {
            m
        };
        match (h.response, dir) {
            (false, Direction::ToServer) => request(st, ctx, &h, this),
            (true, Direction::ToClient) => response(st, ctx, &h, this),
            (true, Direction::ToServer) => raise(st, ctx, ev::RESPONSE_TO_SERVER, None),
            (false, Direction::ToClient) => raise(st, ctx, ev::REQUEST_TO_CLIENT, None),
        }
        if next < smb2::HDR_LEN || next >= m.len() {
            return;
        }
        m = &m[next..];
    }
}

fn key(h: &Header) -> (u8, u16, u64) {
    (2, h.command, h.msg_id)
}

fn malformed(st: &mut SmbState, ctx: &mut AppCtx) {
    raise(st, ctx, ev::MALFORMED_DATA, None);
}

fn request(st: &mut SmbState, ctx: &mut AppCtx, h: &Header, m: &[u8]) {
    let ids = (h.session_id, h.tree_id);
    let name = names::smb2_command(h.command);
    let kind = match h.command {
        smb2::NEGOTIATE => {
            let Some((dialects, guid)) = smb2::negotiate_request(m) else {
                return malformed(st, ctx);
            };
            if dialects.is_empty() {
                raise(st, ctx, ev::NEGOTIATE_MALFORMED_DIALECTS, None);
            }
            TxKind::Negotiate {
                smb2: true,
                client_dialects: dialects
                    .iter()
                    .map(|&d| names::smb2_dialect(d).into_bytes())
                    .collect(),
                client_guid: guid.to_vec(),
                server_guid: Vec::new(),
                max_sizes: None,
            }
        }
        smb2::SESSION_SETUP => {
            let blob = smb2::session_setup_request(m).unwrap_or(&[]);
            let auth = super::auth::parse(blob).unwrap_or_else(|_| {
                raise(st, ctx, ev::MALFORMED_NTLMSSP_REQUEST, None);
                None
            });
            TxKind::SessionSetup {
                auth,
                request: None,
                response: None,
            }
        }
        smb2::TREE_CONNECT => TxKind::TreeConnect {
            path: smb2::tree_connect_request(m).unwrap_or_default(),
            service: None,
            share_type: None,
            pipe: false,
        },
        smb2::CREATE => {
            let Some(c) = smb2::create_request(m) else {
                return malformed(st, ctx);
            };
            TxKind::Create {
                name: c.name,
                directory: c.options & 1 != 0,
                disposition: c.disposition,
                delete_on_close: c.options & 0x1000 != 0,
                times: [0; 4],
                size: 0,
                fid: Vec::new(),
            }
        }
        smb2::CLOSE => {
            if let Some(fid) = smb2::close_request(m) {
                st.close_fid(fid);
            }
            TxKind::Generic
        }
        smb2::READ => {
            let Some((_len, offset, fid)) = smb2::read_request(m) else {
                return malformed(st, ctx);
            };
            if let Some(f) = st.fid(fid).filter(|f| f.pipe) {
                if !pipe::dcerpc_service(&f.name) {
                    return;
                }
                let w = Wait::Pipe {
                    fid: fid.to_vec(),
                    ids,
                };
                return st.wait(key(h), w);
            }
            let w = Wait::Read {
                fid: fid.to_vec(),
                offset,
                ids,
            };
            st.wait(key(h), w);
            return;
        }
        smb2::WRITE => {
            let Some(w) = smb2::write_request(m) else {
                return malformed(st, ctx);
            };
            if let Some(f) = st.fid(w.1).filter(|f| f.pipe) {
                if !pipe::dcerpc_service(&f.name) {
                    return;
                }
                if pipe::not_dcerpc(st, Direction::ToServer, (w.1, w.2)) {
                    return malformed(st, ctx);
                }
                if let Some(id) =
                    pipe::data(st, ctx, Direction::ToServer, (w.1, w.2), name, ids, None)
                {
                    st.wait(key(h), Wait::Write(id));
                }
                return;
            }
            let id = st.file_data(ctx, Direction::ToServer, (w.1, w.0, w.2), name, ids);
            st.wait(key(h), Wait::Write(id));
            return;
        }
        smb2::IOCTL => {
            let Some((code, fid, input)) = smb2::ioctl(m, false) else {
                return malformed(st, ctx);
            };
            if code == FSCTL_PIPE_TRANSCEIVE
                && !pipe::not_dcerpc(st, Direction::ToServer, (fid, input))
                && pipe::data(st, ctx, Direction::ToServer, (fid, input), name, ids, None).is_some()
            {
                let w = Wait::Pipe {
                    fid: fid.to_vec(),
                    ids,
                };
                return st.wait(key(h), w);
            }
            TxKind::Ioctl { function: code }
        }
        smb2::SET_INFO => {
            let Some((info, class, fid, buf)) = smb2::set_info_request(m) else {
                return malformed(st, ctx);
            };
            // FileDispositionInformation on a file.
            if info != 1 || class != 13 {
                return;
            }
            TxKind::SetInfo {
                name: st.fid(fid).map(|f| f.name.clone()).unwrap_or_default(),
                fid: fid.to_vec(),
                delete: buf.first().is_some_and(|&b| b != 0),
                smb1: false,
            }
        }
        c if NO_TX.contains(&c) => return,
        _ => TxKind::Generic,
    };
    let id = st.new_tx(ctx, name, ids, kind);
    st.wait(key(h), Wait::Tx(id));
}

fn response(st: &mut SmbState, ctx: &mut AppCtx, h: &Header, m: &[u8]) {
    if h.is_async && h.status == smb2::STATUS_PENDING {
        return;
    }
    let ok = h.status == 0;
    let status = names::nt_status_fields(h.status);
    let wait = match st.answer(key(h)) {
        Some(w) => w,
        None if h.command == smb2::NEGOTIATE => {
            // The answer to an SMB1 negotiation offering SMB2.
            let Some(id) = st
                .txs
                .iter()
                .rev()
                .find(|t| !t.done && matches!(t.kind, TxKind::Negotiate { smb2: false, .. }))
                .map(|t| t.id)
            else {
                return;
            };
            Wait::Tx(id)
        }
        None => return,
    };
    match wait {
        Wait::Read {
            fid, offset, ids, ..
        } => {
            if !ok {
                return;
            }
            let Some(data) = smb2::read_response(m) else {
                return malformed(st, ctx);
            };
            let name = names::smb2_command(smb2::READ);
            let id = st.file_data(ctx, Direction::ToClient, (&fid, offset, data), name, ids);
            if let Some(t) = st.tx_mut(id) {
                t.status = Some(status);
            }
        }
        Wait::Write(id) => {
            if let Some(t) = st.tx_mut(id) {
                t.status = Some(status);
            }
        }
        Wait::Pipe { fid, ids } => {
            let data = match h.command {
                smb2::IOCTL => smb2::ioctl(m, true).map(|x| x.2),
                _ => smb2::read_response(m),
            };
            let name = names::smb2_command(h.command);
            let bytes = data.unwrap_or(&[]);
            if pipe::not_dcerpc(st, Direction::ToClient, (&fid, bytes)) {
                if h.command != smb2::IOCTL {
                    malformed(st, ctx);
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
                Some(status),
            );
        }
        Wait::Tx(id) => tx_response(st, h, m, id, status),
    }
}

/// The answer of transaction `id`.
fn tx_response(st: &mut SmbState, h: &Header, m: &[u8], id: u64, status: (String, String)) {
    let ok = h.status == 0;
    if h.command == smb2::NEGOTIATE && ok {
        if let Some(r) = smb2::negotiate_response(m) {
            st.dialect = Some(names::smb2_dialect(r.dialect));
            // An SMB1 negotiation answered by SMB2 shows the sizes too.
            if let Some(TxKind::Negotiate {
                server_guid,
                max_sizes,
                ..
            }) = st.tx_mut(id).map(|t| &mut t.kind)
            {
                *server_guid = r.guid;
                *max_sizes = Some((r.max_read, r.max_write));
            }
        }
    }
    let mut tree = None;
    let mut fid = None;
    let dialect = st.dialect_name();
    let Some(t) = st.tx_mut(id) else {
        return;
    };
    t.status = Some(status);
    t.session_id = h.session_id;
    if !h.is_async {
        t.tree_id = h.tree_id;
    }
    t.dialect = dialect;
    t.done = true;
    match &mut t.kind {
        TxKind::TreeConnect {
            path,
            share_type,
            pipe,
            ..
        } => {
            *share_type = smb2::tree_connect_response(m);
            *pipe = *share_type == Some(2);
            if ok {
                tree = Some(Tree {
                    id: h.tree_id,
                    path: path.clone(),
                    pipe: *pipe,
                });
            }
        }
        TxKind::Create {
            name,
            directory,
            times,
            size,
            fid: f,
            ..
        } if ok => {
            if let Some(r) = smb2::create_response(m) {
                *directory |= r.directory;
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
