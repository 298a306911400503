//! FTP: `ftpbounce` (control flow) and `ftpdata_command` (data connection).
//! Suricata 7 has no FTP sticky buffers (`ftp.command` is Suricata 8's).

use super::{push_app, Ctx, Keyword, Kind, Value};
use crate::ast::{AppProto, AppValue};
use crate::diag::Reason;
use crate::parser::state::State;

/// The FTP control channel.
const FTP: &[AppProto] = &[AppProto::Ftp];

/// FTP data connections.
const FTP_DATA: &[AppProto] = &[AppProto::FtpData];

/// FTP keywords.
pub(super) const KEYWORDS: &[Keyword] = &[
    Keyword::new("ftpbounce", Value::None, Kind::Option, bounce)
        .protos(FTP)
        .once()
        .about(
            "detect the FTP bounce attack (PORT to a third host)",
            "rules/ftp-keywords.html#ftpbounce",
        ),
    Keyword::new(
        "ftpdata_command",
        Value::Required,
        Kind::Option,
        data_command,
    )
    .protos(FTP_DATA)
    .once()
    .about(
        "match the FTP command (stor or retr) of a data connection",
        "rules/ftp-keywords.html#ftpdata-command",
    ),
];

/// `ftpbounce`: a `PORT` naming an address other than the client's.
fn bounce(st: &mut State, c: &Ctx<'_>) {
    push_app(st, c, false, AppValue::Flag);
}

/// `ftpdata_command:retr|stor`.
fn data_command(st: &mut State, c: &Ctx<'_>) {
    let v = c.o.value.unwrap_or("").trim();
    let cmd = tryv!(
        st,
        c.o,
        c.kw,
        match v.to_ascii_lowercase().as_str() {
            "retr" => Ok("RETR"),
            "stor" => Ok("STOR"),
            _ => Err(format!("ftpdata_command: {v:?} is not retr or stor")),
        }
    );
    push_app(st, c, false, AppValue::Text(cmd.into()));
}
