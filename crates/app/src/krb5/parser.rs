//! Kerberos 5 messages (RFC 4120) through rusticata's `kerberos-parser`: the
//! application tag of the DER message says its type; requests, replies and errors are
//! reduced to the fields Suricata logs and matches ([`Krb5Message`]).

use kerberos_parser::krb5::{EncryptionType, PrincipalName};
use kerberos_parser::krb5_parser;

/// `KRB_AS_REQ`.
pub const AS_REQ: u32 = 10;
/// `KRB_AS_REP`.
pub const AS_REP: u32 = 11;
/// `KRB_TGS_REQ`.
pub const TGS_REQ: u32 = 12;
/// `KRB_TGS_REP`.
pub const TGS_REP: u32 = 13;
/// `KRB_AP_REQ`.
pub const AP_REQ: u32 = 14;
/// `KRB_AP_REP`.
pub const AP_REP: u32 = 15;
/// `KRB_ERROR`.
pub const ERROR: u32 = 30;

/// The fields of one message Suricata logs and matches.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Krb5Message {
    /// The message type (the DER application tag).
    pub msg_type: u32,
    /// The client principal's name components (`cname`).
    pub cname: Option<Vec<String>>,
    /// The realm: the request body's, the reply's client realm, the error's `crealm`.
    pub realm: Option<String>,
    /// The server principal's name components: the request's, the reply ticket's, the
    /// error's.
    pub sname: Option<Vec<String>>,
    /// A reply's encrypted part's encryption type.
    pub etype: Option<i32>,
    /// A reply's ticket's encryption type.
    pub ticket_etype: Option<i32>,
    /// An error's code.
    pub error_code: Option<i32>,
}

/// What [`parse_message`] made of a DER message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Parsed {
    /// A request, reply or error.
    Message(Krb5Message),
    /// A Kerberos message this parser does not log (`AP-REQ`, `AP-REP`, ...).
    Other,
    /// Not a Kerberos message, or one that does not parse.
    Malformed,
}

/// The application tag of a DER message (`[APPLICATION n]`, constructed), if its first
/// byte is one.
pub fn app_tag(data: &[u8]) -> Option<u32> {
    let b = *data.first()?;
    (b & 0xe0 == 0x60 && b & 0x1f != 0x1f).then_some(u32::from(b & 0x1f))
}

fn names(p: &PrincipalName) -> Vec<String> {
    p.name_string.clone()
}

/// Parses one whole DER message.
pub fn parse_message(data: &[u8]) -> Parsed {
    let Some(tag) = app_tag(data) else {
        return Parsed::Malformed;
    };
    let msg = match tag {
        AS_REQ | TGS_REQ => {
            let r = if tag == AS_REQ {
                krb5_parser::parse_as_req(data)
            } else {
                krb5_parser::parse_tgs_req(data)
            };
            let Ok((_, req)) = r else {
                return Parsed::Malformed;
            };
            let b = &req.req_body;
            Krb5Message {
                msg_type: tag,
                cname: b.cname.as_ref().map(names),
                realm: Some(b.realm.0.clone()),
                sname: b.sname.as_ref().map(names),
                ..Default::default()
            }
        }
        AS_REP | TGS_REP => {
            let r = if tag == AS_REP {
                krb5_parser::parse_as_rep(data)
            } else {
                krb5_parser::parse_tgs_rep(data)
            };
            let Ok((_, rep)) = r else {
                return Parsed::Malformed;
            };
            Krb5Message {
                msg_type: tag,
                cname: Some(names(&rep.cname)),
                realm: Some(rep.crealm.0.clone()),
                sname: Some(names(&rep.ticket.sname)),
                etype: Some(rep.enc_part.etype.0),
                ticket_etype: Some(rep.ticket.enc_part.etype.0),
                ..Default::default()
            }
        }
        ERROR => {
            // The crate's `FromDer` is of an asn1-rs other than the workspace's: its
            // function (deprecated for that trait) is the same parser.
            #[allow(deprecated)]
            let r = krb5_parser::parse_krb_error(data);
            let Ok((_, e)) = r else {
                return Parsed::Malformed;
            };
            Krb5Message {
                msg_type: tag,
                cname: e.cname.as_ref().map(names),
                realm: e.crealm.as_ref().map(|r| r.0.clone()),
                sname: Some(names(&e.sname)),
                error_code: Some(e.error_code.0),
                ..Default::default()
            }
        }
        AP_REQ | AP_REP => return Parsed::Other,
        _ => return Parsed::Malformed,
    };
    Parsed::Message(msg)
}

/// Suricata's name for a message type (`KRB_AS_REQ`, ...).
pub fn msg_type_name(t: u32) -> String {
    match t {
        AS_REQ => "KRB_AS_REQ".into(),
        AS_REP => "KRB_AS_REP".into(),
        TGS_REQ => "KRB_TGS_REQ".into(),
        TGS_REP => "KRB_TGS_REP".into(),
        AP_REQ => "KRB_AP_REQ".into(),
        AP_REP => "KRB_AP_REP".into(),
        ERROR => "KRB_ERROR".into(),
        t => format!("{t}"),
    }
}

/// The name of an encryption type as Suricata logs it: the IANA name in lower case
/// with dashes (`aes256-cts-hmac-sha1-96`, `rc4-hmac`).
pub fn etype_name(e: i32) -> String {
    format!("{:?}", EncryptionType(e))
        .to_ascii_lowercase()
        .replace('_', "-")
}

/// Whether an encryption type is weak: anything but the AES and Camellia types.
pub fn weak_etype(e: i32) -> bool {
    !matches!(
        EncryptionType(e),
        EncryptionType::AES128_CTS_HMAC_SHA1_96
            | EncryptionType::AES256_CTS_HMAC_SHA1_96
            | EncryptionType::AES128_CTS_HMAC_SHA256_128
            | EncryptionType::AES256_CTS_HMAC_SHA384_192
            | EncryptionType::CAMELLIA128_CTS_CMAC
            | EncryptionType::CAMELLIA256_CTS_CMAC
    )
}

/// The name of an error code as Suricata logs it (`KDC_ERR_PREAUTH_REQUIRED`).
pub fn error_name(code: i32) -> String {
    format!("{:?}", kerberos_parser::krb5::ErrorCode(code))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn names() {
        assert_eq!(etype_name(18), "aes256-cts-hmac-sha1-96");
        assert_eq!(etype_name(23), "rc4-hmac");
        assert!(weak_etype(23) && weak_etype(3) && !weak_etype(18) && !weak_etype(17));
        assert_eq!(error_name(25), "KDC_ERR_PREAUTH_REQUIRED");
        assert_eq!(msg_type_name(TGS_REP), "KRB_TGS_REP");
        assert_eq!(app_tag(&[0x6a, 0x81]), Some(AS_REQ));
        assert_eq!(app_tag(&[0x30, 0x81]), None);
        assert_eq!(parse_message(&[0x6e, 0]), Parsed::Other);
        assert_eq!(parse_message(&[0x30, 0]), Parsed::Malformed);
    }

    proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(tag in prop::sample::select(vec![0x6au8, 0x6b, 0x6c, 0x6d, 0x7e, 0x30]),
                                       data in proptest::collection::vec(any::<u8>(), 0..600)) {
            let mut m = vec![tag];
            m.extend_from_slice(&data);
            let _ = parse_message(&m);
            let _ = parse_message(&data);
        }
    }
}
