//! The keywords of SSH (and the other protocols of issue 24a) evaluated on real
//! transactions: buffers through the protocol's table, options through
//! `Transaction::check`.

mod common;
use common::*;

#[test]
fn ssh_keywords_on_the_side_of_the_packet() {
    let det = detector(
        "alert ssh any any -> any any (ssh.protoversion:2_compat; sid:1;)\n\
         alert ssh any any -> any any (ssh.protoversion:1.99; sid:2;)\n\
         alert ssh any any -> any any (ssh.softwareversion:OpenSSH_8.2p1; sid:3;)\n\
         alert ssh any any -> any any (ssh.proto; content:\"1.99\"; sid:4;)\n\
         alert ssh any any -> any any (ssh.software; content:\"openssh\"; nocase; sid:5;)\n\
         alert ssh any any -> any any (ssh.hassh.server; content:\"deadbeefdeadbeefdeadbeefdeadbeef\"; sid:6;)",
    );
    let mut ctx = app::AppCtx::new(app::Config::default());
    let mut af = app::AppFlow::new(app::Transport::Tcp, 40000, 22);
    af.parse(
        &mut ctx,
        app::Direction::ToServer,
        b"SSH-2.0-OpenSSH_8.2p1 Ubuntu-4ubuntu0.3\r\n",
    );
    af.parse(
        &mut ctx,
        app::Direction::ToClient,
        b"SSH-1.99-Cisco-1.25\r\n",
    );
    assert_eq!(af.app_proto(), app::AppProto::Ssh);
    assert_eq!(tx_sids(&det, &af, true, false), vec![1, 3, 5]);
    assert_eq!(tx_sids(&det, &af, false, false), vec![1, 2, 4]);
}

#[test]
fn krb5_snmp_dhcp_options_on_real_messages() {
    let det = detector(
        "alert krb5 any any -> any any (krb5_msg_type:10; sid:1;)\n\
         alert krb5 any any -> any any (krb5_msg_type:11; sid:2;)\n\
         alert krb5 any any -> any any (krb5.cname; content:\"test\"; sid:3;)\n\
         alert krb5 any any -> any any (krb5.sname; content:\"krbtgt\"; sid:4;)\n\
         alert snmp any any -> any any (snmp.version:2; sid:5;)\n\
         alert snmp any any -> any any (snmp.pdu_type:1; snmp.community; content:\"cti\"; sid:6;)\n\
         alert snmp any any -> any any (snmp.pdu_type:0; sid:7;)\n\
         alert dhcp any any -> any any (dhcp.leasetime:3600; sid:8;)\n\
         alert dhcp any any -> any any (dhcp.renewal_time:>2000; sid:9;)\n\
         alert dhcp any any -> any any (dhcp.rebinding_time:<4000; sid:10;)",
    );
    let mut ctx = app::AppCtx::new(app::Config::default());
    // sv-ether.pcap's AS-REQ of 192.168.189.100:65285 (a TCP record).
    let mut af = app::AppFlow::new(app::Transport::Tcp, 65285, 88);
    af.parse(
        &mut ctx,
        app::Direction::ToServer,
        include_bytes!("../../app/src/krb5/testdata/as_req.bin"),
    );
    assert_eq!(af.app_proto(), app::AppProto::Krb5);
    // The message type matches the request. The principal names are to_client buffers,
    // as Suricata 7.0.10 registers them, and a Kerberos transaction is inspected only
    // in the direction it travelled: a request's names match in neither direction
    // (sv-ether's krb5.cname/krb5.sname alerts come from replies, 1 and 12 in both
    // engines; the difftest `krb5` family agrees with Suricata on requests).
    assert_eq!(tx_sids(&det, &af, true, false), vec![1]);
    assert_eq!(tx_sids(&det, &af, false, false), Vec::<u32>::new());
    let mut af = app::AppFlow::new(app::Transport::Udp, 33938, 161);
    af.datagram(
        &mut ctx,
        app::Direction::ToServer,
        include_bytes!("../../app/src/snmp/testdata/get_next.bin"),
    );
    assert_eq!(af.app_proto(), app::AppProto::Snmp);
    assert_eq!(tx_sids(&det, &af, true, true), vec![5, 6]);
    let mut af = app::AppFlow::new(app::Transport::Udp, 68, 67);
    af.datagram(
        &mut ctx,
        app::Direction::ToClient,
        include_bytes!("../../app/src/dhcp/testdata/ack.bin"),
    );
    assert_eq!(af.app_proto(), app::AppProto::Dhcp);
    // Lease 3600, renewal 1681, rebinding 3031.
    assert_eq!(tx_sids(&det, &af, false, true), vec![8, 10]);
}
