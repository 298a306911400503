//! DNS over UDP on real captures: every port-53 datagram of the corpus DNS cases and of
//! sv-ether.pcap (fixtures/dns-udp.messages, made by fixtures/make-dns-fixtures.py with
//! tshark) goes through `AppFlow`; the query names of each request must equal what
//! tshark decodes.

use app::{AppCtx, AppFlow, Direction, Transport};

const FIXTURE: &str = include_str!("fixtures/dns-udp.messages");

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap())
        .collect()
}

#[test]
fn query_names_match_tshark() {
    let mut ctx = AppCtx::default();
    let (mut requests, mut checked) = (0, 0);
    for line in FIXTURE.lines().filter(|l| l.starts_with("D ")) {
        let f: Vec<&str> = line.splitn(5, ' ').collect();
        let (sp, dp): (u16, u16) = (f[1].parse().unwrap(), f[2].parse().unwrap());
        let payload = unhex(f[3]);
        let want: Vec<&str> = if f[4] == "-" {
            vec![]
        } else {
            f[4].split(',').collect()
        };
        let (dir, client, server) = if dp == 53 {
            (Direction::ToServer, sp, dp)
        } else {
            (Direction::ToClient, dp, sp)
        };
        let mut flow = AppFlow::new(Transport::Udp, client, server);
        flow.datagram(&mut ctx, dir, &payload);
        if dir != Direction::ToServer || payload.get(2).is_some_and(|b| b & 0x80 != 0) {
            continue;
        }
        requests += 1;
        let Some(dns) = flow.dns() else {
            // Not DNS after all (e.g. SNMP sent to port 53): tshark found no question.
            assert!(want.is_empty(), "not detected as DNS: {line}");
            continue;
        };
        let got: Vec<String> = dns
            .txs()
            .flat_map(|t| t.queries())
            .map(|q| {
                if q.is_empty() {
                    "<Root>".to_string()
                } else {
                    String::from_utf8_lossy(q).into_owned()
                }
            })
            .collect();
        assert_eq!(got, want, "{line}");
        checked += 1;
    }
    println!("dns: {checked}/{requests} requests agree with tshark");
    assert!(checked > 0);
}
