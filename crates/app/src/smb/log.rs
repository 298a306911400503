//! The `smb` EVE object as Suricata 7 writes it: `id`, `dialect`, `command`, `status`
//! and `status_code` once answered, `session_id`, `tree_id`, then what the command
//! carries (client dialects and GUIDs, logon details, share, file name and times, file
//! id, FSCTL function), in Suricata's key order.

use serde_json::{json, Map, Value};

use super::auth::Auth;
use super::names;
use super::tx::{SmbTx, TxKind};
use crate::log::bytes_str;

/// A file id as text: an SMB2 file id as a GUID, an SMB1 FID as four hex digits.
pub fn fuid(fid: &[u8]) -> String {
    match fid.len() {
        16 => names::guid(fid),
        2 => format!("{:04x}", u16::from_le_bytes([fid[0], fid[1]])),
        _ => String::new(),
    }
}

fn s(b: &[u8]) -> Value {
    Value::String(bytes_str(b))
}

/// The `smb` object of a transaction.
pub fn smb_object(tx: &SmbTx) -> Value {
    let mut o = Map::new();
    o.insert("id".into(), (tx.id + 1).into());
    o.insert("dialect".into(), tx.dialect.clone().into());
    o.insert("command".into(), tx.command.into());
    if let Some((status, code)) = &tx.status {
        o.insert("status".into(), status.clone().into());
        o.insert("status_code".into(), code.clone().into());
    }
    o.insert("session_id".into(), tx.session_id.into());
    o.insert("tree_id".into(), tx.tree_id.into());
    match &tx.kind {
        TxKind::Generic | TxKind::PipeData { .. } => {}
        TxKind::Negotiate {
            smb2,
            client_dialects,
            client_guid,
            server_guid,
            max_sizes,
        } => {
            let d = client_dialects.iter().map(|d| s(d)).collect();
            o.insert("client_dialects".into(), Value::Array(d));
            if *smb2 {
                o.insert("client_guid".into(), names::guid(client_guid).into());
            }
            o.insert("server_guid".into(), names::guid(server_guid).into());
            if let Some((r, w)) = max_sizes {
                o.insert("max_read_size".into(), (*r).into());
                o.insert("max_write_size".into(), (*w).into());
            }
        }
        TxKind::SessionSetup {
            auth,
            request,
            response,
        } => {
            match auth {
                Some(Auth::Ntlmssp(n)) => {
                    let mut a = Map::new();
                    a.insert("domain".into(), s(&n.domain));
                    a.insert("user".into(), s(&n.user));
                    a.insert("host".into(), s(&n.host));
                    if let Some(v) = &n.version {
                        a.insert("version".into(), v.clone().into());
                    }
                    o.insert("ntlmssp".into(), Value::Object(a));
                }
                Some(Auth::Kerberos { realm, snames }) => {
                    let names: Vec<Value> = snames.iter().map(|n| s(n)).collect();
                    o.insert(
                        "kerberos".into(),
                        json!({ "realm": s(realm), "snames": names }),
                    );
                }
                None => {}
            }
            for (k, v) in [("request", request), ("response", response)] {
                if let Some((os, lm)) = v {
                    o.insert(k.into(), json!({ "native_os": s(os), "native_lm": s(lm) }));
                }
            }
        }
        TxKind::TreeConnect {
            path,
            service,
            share_type,
            pipe,
        } => {
            let k = if *pipe { "named_pipe" } else { "share" };
            o.insert(k.into(), s(path));
            match service {
                Some((req, resp)) => {
                    let mut sv = Map::new();
                    sv.insert("request".into(), s(req));
                    if let Some(r) = resp {
                        sv.insert("response".into(), s(r));
                    }
                    o.insert("service".into(), Value::Object(sv));
                }
                None => {
                    let t = match share_type {
                        Some(1) => "FILE",
                        Some(2) => "PIPE",
                        Some(3) => "PRINT",
                        _ => "UNKNOWN",
                    };
                    o.insert("share_type".into(), t.into());
                }
            }
        }
        TxKind::Create {
            name,
            directory,
            disposition,
            delete_on_close,
            times,
            size,
            fid,
        } => {
            let k = if *directory { "directory" } else { "filename" };
            let n = if name.is_empty() {
                Value::from("<share_root>")
            } else {
                s(name)
            };
            o.insert(k.into(), n);
            o.insert(
                "disposition".into(),
                names::disposition(*disposition).into(),
            );
            let access = if *delete_on_close {
                "delete on close"
            } else {
                "normal"
            };
            o.insert("access".into(), access.into());
            for (k, t) in ["created", "accessed", "modified", "changed"]
                .iter()
                .zip(times)
            {
                o.insert((*k).into(), names::filetime(*t).into());
            }
            o.insert("size".into(), (*size).into());
            o.insert("fuid".into(), fuid(fid).into());
        }
        TxKind::File {
            name, share, fid, ..
        } => {
            o.insert("filename".into(), s(name));
            o.insert("share".into(), s(share));
            o.insert("fuid".into(), fuid(fid).into());
        }
        TxKind::Ioctl { function } => {
            o.insert("function".into(), names::fsctl(*function).into());
        }
        TxKind::Dcerpc { call, bound, .. } => {
            let o2 = crate::dcerpc::log::smb_dcerpc_object(call, Some(bound));
            o.insert("dcerpc".into(), o2);
        }
        TxKind::SetInfo {
            name,
            fid,
            delete,
            smb1,
        } => {
            o.insert("filename".into(), s(name));
            let access = if *delete { "delete on close" } else { "normal" };
            o.insert("access".into(), access.into());
            if *smb1 {
                o.insert("subcmd".into(), "SET_FILE_INFO".into());
                o.insert(
                    "level_of_interest".into(),
                    "Set Disposition Information".into(),
                );
            }
            o.insert("fuid".into(), fuid(fid).into());
        }
    }
    Value::Object(o)
}
