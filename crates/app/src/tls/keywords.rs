//! TLS keywords matched on the session, as Suricata 7.0.10 matches them:
//!
//! - `tls.version`, `ssl_version`: the version of the packet's side (the client's
//!   highest offered, the server's negotiated); `1.3`/`tls1.3` also match the TLS 1.3
//!   drafts, a hex value (`0x7f1c`) is compared as it is;
//! - `ssl_state`: what the last handshake message parsed was (a ClientHello,
//!   ServerHello, ClientKeyExchange or ServerKeyExchange; none after the others);
//! - `tls.cert_chain_len`, `tls_cert_notbefore`/`notafter`, `tls.subject`,
//!   `tls.issuerdn`, `tls.fingerprint`: the server's certificate message, on the
//!   to-client side once its buffers are inspectable (see
//!   [`TlsState::certs_inspectable`]). `tls_cert_expired`/`tls_cert_valid` need the
//!   packet's time: the detection engine turns them into `notafter`/`notbefore`
//!   comparisons.

use rules::{AppOpt, AppValue};

use super::state::HandshakeState;
use super::TlsState;
use crate::Direction;

/// `ssl_version`'s bit for a version (see `rules`' `SSL_VERSIONS`).
fn version_bit(v: u16) -> u32 {
    match v {
        0x0200 => 1,
        0x0300 => 2,
        0x0301 => 4,
        0x0302 => 8,
        0x0303 => 16,
        v if is_tls13(v) => 32,
        _ => 0,
    }
}

/// TLS 1.3 or one of its drafts (`0x7fNN`).
fn is_tls13(v: u16) -> bool {
    v == 0x0304 || v >> 8 == 0x7f
}

/// `tls.version`'s value against a version.
fn tls_version_is(text: &str, v: u16) -> bool {
    match text.strip_prefix("0x") {
        Some(h) => u16::from_str_radix(h, 16).is_ok_and(|x| x == v),
        None => match text {
            "1.0" => v == 0x0301,
            "1.1" => v == 0x0302,
            "1.2" => v == 0x0303,
            "1.3" => is_tls13(v),
            _ => false,
        },
    }
}

/// Seconds since the epoch of a logged certificate time (`YYYY-MM-DDTHH:MM:SS`).
fn cert_time(s: &str) -> Option<u64> {
    rules::dates::epoch(s).ok()
}

/// Evaluates one TLS keyword on the session for a packet going `dir`.
pub(crate) fn check(s: &TlsState, opt: &AppOpt, dir: Direction) -> bool {
    let cert_side = dir == Direction::ToClient && s.certs_inspectable();
    let cert = || s.cert_info().filter(|_| cert_side);
    match (&opt.value, opt.name) {
        (AppValue::Text(t), "tls.version") => {
            s.side_version(dir).is_some_and(|v| tls_version_is(t, v))
        }
        // Only listed versions match; a negated list never does (Suricata 7.0.10).
        (AppValue::Bits { set, .. }, "ssl_version") => {
            !opt.negated
                && s.side_version(dir)
                    .is_some_and(|v| version_bit(v) & set != 0)
        }
        (AppValue::Bits { set, clear, .. }, "ssl_state") => {
            // `unknown` is never set: the other message types leave no state.
            let HandshakeState(cur) = s.last_message();
            (*set == 0 || cur & set != 0) && cur & clear == 0
        }
        (AppValue::Ints(v), "tls.cert_chain_len") => {
            cert_side && v.iter().any(|c| c.matches(s.cert_chain_len() as u64))
        }
        (AppValue::Ints(v), "tls_cert_notbefore" | "tls_cert_notafter") => {
            cert().is_some_and(|c| {
                let t = if opt.name == "tls_cert_notbefore" {
                    &c.not_before
                } else {
                    &c.not_after
                };
                cert_time(t).is_some_and(|t| v.iter().any(|c| c.matches(t)))
            })
        }
        (AppValue::Text(t), "tls.subject" | "tls.issuerdn" | "tls.fingerprint") => cert()
            .is_some_and(|c| {
                let hit = match opt.name {
                    "tls.subject" => c.subject.contains(t.as_str()),
                    "tls.issuerdn" => c.issuer.contains(t.as_str()),
                    _ => c.fingerprint.eq_ignore_ascii_case(t),
                };
                hit != opt.negated
            }),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions() {
        assert!(tls_version_is("1.3", 0x7f1c));
        assert!(tls_version_is("1.3", 0x0304));
        assert!(tls_version_is("0x7f1c", 0x7f1c));
        assert!(!tls_version_is("0x7f1c", 0x0304));
        assert!(tls_version_is("1.2", 0x0303));
        assert!(!tls_version_is("1.2", 0x0302));
        assert_eq!(version_bit(0x7f17), 32);
        assert_eq!(version_bit(0x0300), 2);
        assert_eq!(cert_time("1970-01-02T00:00:01"), Some(86_401));
    }
}
