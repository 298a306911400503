//! Tests of the DCERPC parsers and state on PDUs cut from sv-ether.pcap, and of the
//! parsers on arbitrary bytes.

use proptest::prelude::*;
use rules::{AppOpt, AppProto as RuleProto, AppValue, IntCmp};
use serde_json::json;

use super::parser::{self, ptype};
use super::{keywords, log, DcerpcConn, DcerpcUdp};
use crate::Direction::{ToClient, ToServer};

/// Hex to bytes.
fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// sv-ether.pcap, 192.168.56.104:62614 -> 192.168.56.102:135, client: a bind of the
/// endpoint mapper (two contexts), then an `ept_map` request (opnum 3).
const EPM_CLIENT: &str = "05000b03100000007400000002000000d016d0160000000002000000000001000883afe11f5dc91191a408002b14a0fa03000000045d888aeb1cc9119fe808002b10486002000000010001000883afe11f5dc91191a408002b14a0fa030000002c1cb76c1298404503000000000000000100000005000003100000009c0000000200000084000000000003000100000000000000000000000000000000000000020000004b0000004b000000050013000d785634123412cdabef0001234567cffb01000200000013000d045d888aeb1cc9119fe808002b10486002000200000001000b02000000010007020000870100090400c0a8386600000000000000000000000000000000000000000004000000";
/// The server's side: bind_ack (accepted, negotiate ack), then the response.
const EPM_SERVER: &str = "05000c03100000005400000002000000d016d0168b220000040031333500dd6b0200000000000000045d888aeb1cc9119fe808002b104860020000000300030000000000000000000000000000000000000000000500020310000000f000000002000000d80000000000000000000000000000000000000000000000000000000200000004000000000000000200000003000000040000004b0000004b000000050013000d785634123412cdabef0001234567cffb01000200000013000d045d888aeb1cc9119fe808002b10486002000200000001000b020000000100070200c20a0100090400c0a83866004b0000004b000000050013000d785634123412cdabef0001234567cffb01000200000013000d045d888aeb1cc9119fe808002b10486002000200000001000b020000000100070200c2030100090400c0a838660000000000";

fn epm_conn() -> DcerpcConn {
    let mut c = DcerpcConn::new();
    let cl = unhex(EPM_CLIENT);
    let sv = unhex(EPM_SERVER);
    assert!(!c.parse(ToServer, &cl[..116], 16).error);
    assert!(!c.parse(ToClient, &sv[..84], 16).error);
    // The request and response split anywhere.
    for (dir, b) in [(ToServer, &cl[116..]), (ToClient, &sv[84..])] {
        for chunk in b.chunks(7) {
            assert!(!c.parse(dir, chunk, 16).error);
        }
    }
    c
}

#[test]
fn headers_of_real_pdus() {
    let cl = unhex(EPM_CLIENT);
    let h = parser::co_header(&cl).unwrap();
    assert_eq!((h.ptype, h.frag_length, h.call_id), (ptype::BIND, 116, 2));
    assert!(h.first_frag() && h.last_frag() && h.little_endian);
    let ctxs = parser::bind_contexts(&h, &cl[..116], 8).unwrap();
    assert_eq!(ctxs.len(), 2);
    assert_eq!(
        parser::uuid_string(&ctxs[0].uuid),
        "e1af8308-5d1f-11c9-91a4-08002b14a0fa"
    );
    assert_eq!(
        (ctxs[0].version, ctxs[0].version_minor, ctxs[1].ctx_id),
        (3, 0, 1)
    );
    let sv = unhex(EPM_SERVER);
    let h = parser::co_header(&sv).unwrap();
    let acks = parser::bind_ack_results(&h, &sv[..84], 8).unwrap();
    assert_eq!(acks.iter().map(|a| a.result).collect::<Vec<_>>(), [0, 3]);
    let r = &cl[116..];
    let h = parser::co_header(r).unwrap();
    let req = parser::request(&h, r).unwrap();
    assert_eq!((req.opnum, req.ctx_id, req.stub.len()), (3, 0, 132));
    assert_eq!(
        parser::co_frag_length(b"\x16\x03\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"),
        None
    );
}

#[test]
fn a_bind_and_a_call_give_suricatas_records() {
    let c = epm_conn();
    let txs: Vec<_> = c.txs().collect();
    assert_eq!(txs.len(), 2);
    // As Suricata 7.0.10 logged this flow (sv-ether.suricata-eve.json.gz).
    assert_eq!(
        log::dcerpc_object(txs[0]),
        json!({"request":"BIND","interfaces":[
            {"uuid":"e1af8308-5d1f-11c9-91a4-08002b14a0fa","version":"3.0","ack_result":0},
            {"uuid":"e1af8308-5d1f-11c9-91a4-08002b14a0fa","version":"3.0","ack_result":3}],
            "response":"BINDACK","call_id":2,"rpc_version":"5.0"})
    );
    assert_eq!(
        log::dcerpc_object(txs[1]),
        json!({"request":"REQUEST","req":{"opnum":3,"frag_cnt":1,"stub_data_size":132},
            "response":"RESPONSE","res":{"frag_cnt":1,"stub_data_size":224},
            "call_id":2,"rpc_version":"5.0"})
    );
    assert!(txs.iter().all(|t| t.request_done() && t.response_done()));
    assert_eq!(c.interfaces().len(), 2);
    assert!(c.interfaces()[0].accepted() && !c.interfaces()[1].accepted());
    // The object SMB embeds for the same call.
    assert_eq!(
        log::smb_dcerpc_object(txs[1], Some(c.interfaces())),
        json!({"request":"REQUEST","response":"RESPONSE","opnum":3,
            "req":{"frag_cnt":1,"stub_data_size":132},
            "interfaces":[{"uuid":"e1af8308-5d1f-11c9-91a4-08002b14a0fa","version":"3.0"},
                {"uuid":"e1af8308-5d1f-11c9-91a4-08002b14a0fa","version":"3.0"}],
            "res":{"frag_cnt":1,"stub_data_size":224},"call_id":2})
    );
}

fn opt(name: &'static str, negated: bool, value: AppValue) -> AppOpt {
    AppOpt {
        name,
        protos: &[RuleProto::Dcerpc],
        negated,
        value,
    }
}

#[test]
fn keywords_on_a_call() {
    let c = epm_conn();
    let call = c.txs().nth(1).unwrap();
    let mut uuid = parser::co_header(&unhex(EPM_CLIENT))
        .map(|_| [0u8; 16])
        .unwrap();
    uuid.copy_from_slice(&unhex("0883afe11f5dc91191a408002b14a0fa"));
    let iface = |version, any_frag| AppValue::Iface {
        uuid,
        version,
        any_frag,
    };
    assert!(keywords::check(
        call,
        &opt("dcerpc.iface", false, iface(None, false)),
        ToServer
    ));
    assert!(keywords::check(
        call,
        &opt("dcerpc.iface", false, iface(Some(IntCmp::Eq(3)), false)),
        ToServer
    ));
    assert!(!keywords::check(
        call,
        &opt("dcerpc.iface", false, iface(Some(IntCmp::Gt(3)), false)),
        ToServer
    ));
    assert!(!keywords::check(
        call,
        &opt("dcerpc.iface", true, iface(None, true)),
        ToServer
    ));
    let mut other = uuid;
    other[0] ^= 1;
    let v = AppValue::Iface {
        uuid: other,
        version: None,
        any_frag: true,
    };
    assert!(!keywords::check(
        call,
        &opt("dcerpc.iface", false, v),
        ToServer
    ));
    let ops = |v: Vec<IntCmp>| AppValue::Ints(v);
    assert!(keywords::check(
        call,
        &opt(
            "dcerpc.opnum",
            false,
            ops(vec![IntCmp::Eq(1), IntCmp::Range(2, 5)])
        ),
        ToServer
    ));
    assert!(!keywords::check(
        call,
        &opt("dcerpc.opnum", false, ops(vec![IntCmp::Eq(4)])),
        ToServer
    ));
    assert!(keywords::check(
        call,
        &opt("dcerpc.opnum", true, ops(vec![IntCmp::Eq(4)])),
        ToServer
    ));
    // The bind is no call: neither keyword matches it.
    let bind = c.txs().next().unwrap();
    assert!(!keywords::check(
        bind,
        &opt("dcerpc.opnum", false, ops(vec![IntCmp::Ge(0)])),
        ToServer
    ));
    assert!(!keywords::check(
        bind,
        &opt("dcerpc.iface", false, iface(None, true)),
        ToServer
    ));
    // The stub buffers: request to the server, response to the client (with the 8
    // bytes after its common header, as Suricata 7.0.10 inspects it).
    assert_eq!(
        keywords::stub_data(call, ToServer).map(<[u8]>::len),
        Some(132)
    );
    assert_eq!(
        keywords::stub_data(call, ToClient).map(<[u8]>::len),
        Some(224)
    );
    assert_eq!(keywords::stub_data(bind, ToServer), None);
}

/// A request PDU of `stub` bytes with `flags`.
fn request(call_id: u32, flags: u8, stub: &[u8]) -> Vec<u8> {
    let len = (24 + stub.len()) as u16;
    let mut v = vec![5, 0, 0, flags, 0x10, 0, 0, 0];
    v.extend_from_slice(&len.to_le_bytes());
    v.extend_from_slice(&[0, 0]);
    v.extend_from_slice(&call_id.to_le_bytes());
    v.extend_from_slice(&(stub.len() as u32).to_le_bytes());
    v.extend_from_slice(&[0, 0, 7, 0]);
    v.extend_from_slice(stub);
    v
}

#[test]
fn fragments_are_reassembled_by_call_id() {
    let mut c = DcerpcConn::new();
    let mut s = request(9, 0x01, b"abc");
    s.extend(request(9, 0x00, b"def"));
    s.extend(request(9, 0x02, b"gh"));
    let o = c.parse(ToServer, &s, 16);
    assert_eq!(
        (o.new_txs, o.touched.as_slice(), o.error),
        (1, &[0][..], false)
    );
    let tx = c.tx(0).unwrap();
    assert_eq!((tx.req.count, tx.req.size, tx.opnum), (3, 8, Some(7)));
    assert_eq!(tx.req.stub, b"abcdefgh");
    assert!(tx.request_done() && !tx.response_done());
    assert_eq!(log::dcerpc_object(tx)["response"], "UNREPLIED");
}

#[test]
fn reassembly_is_capped_and_counted() {
    let mut c = DcerpcConn::new();
    let big = vec![0x41; 60_000];
    let mut cut = 0;
    for i in 0..20 {
        let flags = if i == 0 { 0x01 } else { 0 };
        cut += c.parse(ToServer, &request(1, flags, &big), 16).cut;
    }
    let tx = c.tx(0).unwrap();
    assert_eq!(tx.req.stub.len(), super::state::MAX_STUB);
    assert_eq!(tx.req.size, 20 * 60_000);
    assert_eq!(cut, 20 * 60_000 - super::state::MAX_STUB as u64);
}

#[test]
fn an_answer_without_its_call_and_garbage() {
    let mut c = DcerpcConn::new();
    let mut resp = request(4, 0x03, b"xyzw");
    resp[2] = ptype::RESPONSE;
    c.parse(ToClient, &resp, 16);
    let tx = c.tx(0).unwrap();
    assert_eq!(log::dcerpc_object(tx)["request"], "REQUEST_LOST");
    assert_eq!(
        log::dcerpc_object(tx)["res"],
        json!({"frag_cnt":1,"stub_data_size":12})
    );
    let o = c.parse(ToServer, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", 16);
    assert!(o.error && c.failed());
    assert_eq!(c.parse(ToClient, &resp, 16).new_txs, 0);
    // Transactions beyond the limit are dropped and counted.
    let mut c = DcerpcConn::new();
    let mut s = Vec::new();
    for i in 0..5 {
        s.extend(request(i, 0x03, b""));
    }
    assert_eq!(c.parse(ToServer, &s, 3).dropped_txs, 2);
    assert_eq!(c.txs().count(), 3);
}

/// sv-ether.pcap, 192.168.0.1:80 -> 255.255.255.255:8000: a connectionless request
/// (big-endian; opnum 0, no body) of activity dddc324e-03d8-af4e-86ee-7650df599e40,
/// seqnum 0, then its response (the same flow and direction).
const CL_REQUEST: &str = "04000100000000001012bab13908446aafbb458037b48ad18f8ab4370c524b49a2ae33aa20bc561f4e32dcddd8034eaf86ee7650df599e400000000000000001000000000000ffffffff000000000000";
const CL_RESPONSE: &str = "04020100000000003ecf9fbb038d460287997e1011512e19609cbe7898e640c295f0e82c377351df4e32dcddd8034eaf86ee7650df599e400000000000000001000000000000ffffffff000000000000";

#[test]
fn connectionless_calls() {
    let mut u = DcerpcUdp::new();
    let req = unhex(CL_REQUEST);
    assert_eq!(req.len(), parser::CL_HDR);
    let h = parser::cl_header(&req).unwrap();
    assert_eq!((h.little_endian, h.seqnum, h.if_version), (false, 0, 1));
    assert_eq!(u.datagram(&req, 16).new_txs, 1);
    assert_eq!(u.datagram(&unhex(CL_RESPONSE), 16).new_txs, 0);
    let tx = u.txs().next().unwrap();
    // `byte_*` with `dce` read this call's stub big endian.
    assert!(!tx.little_endian);
    assert_eq!(
        crate::proto::Transaction::dce_little_endian(tx),
        Some(false)
    );
    assert_eq!(
        log::dcerpc_object(tx),
        json!({"request":"REQUEST","req":{"opnum":0,"frag_cnt":1,"stub_data_size":0},
            "response":"RESPONSE","res":{"frag_cnt":1,"stub_data_size":0},
            "activityuuid":"dddc324e-03d8-af4e-86ee-7650df599e40","seqnum":0,"rpc_version":"4.0"})
    );
    assert!(u.datagram(b"\x04\x00", 16).error);
}

proptest! {
    #[test]
    fn parsers_take_arbitrary_bytes(b in proptest::collection::vec(any::<u8>(), 0..300)) {
        if let Some(h) = parser::co_header(&b) {
            let _ = parser::request(&h, &b);
            let _ = parser::response(&h, &b);
            let _ = parser::bind_contexts(&h, &b, 8);
            let _ = parser::bind_ack_results(&h, &b, 8);
        }
        let _ = parser::cl_header(&b);
        let mut u = DcerpcUdp::new();
        let _ = u.datagram(&b, 4);
    }

    #[test]
    fn the_state_takes_arbitrary_streams(
        chunks in proptest::collection::vec((any::<bool>(), proptest::collection::vec(any::<u8>(), 0..80)), 0..20)
    ) {
        let mut c = DcerpcConn::new();
        let mut pre = unhex(EPM_CLIENT);
        pre.truncate(116);
        c.parse(ToServer, &pre, 4);
        for (to_server, mut b) in chunks {
            if b.len() > 3 {
                b[0] = 5;
                b[1] = 0;
            }
            let dir = if to_server { ToServer } else { ToClient };
            let _ = c.parse(dir, &b, 4);
        }
        prop_assert!(c.txs().count() <= 4);
        for t in c.txs() {
            let _ = log::dcerpc_object(t);
        }
    }
}

#[test]
fn the_tcp_probe_takes_a_request_header_to_the_server_as_suricata() {
    use crate::detect::{AppProto, Probe};
    let hdr = |minor: u8, ptype: u8, drep: [u8; 2], frag: u16| {
        let mut b = vec![5, minor, ptype, 3, drep[0], drep[1], 0, 0];
        b.extend_from_slice(&frag.to_le_bytes());
        b.extend_from_slice(&[0, 0, 1, 0, 0, 0]);
        b
    };
    let dcerpc = Probe::Match(AppProto::Dcerpc);
    // A request, its fragment length not looked at (0 here).
    assert_eq!(super::probe_tcp(ToServer, &hdr(0, 0, [0x10, 0], 0)), dcerpc);
    assert_eq!(super::probe_tcp(ToServer, &hdr(0, 0, [0, 0], 24)), dcerpc);
    // ENIP command 5 (length 0, session 0): a request header to Suricata.
    let mut enip = vec![5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    enip.extend_from_slice(b"dtctx\0\0\0\0\0\0\0");
    assert_eq!(super::probe_tcp(ToServer, &enip), dcerpc);
    // Minor version 1, an unknown data representation: not this way.
    for b in [
        hdr(1, 0, [0x10, 0], 0),
        hdr(0, 0, [0xFF, 0], 24),
        hdr(0, 0, [0x10, 4], 24),
    ] {
        assert_eq!(super::probe_tcp(ToServer, &b), Probe::NoMatch);
    }
}
