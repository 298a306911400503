use super::*;
use crate::smb::log::smb_object;
use Direction::*;

fn nbss(body: &[u8]) -> Vec<u8> {
    let l = body.len() as u32;
    let mut v = vec![0, (l >> 16) as u8, (l >> 8) as u8, l as u8];
    v.extend_from_slice(body);
    v
}

/// An SMB2 message: header for `command`/`mid` and `body`.
fn smb2(command: u16, mid: u64, resp: bool, status: u32, body: &[u8]) -> Vec<u8> {
    let mut h = vec![0u8; 64];
    h[..4].copy_from_slice(b"\xfeSMB");
    h[4] = 64;
    h[8..12].copy_from_slice(&status.to_le_bytes());
    h[12..14].copy_from_slice(&command.to_le_bytes());
    h[16] = u8::from(resp);
    h[24..32].copy_from_slice(&mid.to_le_bytes());
    h[36..40].copy_from_slice(&1u32.to_le_bytes());
    h[40..48].copy_from_slice(&77u64.to_le_bytes());
    h.extend_from_slice(body);
    nbss(&h)
}

#[test]
fn unanswered_requests_go_stale_and_answers_complete() {
    let mut ctx = AppCtx::default();
    let mut st = SmbState::default();
    // FLUSH requests (generic) with ids 0..=STALE_AFTER, only the last answered.
    for mid in 0..=STALE_AFTER {
        st.parse(&mut ctx, ToServer, &smb2(7, mid, false, 0, &[0; 24]));
    }
    st.parse(&mut ctx, ToClient, &smb2(7, STALE_AFTER, true, 0, &[0; 4]));
    let txs: Vec<_> = st.txs().collect();
    assert_eq!(txs.len() as u64, STALE_AFTER + 1);
    assert!(txs[0].stale && !txs[0].done);
    assert!(!txs[1].stale);
    let last = txs.last().unwrap();
    assert!(last.done);
    let o = smb_object(last);
    assert_eq!(o["command"], "SMB2_COMMAND_FLUSH");
    assert_eq!(o["status"], "STATUS_SUCCESS");
    assert_eq!(o["session_id"], 77);
    assert_eq!(ctx.counters.get(Counter::TxSmb), STALE_AFTER + 1);
}

#[test]
fn interim_answers_wait_for_the_final_one() {
    let mut ctx = AppCtx::default();
    let mut st = SmbState::default();
    st.parse(&mut ctx, ToServer, &smb2(7, 3, false, 0, &[0; 24]));
    let mut pending = smb2(7, 3, true, 0x103, &[0; 9]);
    pending[4 + 16] |= 2; // async
    st.parse(&mut ctx, ToClient, &pending);
    assert!(!st.txs().next().unwrap().done);
    st.parse(&mut ctx, ToClient, &smb2(7, 3, true, 0xc000_0022, &[0; 9]));
    let o = smb_object(st.txs().next().unwrap());
    assert_eq!(o["status"], "STATUS_ACCESS_DENIED");
    assert_eq!(o["status_code"], "0xc0000022");
}

#[test]
fn wrong_direction_and_garbage_raise_events() {
    let mut ctx = AppCtx::default();
    let mut st = SmbState::default();
    st.parse(&mut ctx, ToClient, &smb2(7, 1, false, 0, &[0; 24]));
    st.parse(&mut ctx, ToServer, &nbss(b"\xfeSMBshort"));
    let mut names = Vec::new();
    st.events()
        .each(super::super::EVENTS, &mut |n| names.push(n));
    assert_eq!(names, ["smb.malformed_data", "smb.request_to_client"]);
    assert_eq!(st.txs().count(), 0);
}

#[test]
fn events_stay_with_the_newest_transaction() {
    use crate::Transaction;
    let mut ctx = AppCtx::default();
    ctx.anomalies.set_enabled(true);
    let mut st = SmbState::default();
    st.parse(&mut ctx, ToServer, &smb2(7, 1, false, 0, &[0; 24]));
    st.parse(&mut ctx, ToClient, &smb2(7, 1, true, 0, &[0; 4]));
    st.parse(&mut ctx, ToServer, &smb2(7, 2, false, 0, &[0; 24]));
    // A message that does not parse opens no transaction: its event goes to the
    // newest one (id 1), not to the first nor to the ones after.
    st.parse(&mut ctx, ToClient, &nbss(b"\xfeSMBshort"));
    st.parse(&mut ctx, ToServer, &smb2(7, 3, false, 0, &[0; 24]));
    let events = |t: &crate::smb::tx::SmbTx, dir| {
        let mut v = Vec::new();
        assert!(t.tx_events(dir, &mut |e| v.push(e)));
        v
    };
    let txs: Vec<_> = st.txs().collect();
    assert_eq!(txs.len(), 3);
    for dir in [ToServer, ToClient] {
        assert!(events(txs[0], dir).is_empty());
        assert_eq!(events(txs[1], dir), ["smb.malformed_data"]);
        assert!(events(txs[2], dir).is_empty());
        assert!(txs[2].started(dir));
    }
    let queued: Vec<_> = ctx.anomalies.drain().map(|a| a.tx_id).collect();
    assert_eq!(queued, [Some(1)]);
}

mod arbitrary {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// Arbitrary bytes, framed as SMB records or not, never panic the parsers.
        #[test]
        fn arbitrary_messages_never_panic(
            chunks in proptest::collection::vec(
                (any::<bool>(), any::<u8>(), proptest::collection::vec(any::<u8>(), 0..300)),
                1..12,
            )
        ) {
            let mut ctx = AppCtx::default();
            let mut st = SmbState::default();
            for (to_server, magic, body) in chunks {
                let dir = if to_server { ToServer } else { ToClient };
                let mut m = match magic % 3 {
                    0 => b"\xfeSMB".to_vec(),
                    1 => b"\xffSMB".to_vec(),
                    _ => Vec::new(),
                };
                m.extend_from_slice(&body);
                st.parse(&mut ctx, dir, &nbss(&m));
                st.parse(&mut ctx, dir, &body);
                let _ = crate::smb::auth::parse(&body);
                let _ = crate::smb::smb2::header(&m);
                let _ = crate::smb::smb1::header(&m);
            }
            st.close();
            for t in st.txs() {
                let _ = smb_object(t);
            }
        }
    }
}
