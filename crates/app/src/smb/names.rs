//! The names Suricata's `smb` records give to SMB values: commands, NT and DOS status
//! codes, dialects, create dispositions, FSCTL codes.

/// The EVE name of SMB1 command `c` (`SMB1_COMMAND_NEGOTIATE_PROTOCOL`, ...).
pub fn smb1_command(c: u8) -> &'static str {
    match c {
        0x00 => "SMB1_COMMAND_CREATE_DIRECTORY",
        0x01 => "SMB1_COMMAND_DELETE_DIRECTORY",
        0x02 => "SMB1_COMMAND_OPEN",
        0x03 => "SMB1_COMMAND_CREATE",
        0x04 => "SMB1_COMMAND_CLOSE",
        0x05 => "SMB1_COMMAND_FLUSH",
        0x06 => "SMB1_COMMAND_DELETE",
        0x07 => "SMB1_COMMAND_RENAME",
        0x08 => "SMB1_COMMAND_QUERY_INFORMATION",
        0x09 => "SMB1_COMMAND_SET_INFORMATION",
        0x0a => "SMB1_COMMAND_READ",
        0x0b => "SMB1_COMMAND_WRITE",
        0x0c => "SMB1_COMMAND_LOCK_BYTE_RANGE",
        0x0d => "SMB1_COMMAND_UNLOCK_BYTE_RANGE",
        0x0e => "SMB1_COMMAND_CREATE_TEMPORARY",
        0x0f => "SMB1_COMMAND_CREATE_NEW",
        0x10 => "SMB1_COMMAND_CHECK_DIRECTORY",
        0x11 => "SMB1_COMMAND_PROCESS_EXIT",
        0x12 => "SMB1_COMMAND_SEEK",
        0x13 => "SMB1_COMMAND_LOCK_AND_READ",
        0x14 => "SMB1_COMMAND_WRITE_AND_UNLOCK",
        0x1a => "SMB1_COMMAND_READ_RAW",
        0x1d => "SMB1_COMMAND_WRITE_RAW",
        0x22 => "SMB1_COMMAND_SET_INFORMATION2",
        0x23 => "SMB1_COMMAND_QUERY_INFORMATION2",
        0x24 => "SMB1_COMMAND_LOCKING_ANDX",
        0x25 => "SMB1_COMMAND_TRANS",
        0x26 => "SMB1_COMMAND_TRANS_SECONDARY",
        0x27 => "SMB1_COMMAND_IOCTL",
        0x2b => "SMB1_COMMAND_ECHO",
        0x2d => "SMB1_COMMAND_OPEN_ANDX",
        0x2e => "SMB1_COMMAND_READ_ANDX",
        0x2f => "SMB1_COMMAND_WRITE_ANDX",
        0x31 => "SMB1_COMMAND_CLOSE_AND_TREE_DISC",
        0x32 => "SMB1_COMMAND_TRANS2",
        0x33 => "SMB1_COMMAND_TRANS2_SECONDARY",
        0x34 => "SMB1_COMMAND_FIND_CLOSE2",
        0x70 => "SMB1_COMMAND_TREE_CONNECT",
        0x71 => "SMB1_COMMAND_TREE_DISCONNECT",
        0x72 => "SMB1_COMMAND_NEGOTIATE_PROTOCOL",
        0x73 => "SMB1_COMMAND_SESSION_SETUP_ANDX",
        0x74 => "SMB1_COMMAND_LOGOFF_ANDX",
        0x75 => "SMB1_COMMAND_TREE_CONNECT_ANDX",
        0x80 => "SMB1_COMMAND_QUERY_INFO_DISK",
        0x81 => "SMB1_COMMAND_SEARCH",
        0x82 => "SMB1_COMMAND_FIND",
        0x83 => "SMB1_COMMAND_FIND_UNIQUE",
        0x84 => "SMB1_COMMAND_FIND_CLOSE",
        0xa0 => "SMB1_COMMAND_NT_TRANS",
        0xa1 => "SMB1_COMMAND_NT_TRANS_SECONDARY",
        0xa2 => "SMB1_COMMAND_NT_CREATE_ANDX",
        0xa4 => "SMB1_COMMAND_NT_CANCEL",
        0xa5 => "SMB1_COMMAND_NT_RENAME",
        0xc0 => "SMB1_COMMAND_OPEN_PRINT_FILE",
        0xc1 => "SMB1_COMMAND_WRITE_PRINT_FILE",
        0xc2 => "SMB1_COMMAND_CLOSE_PRINT_FILE",
        0xc3 => "SMB1_COMMAND_GET_PRINT_QUEUE",
        _ => "SMB1_COMMAND_UNKNOWN",
    }
}

/// The EVE name of SMB2 command `c` (`SMB2_COMMAND_CREATE`, ...).
pub fn smb2_command(c: u16) -> &'static str {
    match c {
        0x00 => "SMB2_COMMAND_NEGOTIATE_PROTOCOL",
        0x01 => "SMB2_COMMAND_SESSION_SETUP",
        0x02 => "SMB2_COMMAND_SESSION_LOGOFF",
        0x03 => "SMB2_COMMAND_TREE_CONNECT",
        0x04 => "SMB2_COMMAND_TREE_DISCONNECT",
        0x05 => "SMB2_COMMAND_CREATE",
        0x06 => "SMB2_COMMAND_CLOSE",
        0x07 => "SMB2_COMMAND_FLUSH",
        0x08 => "SMB2_COMMAND_READ",
        0x09 => "SMB2_COMMAND_WRITE",
        0x0a => "SMB2_COMMAND_LOCK",
        0x0b => "SMB2_COMMAND_IOCTL",
        0x0c => "SMB2_COMMAND_CANCEL",
        0x0d => "SMB2_COMMAND_KEEPALIVE",
        0x0e => "SMB2_COMMAND_FIND",
        0x0f => "SMB2_COMMAND_CHANGE_NOTIFY",
        0x10 => "SMB2_COMMAND_GET_INFO",
        0x11 => "SMB2_COMMAND_SET_INFO",
        0x12 => "SMB2_COMMAND_OPLOCK_BREAK",
        _ => "SMB2_COMMAND_UNKNOWN",
    }
}

/// The name of an SMB2 dialect revision (`2.02`, `3.11`, `2.??` for the wildcard).
pub fn smb2_dialect(d: u16) -> String {
    match d {
        0x02ff => "2.??".into(),
        0x0202 => "2.02".into(),
        0x0210 => "2.10".into(),
        0x0222 => "2.22".into(),
        0x0224 => "2.24".into(),
        0x0300 => "3.00".into(),
        0x0302 => "3.02".into(),
        0x0310 => "3.10".into(),
        0x0311 => "3.11".into(),
        _ => format!("{d:x}"),
    }
}

/// The name of an NT status code, if it is one Suricata names.
pub fn nt_status(s: u32) -> Option<&'static str> {
    Some(match s {
        0x0000_0000 => "STATUS_SUCCESS",
        0x0000_0103 => "STATUS_PENDING",
        0x0000_010b => "STATUS_NOTIFY_CLEANUP",
        0x0000_010c => "STATUS_NOTIFY_ENUM_DIR",
        0x8000_0005 => "STATUS_BUFFER_OVERFLOW",
        0x8000_0006 => "STATUS_NO_MORE_FILES",
        0xc000_0001 => "STATUS_UNSUCCESSFUL",
        0xc000_0002 => "STATUS_NOT_IMPLEMENTED",
        0xc000_0003 => "STATUS_INVALID_INFO_CLASS",
        0xc000_0008 => "STATUS_INVALID_HANDLE",
        0xc000_000d => "STATUS_INVALID_PARAMETER",
        0xc000_000f => "STATUS_NO_SUCH_FILE",
        0xc000_0010 => "STATUS_INVALID_DEVICE_REQUEST",
        0xc000_0011 => "STATUS_END_OF_FILE",
        0xc000_0016 => "STATUS_MORE_PROCESSING_REQUIRED",
        0xc000_0022 => "STATUS_ACCESS_DENIED",
        0xc000_0023 => "STATUS_BUFFER_TOO_SMALL",
        0xc000_0033 => "STATUS_OBJECT_NAME_INVALID",
        0xc000_0034 => "STATUS_OBJECT_NAME_NOT_FOUND",
        0xc000_0035 => "STATUS_OBJECT_NAME_COLLISION",
        0xc000_003a => "STATUS_OBJECT_PATH_NOT_FOUND",
        0xc000_0043 => "STATUS_SHARING_VIOLATION",
        0xc000_0054 => "STATUS_FILE_LOCK_CONFLICT",
        0xc000_0055 => "STATUS_LOCK_NOT_GRANTED",
        0xc000_0056 => "STATUS_DELETE_PENDING",
        0xc000_005f => "STATUS_NO_SUCH_LOGON_SESSION",
        0xc000_006a => "STATUS_WRONG_PASSWORD",
        0xc000_006d => "STATUS_LOGON_FAILURE",
        0xc000_006e => "STATUS_ACCOUNT_RESTRICTION",
        0xc000_0071 => "STATUS_PASSWORD_EXPIRED",
        0xc000_0072 => "STATUS_ACCOUNT_DISABLED",
        0xc000_009a => "STATUS_INSUFFICIENT_RESOURCES",
        0xc000_00b5 => "STATUS_IO_TIMEOUT",
        0xc000_00ba => "STATUS_FILE_IS_A_DIRECTORY",
        0xc000_00bb => "STATUS_NOT_SUPPORTED",
        0xc000_00c9 => "STATUS_NETWORK_NAME_DELETED",
        0xc000_00cc => "STATUS_BAD_NETWORK_NAME",
        0xc000_0101 => "STATUS_DIRECTORY_NOT_EMPTY",
        0xc000_0103 => "STATUS_NOT_A_DIRECTORY",
        0xc000_0120 => "STATUS_CANCELLED",
        0xc000_0128 => "STATUS_FILE_CLOSED",
        0xc000_0184 => "STATUS_INVALID_DEVICE_STATE",
        0xc000_019c => "STATUS_FS_DRIVER_REQUIRED",
        0xc000_0203 => "STATUS_USER_SESSION_DELETED",
        0xc000_0225 => "STATUS_NOT_FOUND",
        0xc000_022a => "STATUS_DUPLICATE_OBJECTID",
        0xc000_0233 => "STATUS_DOMAIN_CONTROLLER_NOT_FOUND",
        0xc000_0257 => "STATUS_PATH_NOT_COVERED",
        0xc000_035c => "STATUS_NETWORK_SESSION_EXPIRED",
        _ => return None,
    })
}

/// The `status` and `status_code` of an SMB2 response, or of an SMB1 response with
/// an NT status.
pub fn nt_status_fields(s: u32) -> (String, String) {
    let name = nt_status(s).map_or_else(|| format!("{s}"), str::to_string);
    (name, format!("0x{s:x}"))
}

/// The `status` and `status_code` of an SMB1 response with a DOS error (`class`,
/// `code`): server errors by name, DOS errors by number, others as `UNKNOWN_cc_cccc`.
pub fn dos_status_fields(class: u8, code: u16) -> (String, String) {
    let name = match (class, code) {
        (1, c) => format!("{c}"),
        (2, 1) => "SRV_ERROR".into(),
        (2, 2) => "SRV_BADPW".into(),
        (2, 4) => "SRV_ACCESS".into(),
        (2, 5) => "SRV_INVTID".into(),
        (2, 6) => "SRV_INVNETNAME".into(),
        (2, 7) => "SRV_INVDEVICE".into(),
        (2, 0x5b) => "SRV_BADUID".into(),
        (2, 0xfbff) => "SRV_NOSUPPORT".into(),
        _ => format!("UNKNOWN_{class:02x}_{code:04x}"),
    };
    (name, format!("0x{code:04x}"))
}

/// A create disposition's name (`FILE_OPEN`, ...).
pub fn disposition(d: u32) -> &'static str {
    match d {
        0 => "FILE_SUPERSEDE",
        1 => "FILE_OPEN",
        2 => "FILE_CREATE",
        3 => "FILE_OPEN_IF",
        4 => "FILE_OVERWRITE",
        5 => "FILE_OVERWRITE_IF",
        _ => "UNKNOWN",
    }
}

/// An FSCTL code's name (`FSCTL_PIPE_TRANSCEIVE`, ...), or its number.
pub fn fsctl(c: u32) -> String {
    let name = match c {
        0x0006_0194 => "FSCTL_DFS_GET_REFERRALS",
        0x0006_01b0 => "FSCTL_DFS_GET_REFERRALS_EX",
        0x0011_400c => "FSCTL_PIPE_PEEK",
        0x0011_0018 => "FSCTL_PIPE_WAIT",
        0x0011_c017 => "FSCTL_PIPE_TRANSCEIVE",
        0x0014_0078 => "FSCTL_SRV_REQUEST_RESUME_KEY",
        0x0014_01d4 => "FSCTL_LMR_REQUEST_RESILIENCY",
        0x0014_01fc => "FSCTL_QUERY_NETWORK_INTERFACE_INFO",
        0x0014_0204 => "FSCTL_VALIDATE_NEGOTIATE_INFO",
        0x0014_4064 => "FSCTL_SRV_ENUMERATE_SNAPSHOTS",
        0x0014_40f2 => "FSCTL_SRV_COPYCHUNK",
        0x0014_41bb => "FSCTL_SRV_READ_HASH",
        0x0014_80f2 => "FSCTL_SRV_COPYCHUNK_WRITE",
        0x0009_00a4 => "FSCTL_SET_REPARSE_POINT",
        0x0009_00a8 => "FSCTL_GET_REPARSE_POINT",
        0x0009_009c => "FSCTL_GET_OBJECT_ID",
        0x0009_00c0 => "FSCTL_CREATE_OR_GET_OBJECT_ID",
        0x0009_00c4 => "FSCTL_SET_SPARSE",
        0x0009_8208 => "FSCTL_FILE_LEVEL_TRIM",
        _ => return format!("{c}"),
    };
    name.into()
}

/// A 16-byte GUID as text, as Suricata writes it: a 32-bit, three 16-bit and a 32-bit
/// little-endian field (`a301c59f-b77b-4a9a-fc97-26bd1be51ec2`).
pub fn guid(g: &[u8]) -> String {
    if g.len() != 16 {
        return String::new();
    }
    format!(
        "{:02x}{:02x}{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}{:02x}{:02x}{:02x}{:02x}",
        g[3], g[2], g[1], g[0], g[5], g[4], g[7], g[6], g[9], g[8], g[11], g[10], g[15], g[14], g[13], g[12]
    )
}

/// A Windows FILETIME (100 ns since 1601) as Unix seconds; 0 stays 0.
pub fn filetime(t: u64) -> u64 {
    (t / 10_000_000).saturating_sub(11_644_473_600)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(smb1_command(0x72), "SMB1_COMMAND_NEGOTIATE_PROTOCOL");
        assert_eq!(smb2_command(0x0e), "SMB2_COMMAND_FIND");
        assert_eq!(smb2_dialect(0x02ff), "2.??");
        assert_eq!(
            nt_status_fields(0xc000_0016),
            (
                "STATUS_MORE_PROCESSING_REQUIRED".into(),
                "0xc0000016".into()
            )
        );
        assert_eq!(nt_status_fields(0), ("STATUS_SUCCESS".into(), "0x0".into()));
        assert_eq!(
            dos_status_fields(2, 0x5b),
            ("SRV_BADUID".into(), "0x005b".into())
        );
        assert_eq!(dos_status_fields(1, 5), ("5".into(), "0x0005".into()));
        assert_eq!(
            dos_status_fields(0, 0),
            ("UNKNOWN_00_0000".into(), "0x0000".into())
        );
        assert_eq!(fsctl(0x0011_c017), "FSCTL_PIPE_TRANSCEIVE");
        assert_eq!(filetime(0), 0);
        // The server GUID of sv-ether.pcap's flow 192.168.56.104:62618.
        let g = [
            0x9f, 0xc5, 0x01, 0xa3, 0x7b, 0xb7, 0x9a, 0x4a, 0x97, 0xfc, 0xbd, 0x26, 0xc2, 0x1e,
            0xe5, 0x1b,
        ];
        assert_eq!(guid(&g), "a301c59f-b77b-4a9a-fc97-26bd1be51ec2");
        assert_eq!(filetime(129_763_852_880_000_000), 1_331_911_688);
    }
}
