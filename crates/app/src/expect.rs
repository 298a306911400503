//! Expected flows: a control channel (FTP) announces the address and port of a data
//! connection it is about to open; the new TCP flow that matches is given its protocol
//! (`ftp-data`) without probing and linked to the control flow.
//!
//! Flows hash to different workers, so the table is shared by every worker's
//! [`AppCtx`](crate::AppCtx) (it rides in [`Config`](crate::Config), which each worker
//! clones): a small map behind a mutex, bounded ([`CAP`] entries, the oldest evicted
//! first and counted), each entry taken by the first flow that matches it.

use std::collections::VecDeque;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, PoisonError};

/// Live expectations kept at most; the oldest is evicted to make room (counted).
pub const CAP: usize = 1024;

/// What a data connection carries, filled in by the control flow as its commands come
/// (the data connection often opens before the command that uses it).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Transfer {
    /// The command (`RETR`, `STOR`, `LIST`, ...), once sent.
    pub command: Option<&'static str>,
    /// The file name it names (its argument), if any.
    pub filename: Option<Vec<u8>>,
    /// The data flow is in passive mode (the control flow's client opens it).
    pub passive: bool,
}

/// The link between a control flow and its data connection, shared by both.
pub type Link = Arc<Mutex<Transfer>>;

/// Reads a link (a poisoned lock still holds a consistent transfer: it is only
/// written field by field).
pub fn read(link: &Link) -> Transfer {
    link.lock().unwrap_or_else(PoisonError::into_inner).clone()
}

/// Updates a link.
pub fn update(link: &Link, f: impl FnOnce(&mut Transfer)) {
    f(&mut link.lock().unwrap_or_else(PoisonError::into_inner))
}

/// An expected connection: from `client` to `server`:`port` (any source port).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Key {
    /// The address that opens the connection.
    pub client: IpAddr,
    /// The address it connects to.
    pub server: IpAddr,
    /// The port it connects to.
    pub port: u16,
}

/// One announced connection.
#[derive(Debug)]
pub struct Expectation {
    /// Where it goes.
    pub key: Key,
    /// The control flow's EVE `flow_id` (the data flow's `parent_id`).
    pub parent: u64,
    /// What it will carry.
    pub link: Link,
}

#[derive(Debug, Default)]
struct Table {
    live: VecDeque<Expectation>,
    evicted: u64,
}

/// The shared table of expected connections (cloning shares it).
#[derive(Clone, Debug, Default)]
pub struct Expectations {
    inner: Arc<Mutex<Table>>,
}

impl Expectations {
    fn table(&self) -> std::sync::MutexGuard<'_, Table> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Announces a connection (replacing one to the same place); the oldest entry is
    /// evicted when the table is full.
    pub fn expect(&self, e: Expectation) {
        let mut t = self.table();
        t.live.retain(|x| x.key != e.key);
        if t.live.len() >= CAP {
            t.live.pop_front();
            t.evicted += 1;
        }
        t.live.push_back(e);
    }

    /// Takes the expectation a new flow from `client` to `server`:`port` matches.
    pub fn take(&self, client: IpAddr, server: IpAddr, port: u16) -> Option<Expectation> {
        let key = Key {
            client,
            server,
            port,
        };
        let mut t = self.table();
        let i = t.live.iter().position(|x| x.key == key)?;
        t.live.remove(i)
    }

    /// Drops the expectations a control flow (`parent`) left unused when it ended.
    pub fn forget(&self, parent: u64) {
        self.table().live.retain(|x| x.parent != parent);
    }

    /// Live expectations.
    pub fn len(&self) -> usize {
        self.table().live.len()
    }

    /// Whether none is live.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Expectations evicted because the table was full, since the last call.
    pub fn take_evicted(&self) -> u64 {
        std::mem::take(&mut self.table().evicted)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(port: u16) -> Key {
        Key {
            client: "10.0.0.1".parse().unwrap(),
            server: "10.0.0.2".parse().unwrap(),
            port,
        }
    }

    #[test]
    fn taken_once_shared_and_bounded() {
        let a = Expectations::default();
        let b = a.clone();
        let link = Link::default();
        a.expect(Expectation {
            key: key(2000),
            parent: 7,
            link: link.clone(),
        });
        let k = key(2000);
        assert!(
            b.take(k.server, k.client, 2000).is_none(),
            "direction matters"
        );
        let e = b.take(k.client, k.server, 2000).unwrap();
        assert_eq!(e.parent, 7);
        update(&link, |t| t.command = Some("RETR"));
        assert_eq!(read(&e.link).command, Some("RETR"));
        assert!(a.take(k.client, k.server, 2000).is_none(), "taken once");
        for p in 0..(CAP as u16 + 3) {
            a.expect(Expectation {
                key: key(p),
                parent: 1,
                link: Link::default(),
            });
        }
        assert_eq!(a.len(), CAP);
        assert_eq!(a.take_evicted(), 3);
        assert_eq!(a.take_evicted(), 0);
        assert!(a.take(k.client, k.server, 0).is_none(), "the oldest went");
        a.forget(1);
        assert!(a.is_empty());
    }
}
