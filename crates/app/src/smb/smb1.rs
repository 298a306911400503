//! SMB1 messages (MS-CIFS 2.2): the 32-byte header, the parameter/data blocks of a
//! message with its AndX chain, and the commands the `smb` records describe. Offsets
//! in a block (data, strings) count from the start of the header; Unicode strings are
//! aligned to two bytes from there.

use super::bytes::{cstr, slice, u16_at, u32_at, u64_at, u8_at};

/// Bytes of an SMB1 header.
pub const HDR_LEN: usize = 32;

/// `CLOSE`.
pub const CLOSE: u8 = 0x04;
/// `LOCKING_ANDX`.
pub const LOCKING_ANDX: u8 = 0x24;
/// `TRANS`.
pub const TRANS: u8 = 0x25;
/// `READ_ANDX`.
pub const READ_ANDX: u8 = 0x2e;
/// `WRITE_ANDX`.
pub const WRITE_ANDX: u8 = 0x2f;
/// `TRANS2`.
pub const TRANS2: u8 = 0x32;
/// `NEGOTIATE_PROTOCOL`.
pub const NEGOTIATE: u8 = 0x72;
/// `SESSION_SETUP_ANDX`.
pub const SESSION_SETUP_ANDX: u8 = 0x73;
/// `TREE_CONNECT_ANDX`.
pub const TREE_CONNECT_ANDX: u8 = 0x75;
/// `NT_CREATE_ANDX`.
pub const NT_CREATE_ANDX: u8 = 0xa2;

/// The commands whose parameters start with an AndX block (next command, offset).
const ANDX: [u8; 9] = [0x24, 0x2d, 0x2e, 0x2f, 0x73, 0x74, 0x75, 0xa2, 0x2d];

/// An SMB1 header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// The (first) command.
    pub command: u8,
    /// The status: an NT status, or a DOS error (class in the low byte, code in the
    /// high half) when `nt_status` is false.
    pub status: u32,
    /// `FLAGS2_NT_STATUS`.
    pub nt_status: bool,
    /// `FLAGS2_UNICODE`: strings are UTF-16LE.
    pub unicode: bool,
    /// A reply (`FLAGS_REPLY`).
    pub response: bool,
    /// Process id (high and low halves).
    pub pid: u32,
    /// Tree id.
    pub tid: u16,
    /// User (session) id.
    pub uid: u16,
    /// Multiplex id.
    pub mid: u16,
}

/// The header at the start of `m` (`\xffSMB`).
pub fn header(m: &[u8]) -> Option<Header> {
    if m.get(..4)? != b"\xffSMB" || m.len() < HDR_LEN {
        return None;
    }
    let flags2 = u16_at(m, 10)?;
    Some(Header {
        command: m[4],
        status: u32_at(m, 5)?,
        nt_status: flags2 & 0x4000 != 0,
        unicode: flags2 & 0x8000 != 0,
        response: m[9] & 0x80 != 0,
        pid: u32::from(u16_at(m, 12)?) << 16 | u32::from(u16_at(m, 26)?),
        tid: u16_at(m, 24)?,
        uid: u16_at(m, 28)?,
        mid: u16_at(m, 30)?,
    })
}

/// One command of a message: its parameter words and data bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Block<'a> {
    /// The command.
    pub command: u8,
    /// The parameter words (`WordCount` × 2 bytes).
    pub words: &'a [u8],
    /// The data bytes (`ByteCount`, cut to the message).
    pub bytes: &'a [u8],
    /// Offset of `bytes` from the start of the header.
    pub bytes_off: usize,
}

/// The block of `command` starting at `off` of message `m`.
fn block(m: &[u8], command: u8, off: usize) -> Option<Block<'_>> {
    let wc = usize::from(u8_at(m, off)?);
    let words = slice(m, off + 1, 2 * wc)?;
    let bc_off = off + 1 + 2 * wc;
    // A reply with an error may end after its word count.
    let bc = usize::from(u16_at(m, bc_off).unwrap_or(0));
    let bytes_off = bc_off + 2;
    let bytes = m.get(bytes_off.min(m.len())..).unwrap_or(&[]);
    let bytes = &bytes[..bc.min(bytes.len())];
    Some(Block {
        command,
        words,
        bytes,
        bytes_off,
    })
}

/// The blocks of message `m`: the first command and those its AndX chain carries
/// (each offset must move forward; at most 8).
pub fn blocks<'a>(m: &'a [u8], h: &Header) -> Vec<Block<'a>> {
    let mut out = Vec::new();
    let (mut cmd, mut off) = (h.command, HDR_LEN);
    while let Some(b) = block(m, cmd, off) {
        out.push(b);
        if !ANDX.contains(&cmd) || b.words.len() < 4 || out.len() >= 8 {
            break;
        }
        let next = b.words[0];
        let next_off = usize::from(u16_at(b.words, 2).unwrap_or(0));
        if next == 0xff || next_off <= off {
            break;
        }
        (cmd, off) = (next, next_off);
    }
    out
}

/// A string of a block's data at `pos` (an index into `b.bytes`), Unicode strings
/// aligned to two bytes from the header; with the position after it.
pub fn string(b: &Block<'_>, pos: usize, unicode: bool) -> (Vec<u8>, usize) {
    let mut p = pos;
    if unicode && (b.bytes_off + p) % 2 == 1 {
        p += 1;
    }
    let rest = b.bytes.get(p..).unwrap_or(&[]);
    let (s, after) = cstr(rest, unicode);
    (s, b.bytes.len() - after.len())
}

/// The dialect names a `NEGOTIATE` request offers.
pub fn negotiate_request(b: &Block<'_>) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut rest = b.bytes;
    while let [0x02, tail @ ..] = rest {
        let (s, after) = cstr(tail, false);
        out.push(s);
        rest = after;
        if out.len() >= 64 {
            break;
        }
    }
    out
}

/// A `NEGOTIATE` response: the index of the chosen dialect and the server GUID (with
/// extended security).
pub fn negotiate_response<'a>(b: &Block<'a>) -> Option<(u16, Option<&'a [u8]>)> {
    let index = u16_at(b.words, 0)?;
    let caps = u32_at(b.words, 19).unwrap_or(0);
    let guid = if b.words.len() >= 34 && caps & 0x8000_0000 != 0 {
        slice(b.bytes, 0, 16)
    } else {
        None
    };
    Some((index, guid))
}

/// A `SESSION_SETUP_ANDX` request or response: the security blob (extended
/// security) and the native OS and LAN manager names.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SessionSetup<'a> {
    /// The security blob (empty without extended security).
    pub blob: &'a [u8],
    /// `NativeOS`.
    pub native_os: Vec<u8>,
    /// `NativeLanMan`.
    pub native_lm: Vec<u8>,
}

/// A `SESSION_SETUP_ANDX` request.
pub fn session_setup_request<'a>(b: &Block<'a>, unicode: bool) -> Option<SessionSetup<'a>> {
    match b.words.len() {
        24 => {
            let len = usize::from(u16_at(b.words, 14)?);
            let blob = slice(b.bytes, 0, len).unwrap_or(b.bytes);
            let (native_os, p) = string(b, blob.len(), unicode);
            let (native_lm, _) = string(b, p, unicode);
            Some(SessionSetup {
                blob,
                native_os,
                native_lm,
            })
        }
        26 => {
            let oem = usize::from(u16_at(b.words, 14)?);
            let uni = usize::from(u16_at(b.words, 16)?);
            let mut p = oem + uni;
            for _ in 0..2 {
                p = string(b, p, unicode).1; // account name, primary domain
            }
            let (native_os, p) = string(b, p, unicode);
            let (native_lm, _) = string(b, p, unicode);
            Some(SessionSetup {
                blob: &[],
                native_os,
                native_lm,
            })
        }
        _ => None,
    }
}

/// A `SESSION_SETUP_ANDX` response.
pub fn session_setup_response<'a>(b: &Block<'a>, unicode: bool) -> Option<SessionSetup<'a>> {
    let blob = match b.words.len() {
        8 => slice(b.bytes, 0, usize::from(u16_at(b.words, 6)?)).unwrap_or(b.bytes),
        6 => &[][..],
        _ => return None,
    };
    let (native_os, p) = string(b, blob.len(), unicode);
    let (native_lm, _) = string(b, p, unicode);
    Some(SessionSetup {
        blob,
        native_os,
        native_lm,
    })
}

/// A `TREE_CONNECT_ANDX` request: the path and the service asked for.
pub fn tree_connect_request(b: &Block<'_>, unicode: bool) -> Option<(Vec<u8>, Vec<u8>)> {
    let pwlen = usize::from(u16_at(b.words, 6)?);
    let (mut path, p) = string(b, pwlen, unicode);
    let (service, _) = string(b, p, false);
    // Suricata shows an SMB1 share path with one leading backslash.
    if path.starts_with(b"\\\\") {
        path.remove(0);
    }
    Some((path, service))
}

/// The service of a `TREE_CONNECT_ANDX` response (`A:`, `IPC`, ...).
pub fn tree_connect_response(b: &Block<'_>) -> Vec<u8> {
    cstr(b.bytes, false).0
}

/// An `NT_CREATE_ANDX` request: name, disposition and create options.
pub fn nt_create_request(b: &Block<'_>, unicode: bool) -> Option<(Vec<u8>, u32, u32)> {
    let disposition = u32_at(b.words, 35)?;
    let options = u32_at(b.words, 39)?;
    let (name, _) = string(b, 0, unicode);
    Some((name, disposition, options))
}

/// An `NT_CREATE_ANDX` response: times, size and the 2-byte FID.
pub fn nt_create_response(b: &Block<'_>) -> Option<super::smb2::CreateResponse> {
    Some(super::smb2::CreateResponse {
        times: [
            u64_at(b.words, 11)?,
            u64_at(b.words, 19)?,
            u64_at(b.words, 27)?,
            u64_at(b.words, 35)?,
        ],
        // Suricata reports the allocation size of an SMB1 create.
        size: u64_at(b.words, 47)?,
        fid: slice(b.words, 5, 2)?.to_vec(),
        directory: false,
    })
}

/// The FID of a `CLOSE` request.
pub fn close_request<'a>(b: &Block<'a>) -> Option<&'a [u8]> {
    slice(b.words, 0, 2)
}

/// A `READ_ANDX` request: FID and offset.
pub fn read_andx_request<'a>(b: &Block<'a>) -> Option<(&'a [u8], u64)> {
    let high = if b.words.len() >= 24 {
        u64::from(u32_at(b.words, 20)?)
    } else {
        0
    };
    Some((
        slice(b.words, 4, 2)?,
        high << 32 | u64::from(u32_at(b.words, 6)?),
    ))
}

/// The data of a `READ_ANDX` response in message `m`.
pub fn read_andx_response<'a>(m: &'a [u8], b: &Block<'_>) -> Option<&'a [u8]> {
    let len = usize::from(u16_at(b.words, 10)?) | usize::from(u16_at(b.words, 14)?) << 16;
    let off = usize::from(u16_at(b.words, 12)?);
    m.get(off..).map(|d| &d[..len.min(d.len())])
}

/// A `WRITE_ANDX` request in message `m`: FID, offset and data.
pub fn write_andx_request<'a>(m: &'a [u8], b: &Block<'a>) -> Option<(&'a [u8], u64, &'a [u8])> {
    let fid = slice(b.words, 4, 2)?;
    let high = if b.words.len() >= 28 {
        u64::from(u32_at(b.words, 24)?)
    } else {
        0
    };
    let offset = high << 32 | u64::from(u32_at(b.words, 6)?);
    let len = usize::from(u16_at(b.words, 20)?) | usize::from(u16_at(b.words, 18)?) << 16;
    let off = usize::from(u16_at(b.words, 22)?);
    let data = m.get(off..).map(|d| &d[..len.min(d.len())])?;
    Some((fid, offset, data))
}

/// A `TRANS` request in message `m`: its setup words (function, FID for a named
/// pipe) and data.
pub fn trans_request<'a>(m: &'a [u8], b: &Block<'a>) -> Option<(&'a [u8], &'a [u8])> {
    let count = usize::from(u16_at(b.words, 22)?);
    let off = usize::from(u16_at(b.words, 24)?);
    let setup = slice(b.words, 28, 2 * usize::from(u8_at(b.words, 26)?)).unwrap_or(&[]);
    let data = m.get(off..).map(|d| &d[..count.min(d.len())])?;
    Some((setup, data))
}

/// The data of a `TRANS` response in message `m`.
pub fn trans_response<'a>(m: &'a [u8], b: &Block<'_>) -> Option<&'a [u8]> {
    let count = usize::from(u16_at(b.words, 12)?);
    let off = usize::from(u16_at(b.words, 14)?);
    m.get(off..).map(|d| &d[..count.min(d.len())])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A message of `command` with `words` and `bytes` (a reply when `resp`).
    pub(crate) fn msg(command: u8, resp: bool, words: &[u8], bytes: &[u8]) -> Vec<u8> {
        let mut m = vec![0u8; 32];
        m[..4].copy_from_slice(b"\xffSMB");
        m[4] = command;
        m[9] = if resp { 0x80 } else { 0 };
        m[10..12].copy_from_slice(&0xc001u16.to_le_bytes());
        m[30] = 3;
        m.push((words.len() / 2) as u8);
        m.extend_from_slice(words);
        m.extend_from_slice(&(bytes.len() as u16).to_le_bytes());
        m.extend_from_slice(bytes);
        m
    }

    #[test]
    fn negotiate_dialects() {
        let m = msg(NEGOTIATE, false, &[], b"\x02NT LM 0.12\0\x02SMB 2.002\0");
        let h = header(&m).unwrap();
        assert!(h.unicode && h.nt_status && !h.response);
        let b = blocks(&m, &h);
        assert_eq!(b.len(), 1);
        assert_eq!(
            negotiate_request(&b[0]),
            vec![b"NT LM 0.12".to_vec(), b"SMB 2.002".to_vec()]
        );
    }

    #[test]
    fn andx_chain_is_followed_forward_only() {
        // A SESSION_SETUP_ANDX whose AndX points back at itself: one block.
        let mut words = vec![0x75, 0, 32, 0];
        words.resize(24, 0);
        let m = msg(SESSION_SETUP_ANDX, false, &words, b"");
        let h = header(&m).unwrap();
        assert_eq!(blocks(&m, &h).len(), 1);
    }

    #[test]
    fn truncated_is_none() {
        assert_eq!(header(b"\xffSMB\x72"), None);
        let m = msg(NT_CREATE_ANDX, false, &[0; 10], b"");
        let h = header(&m).unwrap();
        let b = blocks(&m, &h);
        assert_eq!(nt_create_request(&b[0], true), None);
    }
}
