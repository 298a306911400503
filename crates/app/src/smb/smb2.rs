//! SMB2/3 messages (MS-SMB2 2.2): the 64-byte header and the bodies of the commands
//! the `smb` records describe. Offsets inside a body (names, buffers, data) count from
//! the start of the message header, as the specification defines them. Each function
//! takes one message (header and body, up to the next compounded message) and answers
//! `None` when it is too short.

use super::bytes::{slice, u16_at, u32_at, u64_at, u8_at, utf16};

/// Bytes of an SMB2 header.
pub const HDR_LEN: usize = 64;

/// `NEGOTIATE`.
pub const NEGOTIATE: u16 = 0x00;
/// `SESSION_SETUP`.
pub const SESSION_SETUP: u16 = 0x01;
/// `TREE_CONNECT`.
pub const TREE_CONNECT: u16 = 0x03;
/// `CREATE`.
pub const CREATE: u16 = 0x05;
/// `CLOSE`.
pub const CLOSE: u16 = 0x06;
/// `READ`.
pub const READ: u16 = 0x08;
/// `WRITE`.
pub const WRITE: u16 = 0x09;
/// `IOCTL`.
pub const IOCTL: u16 = 0x0b;
/// `SET_INFO`.
pub const SET_INFO: u16 = 0x11;

/// `STATUS_PENDING`: an interim response; the final one follows.
pub const STATUS_PENDING: u32 = 0x0000_0103;

/// An SMB2 message header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// The command.
    pub command: u16,
    /// The status (responses).
    pub status: u32,
    /// A response (`SMB2_FLAGS_SERVER_TO_REDIR`).
    pub response: bool,
    /// An asynchronous message (no tree id).
    pub is_async: bool,
    /// Offset of the next compounded message (0: the last).
    pub next: u32,
    /// The message id.
    pub msg_id: u64,
    /// The tree id (0 in an asynchronous message).
    pub tree_id: u32,
    /// The session id.
    pub session_id: u64,
}

/// The header at the start of `m` (`\xfeSMB`, structure size 64).
pub fn header(m: &[u8]) -> Option<Header> {
    if m.get(..4)? != b"\xfeSMB" || u16_at(m, 4)? != 64 || m.len() < HDR_LEN {
        return None;
    }
    let flags = u32_at(m, 16)?;
    let is_async = flags & 2 != 0;
    Some(Header {
        command: u16_at(m, 12)?,
        status: u32_at(m, 8)?,
        response: flags & 1 != 0,
        is_async,
        next: u32_at(m, 20)?,
        msg_id: u64_at(m, 24)?,
        tree_id: if is_async { 0 } else { u32_at(m, 36)? },
        session_id: u64_at(m, 40)?,
    })
}

/// The buffer a body field pair (offset from the header, length) names, cut to the
/// message.
fn buffer(m: &[u8], off: usize, len: usize) -> Option<&[u8]> {
    if off == 0 || len == 0 {
        return Some(&[]);
    }
    slice(m, off, len)
}

/// A `NEGOTIATE` request: the dialects offered and the client GUID.
pub fn negotiate_request(m: &[u8]) -> Option<(Vec<u16>, &[u8])> {
    let b = m.get(HDR_LEN..)?;
    let count = usize::from(u16_at(b, 2)?);
    let guid = slice(b, 12, 16)?;
    let dialects = (0..count.min(64))
        .map_while(|i| u16_at(b, 36 + 2 * i))
        .collect();
    Some((dialects, guid))
}

/// A `NEGOTIATE` response.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NegotiateResponse {
    /// The dialect chosen.
    pub dialect: u16,
    /// The server GUID.
    pub guid: Vec<u8>,
    /// `MaxReadSize`.
    pub max_read: u32,
    /// `MaxWriteSize`.
    pub max_write: u32,
}

/// A `NEGOTIATE` response body.
pub fn negotiate_response(m: &[u8]) -> Option<NegotiateResponse> {
    let b = m.get(HDR_LEN..)?;
    Some(NegotiateResponse {
        dialect: u16_at(b, 4)?,
        guid: slice(b, 8, 16)?.to_vec(),
        max_read: u32_at(b, 32)?,
        max_write: u32_at(b, 36)?,
    })
}

/// The security blob of a `SESSION_SETUP` request.
pub fn session_setup_request(m: &[u8]) -> Option<&[u8]> {
    let b = m.get(HDR_LEN..)?;
    buffer(m, usize::from(u16_at(b, 12)?), usize::from(u16_at(b, 14)?))
}

/// The path of a `TREE_CONNECT` request (`\\server\share`).
pub fn tree_connect_request(m: &[u8]) -> Option<Vec<u8>> {
    let b = m.get(HDR_LEN..)?;
    let path = buffer(m, usize::from(u16_at(b, 4)?), usize::from(u16_at(b, 6)?))?;
    Some(utf16(path))
}

/// The share type of a `TREE_CONNECT` response (1 disk, 2 pipe, 3 printer).
pub fn tree_connect_response(m: &[u8]) -> Option<u8> {
    u8_at(m.get(HDR_LEN..)?, 2)
}

/// A `CREATE` request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CreateRequest {
    /// The name (UTF-8).
    pub name: Vec<u8>,
    /// `CreateDisposition`.
    pub disposition: u32,
    /// `CreateOptions`.
    pub options: u32,
}

/// A `CREATE` request body.
pub fn create_request(m: &[u8]) -> Option<CreateRequest> {
    let b = m.get(HDR_LEN..)?;
    let name = buffer(m, usize::from(u16_at(b, 44)?), usize::from(u16_at(b, 46)?))?;
    Some(CreateRequest {
        name: utf16(name),
        disposition: u32_at(b, 36)?,
        options: u32_at(b, 40)?,
    })
}

/// A `CREATE` response (or an SMB1 `NT_CREATE_ANDX` one): times, size and the file id.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CreateResponse {
    /// Creation, last access, last write and change times (FILETIME).
    pub times: [u64; 4],
    /// `EndofFile` (SMB2) or `AllocationSize` (SMB1).
    pub size: u64,
    /// The file is a directory (SMB2 `FileAttributes`).
    pub directory: bool,
    /// The file id (16 bytes for SMB2, 2 for SMB1).
    pub fid: Vec<u8>,
}

/// A `CREATE` response body.
pub fn create_response(m: &[u8]) -> Option<CreateResponse> {
    let b = m.get(HDR_LEN..)?;
    Some(CreateResponse {
        times: [
            u64_at(b, 8)?,
            u64_at(b, 16)?,
            u64_at(b, 24)?,
            u64_at(b, 32)?,
        ],
        size: u64_at(b, 48)?,
        directory: u32_at(b, 56)? & 0x10 != 0,
        fid: slice(b, 64, 16)?.to_vec(),
    })
}

/// The file id of a `CLOSE` request.
pub fn close_request(m: &[u8]) -> Option<&[u8]> {
    slice(m.get(HDR_LEN..)?, 8, 16)
}

/// A `READ` request: length, offset and file id.
pub fn read_request(m: &[u8]) -> Option<(u32, u64, &[u8])> {
    let b = m.get(HDR_LEN..)?;
    Some((u32_at(b, 4)?, u64_at(b, 8)?, slice(b, 16, 16)?))
}

/// The data of a `READ` response.
pub fn read_response(m: &[u8]) -> Option<&[u8]> {
    let b = m.get(HDR_LEN..)?;
    let off = usize::from(u8_at(b, 2)?);
    let len = u32_at(b, 4)? as usize;
    let len = len.min(m.len().saturating_sub(off));
    buffer(m, off, len)
}

/// A `WRITE` request: offset, file id and data.
pub fn write_request(m: &[u8]) -> Option<(u64, &[u8], &[u8])> {
    let b = m.get(HDR_LEN..)?;
    let off = usize::from(u16_at(b, 2)?);
    let len = (u32_at(b, 4)? as usize).min(m.len().saturating_sub(off));
    Some((u64_at(b, 8)?, slice(b, 16, 16)?, buffer(m, off, len)?))
}

/// An `IOCTL` request or response: the control code, the file id and the input
/// (request) or output (response) buffer.
pub fn ioctl(m: &[u8], response: bool) -> Option<(u32, &[u8], &[u8])> {
    let b = m.get(HDR_LEN..)?;
    let (off, len) = if response {
        (u32_at(b, 32)?, u32_at(b, 36)?)
    } else {
        (u32_at(b, 24)?, u32_at(b, 28)?)
    };
    let off = off as usize;
    let len = (len as usize).min(m.len().saturating_sub(off));
    Some((u32_at(b, 4)?, slice(b, 8, 16)?, buffer(m, off, len)?))
}

/// A `SET_INFO` request: info type, class, file id and buffer.
pub fn set_info_request(m: &[u8]) -> Option<(u8, u8, &[u8], &[u8])> {
    let b = m.get(HDR_LEN..)?;
    let len = u32_at(b, 4)? as usize;
    let off = usize::from(u16_at(b, 8)?);
    Some((
        u8_at(b, 2)?,
        u8_at(b, 3)?,
        slice(b, 16, 16)?,
        buffer(m, off, len.min(m.len().saturating_sub(off)))?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A header for `command` with message id `mid` (a response when `resp`).
    pub(crate) fn hdr(command: u16, mid: u64, resp: bool) -> Vec<u8> {
        let mut h = vec![0u8; 64];
        h[..4].copy_from_slice(b"\xfeSMB");
        h[4] = 64;
        h[12..14].copy_from_slice(&command.to_le_bytes());
        h[16] = u8::from(resp);
        h[24..32].copy_from_slice(&mid.to_le_bytes());
        h[36..40].copy_from_slice(&7u32.to_le_bytes());
        h[40..48].copy_from_slice(&9u64.to_le_bytes());
        h
    }

    #[test]
    fn header_fields() {
        let h = header(&hdr(CREATE, 5, true)).unwrap();
        assert_eq!((h.command, h.msg_id, h.tree_id, h.session_id), (5, 5, 7, 9));
        assert!(h.response && !h.is_async);
        assert_eq!(header(&hdr(CREATE, 5, true)[..63]), None);
        assert_eq!(header(b"\xffSMB"), None);
    }

    #[test]
    fn short_bodies_are_none() {
        let m = hdr(CREATE, 1, false);
        assert_eq!(create_request(&m), None);
        assert_eq!(negotiate_response(&m), None);
        assert_eq!(read_request(&m), None);
        assert_eq!(ioctl(&m, true), None);
    }
}

#[cfg(test)]
mod real_bytes {
    use super::*;
    use crate::smb::auth::{self, Auth};
    use crate::smb::names;

    /// Messages of sv-ether.pcap's flow 192.168.56.104:62618 → 192.168.56.102:445.
    const NEGOTIATE_RESPONSE: &[u8] = include_bytes!("testdata/smb2-negotiate-response.bin");
    const SETUP_REQUEST: &[u8] = include_bytes!("testdata/smb2-session-setup-ntlmssp.bin");

    #[test]
    fn negotiate_response_of_a_windows_server() {
        let h = header(NEGOTIATE_RESPONSE).unwrap();
        assert!(h.response);
        assert_eq!(h.command, NEGOTIATE);
        let r = negotiate_response(NEGOTIATE_RESPONSE).unwrap();
        assert_eq!(names::smb2_dialect(r.dialect), "2.10");
        assert_eq!(names::guid(&r.guid), "a301c59f-b77b-4a9a-fc97-26bd1be51ec2");
        assert_eq!((r.max_read, r.max_write), (8_388_608, 8_388_608));
    }

    #[test]
    fn ntlmssp_logon_of_a_windows_client() {
        let h = header(SETUP_REQUEST).unwrap();
        assert_eq!(h.command, super::SESSION_SETUP);
        let blob = session_setup_request(SETUP_REQUEST).unwrap();
        let Ok(Some(Auth::Ntlmssp(n))) = auth::parse(blob) else {
            panic!("no NTLMSSP logon");
        };
        assert_eq!(n.user, b"Administrator");
        assert_eq!(n.host, b"WIN10");
        assert_eq!(n.domain, b"");
    }
}
