//! TLS: sticky buffers, JA3/JA4, `ssl_state`, `ssl_version`/`tls.version` and the
//! certificate options kept verbatim.

use super::{verbatim, Ctx, Keyword, Kind, Stickies, Value};
use crate::ast::{AppProto, Opt};
use crate::buffers::Buffer;
use crate::parser::state::State;

/// TLS.
const TLS: &[AppProto] = &[AppProto::Tls];

/// TLS keywords.
pub(super) const KEYWORDS: &[Keyword] = &[
    Keyword::new("ssl_state", Value::Required, Kind::Option, ssl_state).protos(TLS),
    Keyword::new("ssl_version", Value::Required, Kind::Option, ssl_version)
        .aliases(&["tls.version"])
        .protos(TLS),
    verbatim("tls.cert_expired").protos(TLS),
    verbatim("tls.cert_valid").protos(TLS),
    verbatim("tls_cert_expired").protos(TLS),
    verbatim("tls_cert_valid").protos(TLS),
    verbatim("tls.cert_notbefore").protos(TLS),
    verbatim("tls.cert_notafter").protos(TLS),
    verbatim("tls_cert_notbefore").protos(TLS),
    verbatim("tls_cert_notafter").protos(TLS),
    verbatim("tls.store").protos(TLS),
    verbatim("tls.subject").protos(TLS),
    verbatim("tls.issuerdn").protos(TLS),
    verbatim("tls.fingerprint").protos(TLS),
];

/// TLS buffers; JA3/JA4 also come from QUIC.
pub(super) const STICKY: Stickies = &[
    (
        &[
            Buffer::TlsSni,
            Buffer::TlsCertSubject,
            Buffer::TlsCertIssuer,
            Buffer::TlsCertSerial,
            Buffer::TlsCertFingerprint,
            Buffer::TlsCerts,
            Buffer::TlsCertChainLen,
            Buffer::TlsRandom,
            Buffer::TlsRandomTime,
            Buffer::TlsRandomBytes,
            Buffer::TlsAlpn,
        ],
        TLS,
    ),
    (
        &[
            Buffer::Ja3Hash,
            Buffer::Ja3String,
            Buffer::Ja3sHash,
            Buffer::Ja3sString,
            Buffer::Ja4Hash,
        ],
        &[AppProto::Tls, AppProto::Quic],
    ),
];

fn ssl_state(st: &mut State, c: &Ctx<'_>) {
    let val = c.val;
    st.options.push(Opt::SslState(val.to_owned()));
}

fn ssl_version(st: &mut State, c: &Ctx<'_>) {
    let val = c.val;
    st.options.push(Opt::TlsVersion(val.to_owned()));
}
