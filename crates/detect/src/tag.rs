//! `tag`: the packets an alert marks for logging after it (EVE `packet` records with
//! `tagged-packets: yes`), as Suricata 7 tags them:
//!
//! - a rule's alert adds one entry per `tag` option: to its flow (`session`) or to the
//!   source or destination address of the alerted packet (`host`); an entry of the same
//!   rule that is still live is restarted instead (at most [`MATCH_LIMIT`] times);
//! - then every packet of the flow, or to or from the host, counts against each live
//!   entry, the alerted packet included: the alerted packet itself is not tagged (its
//!   alert logs it), the ones after are, until the count is passed (`packets`, `bytes`
//!   of whole frames, or `seconds` since the alert), and the entry is dropped;
//! - end-of-flow pseudo-packets are not tagged.
//!
//! Session entries live in the flow's [`crate::FlowDetect`]; host entries in one table
//! shared by the workers ([`HostTags`]), which a packet only locks while some host is
//! tagged. Both are bounded; entries refused are counted
//! ([`crate::Detector::tags_dropped`]).

use rules::tag::{Tag, TagDir, TagMetric, TagScope};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

/// Live tag entries one flow or one host holds at most.
pub(crate) const MAX_TAGS: usize = 50;
/// How often a rule's alert restarts its own live entry; later alerts leave it to run
/// out (so a flood of alerts cannot keep a tag alive for ever).
pub(crate) const MATCH_LIMIT: u32 = 10;
/// Hosts the shared table tags at once.
const MAX_HOSTS: usize = 65_536;
/// A host entry with no packet for this long is dropped, whatever its metric.
const HOST_IDLE_SECS: u64 = 600;

/// One live tag.
#[derive(Debug, Clone)]
struct Entry {
    sid: u32,
    gid: u32,
    count: u64,
    metric: TagMetric,
    first_secs: u64,
    last_secs: u64,
    packets: u64,
    bytes: u64,
    matches: u32,
    /// The alerted packet went by (it is counted, not tagged).
    skipped_first: bool,
}

impl Entry {
    fn new(t: &Tag, sid: u32, gid: u32, secs: u64) -> Entry {
        Entry {
            sid,
            gid,
            count: t.count.into(),
            metric: t.metric,
            first_secs: secs,
            last_secs: secs,
            packets: 0,
            bytes: 0,
            matches: 0,
            skipped_first: false,
        }
    }
}

/// Adds (or restarts) the entry of rule `sid`/`gid` in `list`; false when the list is
/// full.
fn add(list: &mut Vec<Entry>, t: &Tag, sid: u32, gid: u32, secs: u64) -> bool {
    if let Some(e) = list.iter_mut().find(|e| e.sid == sid && e.gid == gid) {
        e.matches += 1;
        if e.matches < MATCH_LIMIT {
            e.first_secs = secs;
            e.last_secs = secs;
            e.packets = 0;
            e.bytes = 0;
        }
        return true;
    }
    if list.len() >= MAX_TAGS {
        return false;
    }
    list.push(Entry::new(t, sid, gid, secs));
    true
}

/// Counts a packet of `len` bytes at `secs` against every entry of `list`, dropping
/// the ones it runs past; true when the packet is tagged.
fn count(list: &mut Vec<Entry>, secs: u64, len: usize) -> bool {
    let mut tagged = false;
    list.retain_mut(|e| {
        e.last_secs = secs;
        e.packets += 1;
        e.bytes += len as u64;
        if !e.skipped_first {
            e.skipped_first = true;
            return true;
        }
        let live = match e.metric {
            TagMetric::Packets => e.packets <= e.count,
            TagMetric::Bytes => e.bytes <= e.count,
            TagMetric::Seconds => secs.saturating_sub(e.first_secs) <= e.count,
        };
        tagged |= live;
        live
    });
    tagged
}

/// The session tags of one flow (kept in its [`crate::FlowDetect`]).
#[derive(Debug, Default, Clone)]
pub(crate) struct FlowTags {
    entries: Vec<Entry>,
}

impl FlowTags {
    /// Forgets every entry.
    pub(crate) fn clear(&mut self) {
        self.entries.clear();
    }
}

/// An address as the table keys it: family and 16 bytes.
type HostKey = (u8, [u8; 16]);

/// Host tags shared by the workers.
#[derive(Debug, Default)]
pub(crate) struct HostTags {
    hosts: Mutex<HashMap<HostKey, Vec<Entry>>>,
    /// Hosts in the table: a packet skips the lock while it is 0.
    live: AtomicUsize,
    dropped: AtomicU64,
}

impl HostTags {
    fn add(&self, key: HostKey, t: &Tag, sid: u32, gid: u32, secs: u64) -> bool {
        let mut g = self.hosts.lock().unwrap_or_else(|e| e.into_inner());
        if g.len() >= MAX_HOSTS && !g.contains_key(&key) {
            g.retain(|_, l| l.iter().any(|e| e.last_secs + HOST_IDLE_SECS >= secs));
            if g.len() >= MAX_HOSTS {
                return false;
            }
        }
        let ok = add(g.entry(key).or_default(), t, sid, gid, secs);
        self.live.store(g.len(), Ordering::Relaxed);
        ok
    }

    fn count(&self, keys: [HostKey; 2], secs: u64, len: usize) -> bool {
        if self.live.load(Ordering::Relaxed) == 0 {
            return false;
        }
        let mut g = self.hosts.lock().unwrap_or_else(|e| e.into_inner());
        let mut tagged = false;
        for (i, key) in keys.iter().enumerate() {
            if i == 1 && keys[0] == keys[1] {
                break;
            }
            let Some(list) = g.get_mut(key) else { continue };
            list.retain(|e| e.last_secs + HOST_IDLE_SECS >= secs);
            tagged |= count(list, secs, len);
            if list.is_empty() {
                g.remove(key);
            }
        }
        self.live.store(g.len(), Ordering::Relaxed);
        tagged
    }
}

/// What tagging needs of a packet.
#[derive(Debug, Clone, Copy)]
pub struct TagPacket<'a> {
    /// The packet (addresses, time).
    pub packet: &'a wire::Packet,
    /// Its captured length (what `bytes` counts).
    pub len: usize,
    /// An end-of-flow pseudo-packet: tags are added, the packet is not counted.
    pub pseudo: bool,
}

fn host_key(p: &wire::Packet, src: bool) -> HostKey {
    (p.ip_version, if src { p.src } else { p.dst })
}

impl crate::Detector {
    /// Adds the tags of the rules behind `alerts` (raised on `pkt`, in the flow of
    /// `fd`), then counts the packet against its flow's and hosts' tags: true when it
    /// is a tagged packet (Suricata's EVE `packet` record with `tagged-packets`).
    pub fn tag_packet(
        &self,
        mut fd: Option<&mut crate::FlowDetect>,
        alerts: &[crate::Alert],
        pkt: TagPacket<'_>,
    ) -> bool {
        let p = pkt.packet;
        let secs = p.ts.secs();
        for a in alerts {
            let Some(info) = self.rule(a.rule) else {
                continue;
            };
            for t in &info.tags {
                let ok = match (t.scope, fd.as_deref_mut()) {
                    (TagScope::Session, Some(fd)) => {
                        add(&mut fd.tags.entries, t, a.sid, a.gid, secs)
                    }
                    (TagScope::Session, None) => true,
                    (TagScope::Host, _) => {
                        let key = host_key(p, t.dir == TagDir::Src);
                        self.host_tags.add(key, t, a.sid, a.gid, secs)
                    }
                };
                if !ok {
                    self.host_tags.dropped.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
        if pkt.pseudo || p.ip_version == 0 {
            return false;
        }
        let mut tagged = false;
        if let Some(fd) = fd {
            if !fd.tags.entries.is_empty() {
                tagged |= count(&mut fd.tags.entries, secs, pkt.len);
            }
        }
        tagged
            | self
                .host_tags
                .count([host_key(p, true), host_key(p, false)], secs, pkt.len)
    }

    /// Tags refused because a flow or host held [`MAX_TAGS`] or the host table was
    /// full.
    pub fn tags_dropped(&self) -> u64 {
        self.host_tags.dropped.load(Ordering::Relaxed)
    }
}

/// The `tag` options of a rule, typed by the rules crate.
pub(crate) fn of_rule(options: &[rules::ast::Opt]) -> Vec<Tag> {
    options
        .iter()
        .filter_map(|o| match o {
            rules::ast::Opt::Tag(t) => Some(*t),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tag(v: &str) -> Tag {
        Tag::parse(v).unwrap()
    }

    #[test]
    fn the_alerted_packet_counts_but_is_not_tagged() {
        let mut l = Vec::new();
        assert!(add(&mut l, &tag("session,3,packets"), 1, 1, 10));
        // Alerted packet, then two tagged ones; the fourth runs past the count.
        assert_eq!(
            (0..4).map(|_| count(&mut l, 10, 100)).collect::<Vec<_>>(),
            [false, true, true, false]
        );
        assert!(l.is_empty());
    }

    #[test]
    fn bytes_and_seconds() {
        let mut l = Vec::new();
        add(&mut l, &tag("session,250,bytes"), 1, 1, 10);
        assert!(!count(&mut l, 10, 100));
        assert!(count(&mut l, 10, 100));
        assert!(!count(&mut l, 10, 100));
        add(&mut l, &tag("session,2,seconds"), 2, 1, 10);
        assert!(!count(&mut l, 10, 1));
        assert!(count(&mut l, 12, 1));
        assert!(!count(&mut l, 13, 1));
    }

    #[test]
    fn a_live_entry_restarts_a_bounded_number_of_times() {
        let mut l = Vec::new();
        let t = tag("session,2,packets");
        add(&mut l, &t, 1, 1, 0);
        count(&mut l, 0, 1);
        for _ in 0..MATCH_LIMIT - 1 {
            add(&mut l, &t, 1, 1, 0);
            assert!(count(&mut l, 0, 1), "restarted: tagged again");
        }
        add(&mut l, &t, 1, 1, 0);
        assert!(
            count(&mut l, 0, 1),
            "past the limit: not restarted, still live"
        );
        assert!(!count(&mut l, 0, 1), "past the limit: runs out");
        // At most MAX_TAGS entries per flow.
        let mut l = Vec::new();
        assert!((0..MAX_TAGS as u32).all(|sid| add(&mut l, &t, sid, 1, 0)));
        assert!(!add(&mut l, &t, 999, 1, 0));
    }

    #[test]
    fn host_tags_follow_either_address() {
        let h = HostTags::default();
        let a: HostKey = (4, [1; 16]);
        let b: HostKey = (4, [2; 16]);
        let c: HostKey = (4, [3; 16]);
        assert!(!h.count([a, b], 0, 1), "nothing tagged: no lock");
        h.add(a, &tag("host,3,packets"), 1, 1, 0);
        assert!(!h.count([a, b], 0, 1));
        assert!(h.count([c, a], 0, 1));
        assert!(h.count([a, c], 0, 1));
        assert!(!h.count([a, c], 0, 1));
        assert_eq!(h.live.load(Ordering::Relaxed), 0);
    }
}
