//! Typed inspection-buffer ids: each protocol declares its buffers in a table
//! ([`BufferDef`]), the registry lists the tables, and a [`BufferId`] names one entry.
//! The detector resolves a rule's sticky-buffer name to a [`BufferId`] once, at
//! compile time, and asks transactions for it ([`crate::Transaction::buffers`]).

use crate::registry::PROTOCOLS;
use crate::{AppProto, Direction};

/// One inspection buffer a protocol's transactions expose.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BufferDef {
    /// Suricata's sticky-buffer name (`http.uri`, `dns.query`, ...).
    pub name: &'static str,
    /// The direction the buffer belongs to; `None` when it exists on both sides (the
    /// rule's flow direction decides).
    pub dir: Option<Direction>,
    /// A body: it grows while the transaction is in progress.
    pub body: bool,
    /// The `file.data` buffer (the body of the rule's direction).
    pub file: bool,
    /// A multi-buffer: a transaction may have several instances.
    pub multi: bool,
    /// A URI: content matches on it follow the URI rules (`urilen` and friends).
    pub uri: bool,
}

impl BufferDef {
    /// A plain buffer named `name` of direction `dir`.
    pub const fn new(name: &'static str, dir: Option<Direction>) -> Self {
        BufferDef {
            name,
            dir,
            body: false,
            file: false,
            multi: false,
            uri: false,
        }
    }

    /// The same, marked as a body.
    pub const fn body(mut self) -> Self {
        self.body = true;
        self
    }

    /// The same, marked as the `file.data` buffer (a body too).
    pub const fn file(mut self) -> Self {
        self.body = true;
        self.file = true;
        self
    }

    /// The same, marked as a multi-buffer.
    pub const fn multi(mut self) -> Self {
        self.multi = true;
        self
    }

    /// The same, marked as a URI.
    pub const fn uri(mut self) -> Self {
        self.uri = true;
        self
    }
}

/// One inspection buffer of one protocol: an index into the registry's tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BufferId {
    proto: u8,
    local: u8,
}

impl BufferId {
    /// The buffer named `name` (a canonical sticky-buffer name), if a protocol has it.
    pub fn by_name(name: &str) -> Option<BufferId> {
        buffers().find(|b| b.name() == name)
    }

    /// The buffer named `name` of protocol `p` (QUIC and TLS both have `ja3.hash`:
    /// [`BufferId::by_name`] gives the first registered), if `p` has one.
    pub fn of(p: AppProto, name: &str) -> Option<BufferId> {
        buffers().find(|b| b.proto() == p && b.name() == name)
    }

    /// The `file.data` buffer of protocol `p`, when its transactions carry files
    /// (several protocols have one, all named `file.data`; [`BufferId::by_name`] gives
    /// HTTP's).
    pub fn file_of(p: AppProto) -> Option<BufferId> {
        buffers().find(|b| b.proto() == p && b.def().file)
    }

    /// Its definition.
    pub fn def(self) -> &'static BufferDef {
        &PROTOCOLS[usize::from(self.proto)].buffers[usize::from(self.local)]
    }

    /// Its sticky-buffer name.
    pub fn name(self) -> &'static str {
        self.def().name
    }

    /// The protocol whose transactions carry it.
    pub fn proto(self) -> AppProto {
        PROTOCOLS[usize::from(self.proto)].proto
    }

    /// The direction it belongs to, when it has one.
    pub fn direction(self) -> Option<Direction> {
        self.def().dir
    }

    /// Whether it is a body (it grows while a transaction is in progress).
    pub fn is_body(self) -> bool {
        self.def().body
    }

    /// Its index in its protocol's table (for the protocol's own lookup).
    pub fn local(self) -> usize {
        usize::from(self.local)
    }
}

/// Every buffer of every registered protocol.
pub fn buffers() -> impl Iterator<Item = BufferId> {
    PROTOCOLS.iter().enumerate().flat_map(|(p, def)| {
        (0..def.buffers.len()).map(move |l| BufferId {
            proto: p as u8,
            local: l as u8,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_resolve() {
        let all: Vec<_> = buffers().collect();
        assert!(all.len() > 30);
        for b in &all {
            if b.def().file {
                assert_eq!(BufferId::file_of(b.proto()), Some(*b));
                continue;
            }
            assert_eq!(BufferId::of(b.proto(), b.name()), Some(*b));
            assert_eq!(
                BufferId::by_name(b.name()).map(|x| x.name()),
                Some(b.name())
            );
        }
        let quic = BufferId::of(AppProto::Quic, "ja3.hash").unwrap();
        assert_eq!(quic.proto(), AppProto::Quic);
        assert_eq!(
            BufferId::by_name("ja3.hash").unwrap().proto(),
            AppProto::Tls
        );
        let smtp = BufferId::file_of(AppProto::Smtp).unwrap();
        assert_eq!((smtp.name(), smtp.proto()), ("file.data", AppProto::Smtp));
        let uri = BufferId::by_name("http.uri").unwrap();
        assert_eq!(uri.proto(), AppProto::Http);
        assert_eq!(uri.direction(), Some(Direction::ToServer));
        assert!(uri.def().uri && !uri.is_body());
        let fd = BufferId::by_name("file.data").unwrap();
        assert!(fd.is_body() && fd.def().file && fd.direction().is_none());
        let q = BufferId::by_name("dns.query").unwrap();
        assert_eq!(q.proto(), AppProto::Dns);
        assert!(q.def().multi);
        let c = BufferId::by_name("tls.certs").unwrap();
        assert_eq!(
            (c.proto(), c.direction()),
            (AppProto::Tls, Some(Direction::ToClient))
        );
        let st = BufferId::by_name("http.start").unwrap();
        assert_eq!((st.proto(), st.direction()), (AppProto::Http, None));
        assert_eq!(BufferId::by_name("http.nope"), None);
    }
}
