//! SMB transactions: one per request/response pair (a request and the response with
//! its message id), one per file read or written (all the reads, or all the writes, of
//! one opened file), each with what its `smb` record shows.

use super::auth::Auth;
use crate::dcerpc::{DceTx, Interface};
use crate::Files;

/// What a transaction describes beyond its command, status and ids.
#[derive(Clone, Debug)]
pub enum TxKind {
    /// Nothing more.
    Generic,
    /// A dialect negotiation.
    Negotiate {
        /// An SMB2 request (its records carry `client_guid`).
        smb2: bool,
        /// The dialects the client offered (names).
        client_dialects: Vec<Vec<u8>>,
        /// The client GUID (SMB2).
        client_guid: Vec<u8>,
        /// The server GUID, once answered.
        server_guid: Vec<u8>,
        /// `MaxReadSize` and `MaxWriteSize` of an SMB2 answer.
        max_sizes: Option<(u32, u32)>,
    },
    /// A session setup.
    SessionSetup {
        /// The logon the request's security blob carries.
        auth: Option<Auth>,
        /// SMB1: the client's native OS and LAN manager.
        request: Option<(Vec<u8>, Vec<u8>)>,
        /// SMB1: the server's native OS and LAN manager.
        response: Option<(Vec<u8>, Vec<u8>)>,
    },
    /// A tree connect.
    TreeConnect {
        /// The share path.
        path: Vec<u8>,
        /// SMB1: the service asked for and the one answered.
        service: Option<(Vec<u8>, Option<Vec<u8>>)>,
        /// SMB2: the share type answered.
        share_type: Option<u8>,
        /// The share is a named pipe share (`IPC$`).
        pipe: bool,
    },
    /// A create (open).
    Create {
        /// The name.
        name: Vec<u8>,
        /// A directory was asked for.
        directory: bool,
        /// `CreateDisposition`.
        disposition: u32,
        /// Delete on close was asked for.
        delete_on_close: bool,
        /// The answer's times (FILETIME) and size.
        times: [u64; 4],
        /// `EndOfFile` answered.
        size: u64,
        /// The file id answered.
        fid: Vec<u8>,
    },
    /// The data read or written on one file.
    File {
        /// The file's name (from its create).
        name: Vec<u8>,
        /// The share it is on.
        share: Vec<u8>,
        /// The file id.
        fid: Vec<u8>,
        /// The file.
        files: Files,
        /// The offset the next data is expected at.
        next: u64,
    },
    /// An IOCTL that is not DCERPC on a pipe.
    Ioctl {
        /// The FSCTL code.
        function: u32,
    },
    /// A DCERPC call over a named pipe.
    Dcerpc {
        /// The pipe's file id.
        fid: Vec<u8>,
        /// The call as last seen.
        call: Box<DceTx>,
        /// The interfaces bound on the pipe then.
        bound: Vec<Interface>,
    },
    /// The reads, or the writes, of bytes that are not DCERPC on one named pipe
    /// (SMB1 `READ_ANDX`/`WRITE_ANDX`): one transaction each way per pipe, as
    /// Suricata 7.0.10 logs them (`smb-psexec-pipes.pcap`: five writes to one pipe are
    /// one `WRITE_ANDX` transaction, the reads of three pipes three `READ_ANDX` ones).
    PipeData {
        /// The pipe's file id.
        fid: Vec<u8>,
    },
    /// A set-info on a file (delete on close).
    SetInfo {
        /// The file's name.
        name: Vec<u8>,
        /// The file id.
        fid: Vec<u8>,
        /// Delete on close was set.
        delete: bool,
        /// SMB1 `TRANS2`: its subcommand.
        smb1: bool,
    },
}

/// One SMB transaction.
#[derive(Clone, Debug)]
pub struct SmbTx {
    pub(crate) id: u64,
    /// The dialect in force (`NT LM 0.12`, `2.10`, `unknown`).
    pub dialect: String,
    /// The command (`SMB2_COMMAND_CREATE`, ...).
    pub command: &'static str,
    /// `status` and `status_code`, once answered.
    pub status: Option<(String, String)>,
    /// The session id.
    pub session_id: u64,
    /// The tree id.
    pub tree_id: u32,
    /// What else it describes.
    pub kind: TxKind,
    /// Answered (or, for a file, closed): nothing more comes.
    pub done: bool,
    /// Too old to wait for an answer: logged as it is.
    pub stale: bool,
    /// The events raised on it (indices into [`super::EVENTS`]).
    pub(crate) events: crate::Events,
}

impl SmbTx {
    /// The files it carries (a file transaction).
    pub fn files(&self) -> Option<&Files> {
        match &self.kind {
            TxKind::File { files, .. } => Some(files),
            _ => None,
        }
    }
}
