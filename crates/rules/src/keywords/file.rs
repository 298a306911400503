//! Files: the `file.data`, `file.name` and `file.magic` buffers, and the file options
//! matched on each file of a transaction: `filename`, `fileext`, `filemagic`,
//! `filesize`, `filemd5`/`filesha1`/`filesha256` and `filestore`.
//!
//! Each option is typed here into an [`crate::ast::AppOpt`] whose value is one of:
//! - `filename`/`filemagic`/`fileext`: [`AppValue::Text`] holding the decoded bytes as
//!   Latin-1 characters (one char per byte), matched without case (`filename` and
//!   `filemagic` anywhere in the name or type, `fileext` as the name's ending
//!   `.<ext>`), `!` negating;
//! - `filesize`: [`AppValue::Ints`] with one comparison;
//! - `filemd5`/`filesha1`/`filesha256`: [`AppValue::Text`], the hash list file's name
//!   (resolved against the rule file's directory by detect), `!` negating;
//! - `filestore`: [`AppValue::Text`] `"<direction>,<scope>"` (`request`/`response`/
//!   `both`, `file`/`tx`/`ssn`), default `"file,file"`-style values filled in.

use super::{push_app, Ctx, Keyword, Kind, Stickies, Value};
use crate::ast::{AppProto, AppValue};
use crate::buffers::Buffer;
use crate::diag::Reason;
use crate::parser::state::State;

/// The protocols whose transactions carry files (the first one is used when the rule's
/// header names none of them).
pub(crate) const FILE_PROTOS: &[AppProto] = &[
    AppProto::Http,
    AppProto::Smtp,
    AppProto::Smb,
    AppProto::Nfs,
    AppProto::FtpData,
    AppProto::Http2,
    AppProto::Tftp,
];

/// File keywords.
pub(super) const KEYWORDS: &[Keyword] = &[
    Keyword::new("filemd5", Value::Required, Kind::Option, hash_list)
        .protos(FILE_PROTOS)
        .about(
            "match files whose MD5 is in a list",
            "rules/file-keywords.html#filemd5",
        ),
    Keyword::new("filesha1", Value::Required, Kind::Option, hash_list)
        .protos(FILE_PROTOS)
        .about(
            "match files whose SHA-1 is in a list",
            "rules/file-keywords.html#filesha1",
        ),
    Keyword::new("filesha256", Value::Required, Kind::Option, hash_list)
        .protos(FILE_PROTOS)
        .about(
            "match files whose SHA-256 is in a list",
            "rules/file-keywords.html#filesha256",
        ),
    Keyword::new("filesize", Value::Required, Kind::Option, filesize)
        .protos(FILE_PROTOS)
        .about(
            "compare the size of a file",
            "rules/file-keywords.html#filesize",
        ),
    Keyword::new("filestore", Value::Optional, Kind::Option, filestore)
        .protos(FILE_PROTOS)
        .about(
            "store the file on disk",
            "rules/file-keywords.html#filestore",
        ),
    Keyword::new("filemagic", Value::Required, Kind::Option, text)
        .protos(FILE_PROTOS)
        .about(
            "match the file's libmagic type (old form of file.magic)",
            "rules/file-keywords.html#filemagic",
        ),
    Keyword::new("fileext", Value::Required, Kind::Option, text)
        .protos(FILE_PROTOS)
        .about(
            "match the extension of the file name",
            "rules/file-keywords.html#fileext",
        ),
];

/// File buffers (`filename` with a value is the option, see [`legacy_filename`]).
pub(super) const STICKY: Stickies = &[(
    &[Buffer::FileData, Buffer::FileName, Buffer::FileMagic],
    &[],
)];

/// Decodes a `[!]"..."` value into (negated, bytes as Latin-1 text).
fn string_value(v: &str) -> Result<(bool, String), String> {
    let (neg, bytes) = crate::values::content_value(v)?;
    Ok((neg, bytes.iter().map(|&b| char::from(b)).collect()))
}

/// `filemagic:[!]"..."`, `fileext:[!]"..."`.
fn text(st: &mut State, c: &Ctx<'_>) {
    let v = c.o.value.unwrap_or("");
    let (neg, s) = tryv!(st, c.o, c.kw, string_value(v));
    push_app(st, c, neg, AppValue::Text(s));
    st.file_text_after = Some(st.last_content);
}

/// `filename:[!]"..."` (the name also selects the `file.name` buffer when it has no
/// value): pushes the option and returns true when `b` is that buffer.
pub(super) fn legacy_filename(st: &mut State, c: &Ctx<'_>, b: Buffer, v: &str) -> bool {
    if b != Buffer::FileName || c.kw != "filename" {
        return false;
    }
    match string_value(v) {
        Ok((neg, s)) => st.options.push(crate::ast::Opt::App(crate::ast::AppOpt {
            name: "filename",
            protos: FILE_PROTOS,
            negated: neg,
            value: AppValue::Text(s),
        })),
        Err(e) => st.err(c.o.value_off, Reason::InvalidValue, c.kw, e),
    }
    st.file_text_after = Some(st.last_content);
    true
}

/// `filesize:N`, `<N`, `>N`, `A<>B`, `A-B`, ... (bytes).
fn filesize(st: &mut State, c: &Ctx<'_>) {
    let v = c.o.value.unwrap_or("");
    let cmp = tryv!(
        st,
        c.o,
        c.kw,
        crate::values::int_cmp(v, u64::MAX).map_err(|e| format!("filesize: {e}"))
    );
    push_app(st, c, false, AppValue::Ints(vec![cmp]));
}

/// `filemd5:[!]<file>` (and SHA-1, SHA-256): the list file's name.
fn hash_list(st: &mut State, c: &Ctx<'_>) {
    let v = c.o.value.unwrap_or("").trim();
    let (neg, name) = match v.strip_prefix('!') {
        Some(r) => (true, r.trim()),
        None => (false, v),
    };
    let name = name.trim_matches('"').trim();
    if name.is_empty() {
        st.err(
            c.o.value_off,
            Reason::InvalidValue,
            c.kw,
            format!("{}: missing hash list file name", c.kw),
        );
        return;
    }
    push_app(st, c, neg, AppValue::Text(name.to_owned()));
}

/// Normalises a `filestore` value into `"<direction>,<scope>"`.
pub fn filestore_value(v: Option<&str>) -> Result<String, String> {
    let v = v.unwrap_or("").trim();
    let mut parts = v.split(',').map(str::trim);
    let dir = match parts.next().unwrap_or("") {
        "" => "default",
        "request" | "to_server" => "to_server",
        "response" | "to_client" => "to_client",
        "both" => "both",
        d => return Err(format!("filestore: unknown direction '{d}'")),
    };
    let scope = match parts.next().unwrap_or("") {
        "" | "file" => "file",
        "tx" => "tx",
        "ssn" | "flow" => "ssn",
        s => return Err(format!("filestore: unknown scope '{s}'")),
    };
    if parts.next().is_some() {
        return Err("filestore: at most a direction and a scope".into());
    }
    Ok(format!("{dir},{scope}"))
}

/// `filestore[:<direction>[,<scope>]]`.
fn filestore(st: &mut State, c: &Ctx<'_>) {
    let s = tryv!(st, c.o, c.kw, filestore_value(c.o.value));
    push_app(st, c, false, AppValue::Text(s));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ast::{IntCmp, Opt};

    fn opts(src: &str) -> Vec<crate::ast::AppOpt> {
        let r = crate::parse_rule(src).unwrap_or_else(|e| panic!("{src}: {e:?}"));
        r.options
            .into_iter()
            .filter_map(|o| match o {
                Opt::App(a) => Some(a),
                _ => None,
            })
            .collect()
    }

    fn rule(opts: &str) -> String {
        format!("alert http any any -> any any (msg:\"f\"; {opts} sid:1;)")
    }

    #[test]
    fn names_types_and_extensions_are_typed() {
        let o = opts(&rule(
            "filename:\"a|2e|EXE\"; fileext:!\"pdf\"; filemagic:\"PE32 executable\";",
        ));
        assert_eq!(o.len(), 3);
        assert_eq!((o[0].name, o[0].negated), ("filename", false));
        assert_eq!(o[0].value, AppValue::Text("a.EXE".into()));
        assert_eq!(o[0].protos, FILE_PROTOS);
        assert_eq!((o[1].name, o[1].negated), ("fileext", true));
        assert_eq!(o[1].value, AppValue::Text("pdf".into()));
        assert_eq!(o[2].value, AppValue::Text("PE32 executable".into()));
    }

    #[test]
    fn nocase_after_a_file_text_keyword_is_refused() {
        // Suricata 7.0.10: these keywords are a content with `nocase` set already.
        for r in [
            "filemagic:\"ELF\"; nocase;",
            "fileext:\"exe\"; nocase;",
            "content:\"abc\"; filename:\"x\"; nocase;",
        ] {
            assert!(crate::parse_rule(&rule(r)).is_err(), "{r}");
        }
        assert!(crate::parse_rule(&rule("filemagic:\"ELF\"; content:\"abc\"; nocase;")).is_ok());
    }

    #[test]
    fn filename_without_a_value_stays_the_buffer() {
        let r = crate::parse_rule(&rule("filename; content:\"x\";")).unwrap();
        assert!(r.options.iter().all(|o| !matches!(o, Opt::App(_))));
        assert_eq!(r.buffers.len(), 1);
    }

    #[test]
    fn sizes_hashes_and_store_are_typed() {
        let o = opts(&rule(
            "filesize:100<>200; filesize:>5; filemd5:!bad.md5; filesha256:\"x.txt\"; filestore:response,tx;",
        ));
        assert_eq!(o[0].value, AppValue::Ints(vec![IntCmp::Range(100, 200)]));
        assert_eq!(o[1].value, AppValue::Ints(vec![IntCmp::Gt(5)]));
        assert_eq!((o[2].name, o[2].negated), ("filemd5", true));
        assert_eq!(o[2].value, AppValue::Text("bad.md5".into()));
        assert_eq!(o[3].value, AppValue::Text("x.txt".into()));
        assert_eq!(o[4].value, AppValue::Text("to_client,tx".into()));
        assert_eq!(filestore_value(None).unwrap(), "default,file");
        assert_eq!(filestore_value(Some("both,flow")).unwrap(), "both,ssn");
    }

    #[test]
    fn bad_values_are_refused() {
        for bad in [
            "filesize:abc;",
            "filemd5:;",
            "filestore:sideways;",
            "filestore:both,forever;",
            "fileext:noquotes;",
            "filename:\"\";",
        ] {
            assert!(crate::parse_rule(&rule(bad)).is_err(), "{bad}");
        }
    }
}
