//! The keywords of the protocols of issue 24c (IKE) evaluated on real transactions:
//! buffers through the protocol's table, options through `Transaction::check`.

mod common;
use common::*;

/// sv-ether.pcap, 192.168.12.1:500 <-> 192.168.12.2:500: the initiator's main-mode
/// SA, the responder's chosen transform, then each side's key exchange and nonce.
fn ike_flow() -> (app::AppCtx, app::AppFlow) {
    let mut ctx = app::AppCtx::new(app::Config::default());
    let mut af = app::AppFlow::new(app::Transport::Udp, 500, 500);
    for (d, m) in [
        (
            app::Direction::ToServer,
            &include_bytes!("../../app/src/ike/testdata/v1_sa_init.bin")[..],
        ),
        (
            app::Direction::ToClient,
            &include_bytes!("../../app/src/ike/testdata/v1_sa_resp.bin")[..],
        ),
        (
            app::Direction::ToServer,
            &include_bytes!("../../app/src/ike/testdata/v1_ke_init.bin")[..],
        ),
        (
            app::Direction::ToClient,
            &include_bytes!("../../app/src/ike/testdata/v1_ke_resp.bin")[..],
        ),
    ] {
        af.datagram(&mut ctx, d, m);
    }
    assert_eq!(af.app_proto(), app::AppProto::Ike);
    (ctx, af)
}

#[test]
fn ike_keywords_on_real_messages() {
    let det = detector(
        "alert ike any any -> any any (ike.exchtype:2; sid:1;)\n\
         alert ike any any -> any any (ike.exchtype:>2; sid:2;)\n\
         alert ike any any -> any any (ike.chosen_sa_attribute:alg_hash=2; sid:3;)\n\
         alert ike any any -> any any (ike.chosen_sa_attribute:sa_key_length=256; sid:4;)\n\
         alert ike any any -> any any (ike.nonce_payload_length:20; sid:5;)\n\
         alert ike any any -> any any (ike.key_exchange_payload_length:>128; sid:6;)\n\
         alert ike any any -> any any (ike.init_spi; content:\"e47a591fd057587f\"; sid:7;)\n\
         alert ike any any -> any any (ike.resp_spi; content:\"a00b8ef0902bb8ec\"; sid:8;)",
    );
    let (_ctx, af) = ike_flow();
    // Each of the four messages is a transaction, inspected in the direction it
    // travelled: every one is of exchange type 2; each side's nonce is 20 bytes and its
    // key exchange 128. As Suricata 7.0.10 registers them, `ike.init_spi` is an
    // initiator-side buffer and `ike.resp_spi` a responder-side one, and the chosen SA
    // (SHA, 2, with a 128-bit key) is the responder's SA message's. (The other buffers
    // are checked on the capture against Suricata by crates/cli/tests/eve_issue24c.rs.)
    let dedup = |mut v: Vec<u32>| {
        v.dedup();
        v
    };
    assert_eq!(dedup(tx_sids(&det, &af, true, true)), vec![1, 5, 7]);
    assert_eq!(dedup(tx_sids(&det, &af, false, true)), vec![1, 3, 5, 8]);
}
