//! The TLS, MQTT and Kerberos keywords of issue 24 evaluated on real transactions (bytes
//! cut from sv-ether.pcap), with the alerts Suricata 7.0.10 raises on the same flows.

mod common;
use common::*;

fn tls_data(name: &str) -> Vec<u8> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../app/src/tls/testdata/");
    std::fs::read(format!("{dir}{name}")).unwrap()
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// 2022-07-05T19:04:40Z, when sv-ether's Sliver flow ran.
const SLIVER_TIME: u64 = 1_657_047_880;

#[test]
fn tls_keywords_on_the_sliver_handshake() {
    // sv-ether.pcap, 192.168.116.130:54080 -> 54.206.116.39:443 (TLS 1.2, one
    // certificate valid from 2021-12-26T00:39:18 to 2024-12-25T00:39:18). Suricata
    // 7.0.10 alerts 1, 3, 15 and 16 to the server and 2, 3, 5, 6, 8, 10, 12 and 13 to
    // the client.
    let det = detector(
        "alert tls any any -> any any (flow:to_server; tls.version:1.2; sid:1;)\n\
         alert tls any any -> any any (flow:to_client; tls.version:1.2; sid:2;)\n\
         alert tls any any -> any any (ssl_version:tls1.2; sid:3;)\n\
         alert tls any any -> any any (ssl_version:tls1.3; sid:4;)\n\
         alert tls any any -> any any (tls.cert_chain_len:1; sid:5;)\n\
         alert tls any any -> any any (tls_cert_valid; sid:6;)\n\
         alert tls any any -> any any (tls_cert_expired; sid:7;)\n\
         alert tls any any -> any any (tls_cert_notbefore:2021-12-26T00:39:18; sid:8;)\n\
         alert tls any any -> any any (tls_cert_notafter:<2024; sid:9;)\n\
         alert tls any any -> any any (tls.subject:\"CN=localhost\"; sid:10;)\n\
         alert tls any any -> any any (tls.issuerdn:\"CN=\"; sid:11;)\n\
         alert tls any any -> any any (tls.fingerprint:\"FA:5F:67:F7:3E:6E:24:53:E8:17:5D:7F:BC:A6:BC:20:66:FB:62:12\"; sid:12;)\n\
         alert tls any any -> any any (tls.cert_serial; content:\"00:99:EB:86\"; sid:13;)\n\
         alert tls any any -> any any (ssl_version:!tls1.0; sid:14;)\n\
         alert tls any any -> any any (ja4.hash; content:\"t12i2807h2_d943125447b4_dd0a478c1db3\"; sid:15;)\n\
         alert tls any any -> any any (flow:to_server; tls.random; bsize:32; sid:16;)",
    );
    let mut ctx = app::AppCtx::new(app::Config::default());
    let mut af = app::AppFlow::new(app::Transport::Tcp, 54080, 443);
    af.parse(
        &mut ctx,
        app::Direction::ToServer,
        &tls_data("sliver_client_hello.bin"),
    );
    assert_eq!(af.app_proto(), app::AppProto::Tls);
    af.parse(
        &mut ctx,
        app::Direction::ToClient,
        &tls_data("sliver_server_flight.bin"),
    );
    assert_eq!(
        tx_sids_at(&det, &af, true, false, SLIVER_TIME),
        [1, 3, 15, 16]
    );
    assert_eq!(
        tx_sids_at(&det, &af, false, false, SLIVER_TIME),
        [2, 3, 5, 6, 8, 10, 12, 13]
    );
    // After notAfter the certificate has expired.
    let later = SLIVER_TIME + 3 * 365 * 86_400;
    let got = tx_sids_at(&det, &af, false, false, later);
    assert!(got.contains(&7) && !got.contains(&6), "{got:?}");
}

#[test]
fn mqtt_keywords_on_a_version_5_session() {
    // sv-ether.pcap, [::1]:37844 -> [::1]:1883: CONNECT (version 5, username,
    // password, clean start), CONNACK, a QoS 2 PUBLISH with PUBREC, PUBREL and
    // PUBCOMP, DISCONNECT. Suricata 7.0.10: the transactions are CONNECT+CONNACK,
    // the PUBLISH exchange and the DISCONNECT.
    let det = detector(
        "alert mqtt any any -> any any (mqtt.protocol_version:5; sid:1;)\n\
         alert mqtt any any -> any any (mqtt.protocol_version:<5; sid:2;)\n\
         alert mqtt any any -> any any (mqtt.type:publish; sid:3;)\n\
         alert mqtt any any -> any any (mqtt.type:CONNACK; sid:4;)\n\
         alert mqtt any any -> any any (mqtt.qos:2; sid:5;)\n\
         alert mqtt any any -> any any (mqtt.qos:1; sid:6;)\n\
         alert mqtt any any -> any any (mqtt.flags:retain; sid:7;)\n\
         alert mqtt any any -> any any (mqtt.reason_code:0; sid:8;)\n\
         alert mqtt any any -> any any (mqtt.connack.session_present:false; sid:9;)\n\
         alert mqtt any any -> any any (mqtt.connect.flags:username,password,!will; sid:10;)\n\
         alert mqtt any any -> any any (mqtt.connect.flags:will; sid:11;)\n\
         alert mqtt any any -> any any (mqtt.type:DISCONNECT; sid:12;)",
    );
    let mut ctx = app::AppCtx::new(app::Config::default());
    let mut af = app::AppFlow::new(app::Transport::Tcp, 37844, 1883);
    let segments = [
        (true, "102f00044d51545405c2003c0321001400136d79766f69636569736d7970617373706f7274000475736572000470617373"),
        (false, "200600000322000a"),
        (true, "341b0006746f70696358000100626161626161626c61636b7368656570"),
        (false, "50020001"),
        (true, "62020001"),
        (false, "70020001"),
        (true, "e000"),
    ];
    for (to_server, hex) in segments {
        let dir = if to_server {
            app::Direction::ToServer
        } else {
            app::Direction::ToClient
        };
        af.parse(&mut ctx, dir, &unhex(hex));
    }
    assert_eq!(af.app_proto(), app::AppProto::Mqtt);
    // Three transactions: version 5 on each, the reason code on each (the PUBREC and
    // DISCONNECT without one read as 0, success); the session present flag of a
    // CONNACK answering a CONNECT is not looked at (as Suricata).
    assert_eq!(
        tx_sids_at(&det, &af, true, false, 0),
        [1, 1, 1, 3, 4, 5, 6, 8, 8, 8, 10, 12]
    );
}

#[test]
fn krb5_ticket_encryption_of_a_reply() {
    // sv-ether.pcap, 192.168.189.100:65285 -> 192.168.189.1:88: the AS-REP's ticket is
    // aes256-cts-hmac-sha1-96 (Suricata alerts 2, 4, 5 and 6 on it).
    let det = detector(
        "alert krb5 any any -> any any (krb5.ticket_encryption:weak; sid:1;)\n\
         alert krb5 any any -> any any (krb5.ticket_encryption:!weak; sid:2;)\n\
         alert krb5 any any -> any any (krb5.ticket_encryption:rc4-hmac; sid:3;)\n\
         alert krb5 any any -> any any (krb5.ticket_encryption:aes256-cts-hmac-sha1-96; sid:4;)\n\
         alert krb5 any any -> any any (krb5.ticket_encryption:18; sid:5;)\n\
         alert krb5 any any -> any any (krb5.ticket_encryption:17,18,23; sid:6;)",
    );
    let mut ctx = app::AppCtx::new(app::Config::default());
    let mut af = app::AppFlow::new(app::Transport::Tcp, 65285, 88);
    af.parse(
        &mut ctx,
        app::Direction::ToServer,
        include_bytes!("../../app/src/krb5/testdata/as_req.bin"),
    );
    af.parse(
        &mut ctx,
        app::Direction::ToClient,
        include_bytes!("../../app/src/krb5/testdata/as_rep.bin"),
    );
    assert_eq!(af.app_proto(), app::AppProto::Krb5);
    assert_eq!(tx_sids_at(&det, &af, false, false, 0), [2, 4, 5, 6]);
}
