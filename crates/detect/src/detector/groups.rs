//! The signature groups' containers: packet groups, transaction groups with their
//! buffer prefilters indexed by application protocol, and the lists by protocol.

use std::collections::HashMap;

use app::BufferId;

use crate::prefilter::Prefilter;

/// A fast pattern entry: bytes, nocase, signature.
pub(super) type FpEntry = (Vec<u8>, bool, u32);

#[derive(Debug, Default)]
pub(super) struct PktGroup {
    /// Rules without a payload fast pattern, IP-only rules excepted, in signature order.
    pub(super) always: Vec<u32>,
    /// IP-only rules (they run on the first packet of each flow direction only), in
    /// signature order: kept apart so the other packets do not walk past them.
    pub(super) always_iponly: Vec<u32>,
    pub(super) payload: Option<Prefilter>,
}

#[derive(Debug, Default)]
pub(super) struct TxGroup {
    /// Rules without a prefilter, by the protocol whose transactions they inspect.
    pub(super) always: ProtoLists<u32>,
    pub(super) bufs: Vec<(BufferId, Prefilter)>,
    /// By transaction protocol, the entries of `bufs` its transactions are scanned for
    /// (SMB's include DCERPC's: DCERPC rules inspect the calls SMB carries), in the
    /// order of `bufs`, each with whether the buffer is a body: a transaction pass visits
    /// only its protocol's buffers.
    pub(super) bufs_by_proto: ProtoLists<(u16, bool)>,
}

impl TxGroup {
    /// Fills [`TxGroup::bufs_by_proto`] from `bufs`.
    pub(super) fn index_bufs(&mut self) {
        for (i, (b, _)) in self.bufs.iter().enumerate() {
            // A handful of buffers per protocol: far fewer than 65,536.
            let i = u16::try_from(i).expect("transaction buffers fit u16");
            self.bufs_by_proto.entry(b.proto()).push((i, b.is_body()));
            if b.proto() == app::AppProto::Dcerpc {
                self.bufs_by_proto
                    .entry(app::AppProto::Smb)
                    .push((i, b.is_body()));
            }
        }
    }
}

/// Lists by application protocol: a short list searched by comparing the protocol
/// (a few dozen protocols at most; looked up on every transaction pass, where a
/// SipHash map cost more than the walk).
#[derive(Debug)]
pub(super) struct ProtoLists<T>(Vec<(app::AppProto, Vec<T>)>);

impl<T> Default for ProtoLists<T> {
    fn default() -> Self {
        ProtoLists(Vec::new())
    }
}

impl<T> ProtoLists<T> {
    /// The list of `proto`, when it has one.
    pub(super) fn get(&self, proto: app::AppProto) -> Option<&[T]> {
        self.0
            .iter()
            .find(|(p, _)| *p == proto)
            .map(|(_, v)| v.as_slice())
    }

    /// The list of `proto`, added empty when missing.
    pub(super) fn entry(&mut self, proto: app::AppProto) -> &mut Vec<T> {
        let i = match self.0.iter().position(|(p, _)| *p == proto) {
            Some(i) => i,
            None => {
                self.0.push((proto, Vec::new()));
                self.0.len() - 1
            }
        };
        &mut self.0[i].1
    }

    pub(super) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Every protocol's list.
    pub(super) fn values(&self) -> impl Iterator<Item = &Vec<T>> {
        self.0.iter().map(|(_, v)| v)
    }
}

/// HTTP's `file.data` to the client and `http.response_body` are the same bytes (the
/// response body, dechunked and decompressed: `app::http`'s `buffers`): the fast
/// patterns of both go to one prefilter, `file.data`'s, so each body is scanned once.
/// `entries`: the to-client fast patterns by buffer, each list in signature order (kept
/// so after the merge).
pub(super) fn share_response_body(entries: &mut HashMap<BufferId, Vec<FpEntry>>) {
    let (Some(file), Some(body)) = (
        BufferId::file_of(app::AppProto::Http),
        BufferId::of(app::AppProto::Http, "http.response_body"),
    ) else {
        return;
    };
    let Some(moved) = entries.remove(&body) else {
        return;
    };
    let v = entries.entry(file).or_default();
    v.extend(moved);
    v.sort_by_key(|e| e.2);
}

#[cfg(test)]
mod tests {
    use super::*;
    use app::AppProto::{Dcerpc, Dns, Http, Smb, Tls};

    #[test]
    fn lists_by_protocol_keep_their_order() {
        let mut l = ProtoLists::<u32>::default();
        assert!(l.is_empty());
        assert_eq!(l.get(Dns), None);
        l.entry(Dns).push(3);
        l.entry(Tls).push(5);
        l.entry(Dns).push(7);
        assert!(!l.is_empty());
        assert_eq!(l.get(Dns), Some(&[3, 7][..]));
        assert_eq!(l.get(Tls), Some(&[5][..]));
        assert_eq!(l.get(Http), None);
        assert_eq!(l.values().flatten().count(), 3);
    }

    #[test]
    fn smb_transactions_are_scanned_for_dcerpc_buffers_too() {
        let pf =
            || Prefilter::build(mpm::Kind::Vpatch, &[(b"abc".to_vec(), false, 1)]).expect("built");
        let b = |p, n| BufferId::of(p, n).expect("registered");
        let mut g = TxGroup {
            bufs: vec![
                (b(Dcerpc, "dcerpc.stub_data"), pf()),
                (b(Http, "file.data"), pf()),
                (b(Smb, "smb.named_pipe"), pf()),
            ],
            ..TxGroup::default()
        };
        g.index_bufs();
        assert_eq!(g.bufs_by_proto.get(Dcerpc), Some(&[(0, false)][..]));
        assert_eq!(g.bufs_by_proto.get(Http), Some(&[(1, true)][..]));
        assert_eq!(
            g.bufs_by_proto.get(Smb),
            Some(&[(0, false), (2, false)][..])
        );
        assert_eq!(g.bufs_by_proto.get(Dns), None);
    }

    #[test]
    fn response_body_patterns_join_file_data_in_signature_order() {
        let file = BufferId::file_of(Http).expect("HTTP file.data");
        let body = BufferId::of(Http, "http.response_body").expect("registered");
        let mut m: HashMap<BufferId, Vec<FpEntry>> = HashMap::new();
        m.insert(
            file,
            vec![(b"a".to_vec(), false, 1), (b"c".to_vec(), true, 9)],
        );
        m.insert(body, vec![(b"b".to_vec(), false, 4)]);
        share_response_body(&mut m);
        assert_eq!(m.len(), 1);
        let sigs: Vec<u32> = m[&file].iter().map(|e| e.2).collect();
        assert_eq!(sigs, [1, 4, 9]);
        // Without response-body rules nothing changes.
        share_response_body(&mut m);
        assert_eq!(m[&file].len(), 3);
    }
}
