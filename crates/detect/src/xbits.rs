//! `xbits` and `hostbits`: named bits stored per host (`track ip_src`/`ip_dst`) or per
//! IP pair (`track ip_pair`), each with an expiry time, shared by every flow and every
//! worker. The table lives in the [`Detector`](crate::Detector) (which workers share)
//! and is sharded by key, one lock per shard; it is bounded and counts what it could
//! not store.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use rules::BitsCmd;

use crate::sig::Refusal;

/// Suricata's expiry when a rule names none, seconds.
pub(crate) const DEFAULT_EXPIRE: u32 = 30;
/// Bits kept per shard before expired ones are purged and new ones refused.
const SHARD_CAP: usize = 1 << 16;
const SHARDS: usize = 16;

/// What a bit is stored on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Track {
    /// The packet's source address.
    Src,
    /// The packet's destination address.
    Dst,
    /// Both addresses, in either order.
    Pair,
}

/// One `xbits`/`hostbits` operation of a rule.
#[derive(Debug, Clone)]
pub(crate) struct XbitOp {
    pub cmd: BitsCmd,
    pub name: String,
    /// Dense id of `name` (assigned by [`HostTable::intern`]).
    pub id: u32,
    pub track: Track,
    pub expire: u32,
}

impl XbitOp {
    /// A condition (`isset`/`isnotset`), checked before the rule's payload.
    pub(crate) fn is_cond(&self) -> bool {
        matches!(self.cmd, BitsCmd::IsSet | BitsCmd::IsNotSet)
    }
}

fn bad(kw: &str, msg: String) -> Refusal {
    Refusal {
        unsupported: false,
        keyword: kw.to_owned(),
        message: msg,
    }
}

/// `xbits:<cmd>,<name>,<rest>` where `rest` is `track <ip_src|ip_dst|ip_pair>` with an
/// optional `, expire <secs>`.
pub(crate) fn xbits(cmd: BitsCmd, name: &str, rest: &str) -> Result<XbitOp, Refusal> {
    let (mut track, mut expire) = (None, DEFAULT_EXPIRE);
    for part in rest.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let mut w = part.split_whitespace();
        match (w.next(), w.next(), w.next()) {
            (Some("track"), Some(t), None) => {
                track = Some(match t {
                    "ip_src" => Track::Src,
                    "ip_dst" => Track::Dst,
                    "ip_pair" => Track::Pair,
                    _ => return Err(bad("xbits", format!("xbits: cannot track '{t}'"))),
                })
            }
            (Some("expire"), Some(n), None) => {
                expire = n
                    .parse()
                    .ok()
                    .filter(|n| *n > 0)
                    .ok_or_else(|| bad("xbits", format!("xbits: invalid expire '{n}'")))?
            }
            _ => return Err(bad("xbits", format!("xbits: unknown option '{part}'"))),
        }
    }
    let track = track.ok_or_else(|| bad("xbits", "xbits needs 'track'".into()))?;
    Ok(XbitOp {
        cmd,
        name: name.trim().to_owned(),
        id: 0,
        track,
        expire,
    })
}

/// Compiles `xbits:<cmd>,<name>,<rest>` into `sig`; `bits` records whether the rule
/// sets and reads bits (Suricata orders setters first).
pub(crate) fn compile(
    sig: &mut crate::sig::Sig,
    cmd: BitsCmd,
    name: &str,
    rest: &str,
    bits: (&mut bool, &mut bool),
) -> Result<(), Refusal> {
    if cmd == BitsCmd::NoAlert {
        sig.noalert = true;
        return Ok(());
    }
    let op = xbits(cmd, name, rest)?;
    if op.is_cond() {
        *bits.1 = true;
    } else {
        *bits.0 = true;
    }
    sig.xbits.push(op);
    Ok(())
}

/// `hostbits:<cmd>,<name>[,<src|dst>]` (the host is the source by default).
pub(crate) fn hostbits(val: Option<&str>) -> Result<XbitOp, Refusal> {
    let v = val.ok_or_else(|| bad("hostbits", "hostbits needs a value".into()))?;
    let p: Vec<&str> = v.split(',').map(str::trim).collect();
    let cmd = match p[0] {
        "set" => BitsCmd::Set,
        "unset" => BitsCmd::Unset,
        "toggle" => BitsCmd::Toggle,
        "isset" => BitsCmd::IsSet,
        "isnotset" => BitsCmd::IsNotSet,
        c => return Err(bad("hostbits", format!("hostbits: unknown command '{c}'"))),
    };
    let name = p.get(1).filter(|n| !n.is_empty());
    let name = name.ok_or_else(|| bad("hostbits", "hostbits needs a name".into()))?;
    let track = match p.get(2).copied() {
        None | Some("src") | Some("ip_src") => Track::Src,
        Some("dst") | Some("ip_dst") => Track::Dst,
        Some(d) => {
            return Err(bad(
                "hostbits",
                format!("hostbits: unknown direction '{d}'"),
            ))
        }
    };
    if p.len() > 3 {
        return Err(bad(
            "hostbits",
            format!("hostbits: too many values in '{v}'"),
        ));
    }
    Ok(XbitOp {
        cmd,
        name: (*name).to_owned(),
        id: 0,
        track,
        expire: DEFAULT_EXPIRE,
    })
}

/// Where a bit lives: name id, pair flag, and one address (host) or both (pair,
/// smaller first).
type Key = (u32, bool, [u8; 16], [u8; 16]);

/// The shared table of host and IP-pair bits.
#[derive(Debug)]
pub(crate) struct HostTable {
    names: HashMap<String, u32>,
    /// Per key: the second (capture time) after which the bit is gone.
    shards: Vec<Mutex<HashMap<Key, u64>>>,
    /// Sets refused because a shard was full of live bits.
    dropped: AtomicU64,
}

impl Default for HostTable {
    fn default() -> Self {
        HostTable {
            names: HashMap::new(),
            shards: (0..SHARDS).map(|_| Mutex::new(HashMap::new())).collect(),
            dropped: AtomicU64::new(0),
        }
    }
}

impl HostTable {
    /// Gives `op` the dense id of its name (before the table is shared).
    pub(crate) fn intern(&mut self, op: &mut XbitOp) {
        let n = self.names.len() as u32;
        op.id = *self.names.entry(op.name.clone()).or_insert(n);
    }

    /// Bits that could not be stored because the table was full.
    pub(crate) fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }

    fn key(op: &XbitOp, p: &wire::Packet) -> Key {
        match op.track {
            Track::Src => (op.id, false, p.src, [0; 16]),
            Track::Dst => (op.id, false, p.dst, [0; 16]),
            Track::Pair => (op.id, true, p.src.min(p.dst), p.src.max(p.dst)),
        }
    }

    fn shard(&self, k: &Key) -> std::sync::MutexGuard<'_, HashMap<Key, u64>> {
        let h = k.2.iter().chain(&k.3).fold(k.0 as usize, |a, &b| {
            a.wrapping_mul(31).wrapping_add(b as usize)
        });
        // A worker that panicked while holding the lock left a consistent map.
        self.shards[h % SHARDS]
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }

    /// Whether the condition `op` holds for packet `p` (an expired bit is unset).
    pub(crate) fn check(&self, op: &XbitOp, p: &wire::Packet) -> bool {
        let k = Self::key(op, p);
        let now = p.ts.secs();
        let mut m = self.shard(&k);
        let set = match m.get(&k) {
            Some(&exp) if exp < now => {
                m.remove(&k);
                false
            }
            Some(_) => true,
            None => false,
        };
        set == (op.cmd == BitsCmd::IsSet)
    }

    /// Runs the action `op` (set, unset, toggle) for packet `p`.
    pub(crate) fn act(&self, op: &XbitOp, p: &wire::Packet) {
        let k = Self::key(op, p);
        let now = p.ts.secs();
        let exp = now + op.expire as u64;
        let mut m = self.shard(&k);
        let live = m.get(&k).is_some_and(|&e| e >= now);
        let set = match op.cmd {
            BitsCmd::Set => true,
            BitsCmd::Toggle => !live,
            BitsCmd::Unset => false,
            _ => return,
        };
        if !set {
            m.remove(&k);
            return;
        }
        if m.len() >= SHARD_CAP && !m.contains_key(&k) {
            m.retain(|_, e| *e >= now);
            if m.len() >= SHARD_CAP {
                self.dropped.fetch_add(1, Ordering::Relaxed);
                return;
            }
        }
        m.insert(k, exp);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt(src: u8, dst: u8, secs: u64) -> wire::Packet {
        let mut p = wire::Packet {
            ts: wire::Timestamp::from_secs_nanos(secs, 0),
            ip_version: 4,
            ..Default::default()
        };
        p.src[..4].copy_from_slice(&[10, 0, 0, src]);
        p.dst[..4].copy_from_slice(&[10, 0, 0, dst]);
        p
    }

    fn op(t: &mut HostTable, cmd: BitsCmd, rest: &str) -> XbitOp {
        let mut o = xbits(cmd, "b", rest).unwrap();
        t.intern(&mut o);
        o
    }

    #[test]
    fn parses_the_forms_et_open_uses() {
        let o = xbits(BitsCmd::Set, "x", "track ip_pair,expire 15").unwrap();
        assert_eq!((o.track, o.expire), (Track::Pair, 15));
        let o = xbits(BitsCmd::IsSet, " x", " track ip_dst, expire 300").unwrap();
        assert_eq!((o.track, o.expire, o.name.as_str()), (Track::Dst, 300, "x"));
        let o = xbits(BitsCmd::Set, "x", "track ip_src").unwrap();
        assert_eq!((o.track, o.expire), (Track::Src, DEFAULT_EXPIRE));
        assert!(xbits(BitsCmd::Set, "x", "track flow").is_err());
        assert!(xbits(BitsCmd::Set, "x", "expire 5").is_err());
        assert!(xbits(BitsCmd::Set, "x", "track ip_src,expire 0").is_err());
        let h = hostbits(Some("isset,bad,dst")).unwrap();
        assert_eq!((h.cmd, h.track), (BitsCmd::IsSet, Track::Dst));
        assert_eq!(hostbits(Some("set,bad")).unwrap().track, Track::Src);
        assert!(hostbits(Some("set")).is_err() && hostbits(Some("flip,x")).is_err());
    }

    #[test]
    fn host_bits_follow_the_address_and_expire() {
        let mut t = HostTable::default();
        let set = op(&mut t, BitsCmd::Set, "track ip_src,expire 10");
        let by_src = op(&mut t, BitsCmd::IsSet, "track ip_src");
        let by_dst = op(&mut t, BitsCmd::IsSet, "track ip_dst");
        let not = op(&mut t, BitsCmd::IsNotSet, "track ip_src");
        assert!(!t.check(&by_src, &pkt(1, 2, 100)) && t.check(&not, &pkt(1, 2, 100)));
        t.act(&set, &pkt(1, 2, 100));
        // Another flow: the host 10.0.0.1 carries the bit either way round.
        assert!(t.check(&by_src, &pkt(1, 9, 105)));
        assert!(t.check(&by_dst, &pkt(9, 1, 110)));
        assert!(!t.check(&by_src, &pkt(2, 1, 105)));
        // Expired after 10 s.
        assert!(!t.check(&by_src, &pkt(1, 2, 111)) && t.check(&not, &pkt(1, 2, 111)));
    }

    #[test]
    fn pair_bits_ignore_direction_and_toggle_unset_work() {
        let mut t = HostTable::default();
        let set = op(&mut t, BitsCmd::Set, "track ip_pair");
        let isset = op(&mut t, BitsCmd::IsSet, "track ip_pair");
        let toggle = op(&mut t, BitsCmd::Toggle, "track ip_pair");
        let unset = op(&mut t, BitsCmd::Unset, "track ip_pair");
        t.act(&set, &pkt(1, 2, 0));
        assert!(t.check(&isset, &pkt(2, 1, 1)) && !t.check(&isset, &pkt(1, 3, 1)));
        t.act(&toggle, &pkt(2, 1, 2));
        assert!(!t.check(&isset, &pkt(1, 2, 2)));
        t.act(&toggle, &pkt(2, 1, 3));
        assert!(t.check(&isset, &pkt(1, 2, 3)));
        t.act(&unset, &pkt(1, 2, 4));
        assert!(!t.check(&isset, &pkt(1, 2, 4)));
    }
}
