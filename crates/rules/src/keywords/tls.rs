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
    Keyword::new("ssl_state", Value::Required, Kind::Option, ssl_state)
        .protos(TLS)
        .about(
            "match the state of the SSL/TLS handshake",
            "rules/tls-keywords.html#ssl-state",
        ),
    Keyword::new("ssl_version", Value::Required, Kind::Option, ssl_version)
        .aliases(&["tls.version"])
        .protos(TLS)
        .about(
            "match the SSL/TLS version",
            "rules/tls-keywords.html#ssl-version",
        ),
    verbatim("tls.cert_expired").protos(TLS).about(
        "the TLS certificate has expired",
        "rules/tls-keywords.html#tls-cert-expired",
    ),
    verbatim("tls.cert_valid").protos(TLS).about(
        "the TLS certificate is within its validity period",
        "rules/tls-keywords.html#tls-cert-valid",
    ),
    verbatim("tls_cert_expired").protos(TLS).about(
        "the TLS certificate has expired",
        "rules/tls-keywords.html#tls-cert-expired",
    ),
    verbatim("tls_cert_valid").protos(TLS).about(
        "the TLS certificate is within its validity period",
        "rules/tls-keywords.html#tls-cert-valid",
    ),
    verbatim("tls.cert_notbefore").protos(TLS).about(
        "compare the start of the TLS certificate's validity",
        "rules/tls-keywords.html#tls-cert-notbefore",
    ),
    verbatim("tls.cert_notafter").protos(TLS).about(
        "compare the end of the TLS certificate's validity",
        "rules/tls-keywords.html#tls-cert-notafter",
    ),
    verbatim("tls_cert_notbefore").protos(TLS).about(
        "compare the start of the TLS certificate's validity",
        "rules/tls-keywords.html#tls-cert-notbefore",
    ),
    verbatim("tls_cert_notafter").protos(TLS).about(
        "compare the end of the TLS certificate's validity",
        "rules/tls-keywords.html#tls-cert-notafter",
    ),
    verbatim("tls.store").protos(TLS).about(
        "store the TLS certificate on disk",
        "rules/tls-keywords.html#tls-store",
    ),
    verbatim("tls.subject").protos(TLS).about(
        "match the TLS certificate subject (old form)",
        "rules/tls-keywords.html#tls-subject",
    ),
    verbatim("tls.issuerdn").protos(TLS).about(
        "match the TLS certificate issuer (old form)",
        "rules/tls-keywords.html#tls-issuerdn",
    ),
    verbatim("tls.fingerprint").protos(TLS).about(
        "match the TLS certificate fingerprint (old form)",
        "rules/tls-keywords.html#tls-fingerprint",
    ),
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
