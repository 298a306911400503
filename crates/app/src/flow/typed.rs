//! Typed access to the parser states other crates read directly (HTTP, HTTP/2, DNS,
//! TLS); everything else goes through [`crate::proto::Protocol`].

use super::{AppFlow, AppState};
use crate::dns::DnsState;
use crate::http::HttpState;
use crate::http2::Http2State;
use crate::tls::TlsState;

impl AppFlow {
    /// The HTTP state, if this is an HTTP flow.
    pub fn http(&self) -> Option<&HttpState> {
        match &self.state {
            AppState::Http(h) => Some(h),
            _ => None,
        }
    }

    /// The HTTP state, mutable (to free inspected transactions).
    pub fn http_mut(&mut self) -> Option<&mut HttpState> {
        match &mut self.state {
            AppState::Http(h) => Some(h),
            _ => None,
        }
    }

    /// The HTTP/2 state, if this is an HTTP/2 flow.
    pub fn http2(&self) -> Option<&Http2State> {
        match &self.state {
            AppState::Http2(h) => Some(h),
            _ => None,
        }
    }

    /// The HTTP/2 state, mutable (to free inspected transactions).
    pub fn http2_mut(&mut self) -> Option<&mut Http2State> {
        match &mut self.state {
            AppState::Http2(h) => Some(h),
            _ => None,
        }
    }

    /// The DNS state, if this is a DNS flow.
    pub fn dns(&self) -> Option<&DnsState> {
        match &self.state {
            AppState::Dns(d) => Some(d),
            _ => None,
        }
    }

    /// The DNS state, mutable (to free inspected transactions).
    pub fn dns_mut(&mut self) -> Option<&mut DnsState> {
        match &mut self.state {
            AppState::Dns(d) => Some(d),
            _ => None,
        }
    }

    /// The TLS state, if this is a TLS flow.
    pub fn tls(&self) -> Option<&TlsState> {
        match &self.state {
            AppState::Tls(t) => Some(t),
            _ => None,
        }
    }
}
