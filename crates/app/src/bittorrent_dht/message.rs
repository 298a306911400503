//! A BitTorrent DHT message (BEP 5): a bencoded dictionary with a transaction ID `t`,
//! an optional client version `v`, its type `y` and a query (`q` and arguments `a`), a
//! response (`r`) or an error (`e`: code and message).

use super::bencode::{self, Bencode};

/// A query's arguments.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Request {
    /// Querying node's ID.
    pub id: Option<Vec<u8>>,
    /// `find_node` target.
    pub target: Option<Vec<u8>>,
    /// `get_peers`/`announce_peer` info hash.
    pub info_hash: Option<Vec<u8>>,
    /// `announce_peer` token.
    pub token: Option<Vec<u8>>,
    /// `announce_peer` implied port flag.
    pub implied_port: Option<i64>,
    /// `announce_peer` port.
    pub port: Option<i64>,
}

/// A compact node: ID, IP address (4 or 16 bytes) and port.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    /// Node ID (20 bytes).
    pub id: Vec<u8>,
    /// Address.
    pub ip: std::net::IpAddr,
    /// Port.
    pub port: u16,
}

/// A compact peer: IPv4 address and port.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Peer {
    /// Address.
    pub ip: std::net::IpAddr,
    /// Port.
    pub port: u16,
}

/// A response's values.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Response {
    /// Responding node's ID.
    pub id: Option<Vec<u8>>,
    /// Compact IPv4 nodes.
    pub nodes: Vec<Node>,
    /// Compact IPv6 nodes.
    pub nodes6: Vec<Node>,
    /// Peers.
    pub values: Vec<Peer>,
    /// Token.
    pub token: Option<Vec<u8>>,
}

/// What a message carries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Body {
    /// A query: its method and arguments.
    Request(Vec<u8>, Request),
    /// A response.
    Response(Response),
    /// An error: code and message.
    Error(i64, Vec<u8>),
    /// None of them (a missing or unknown `y`).
    None,
}

/// One DHT message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DhtMessage {
    /// Transaction ID (empty when missing).
    pub transaction_id: Vec<u8>,
    /// Client version.
    pub client_version: Option<Vec<u8>>,
    /// Its body.
    pub body: Body,
    /// A field required was missing or of the wrong type.
    pub malformed: bool,
}

fn bytes(v: Option<&Bencode<'_>>) -> Option<Vec<u8>> {
    v.and_then(Bencode::bytes).map(<[u8]>::to_vec)
}

fn ip(b: &[u8]) -> std::net::IpAddr {
    match b.len() {
        4 => std::net::IpAddr::from(<[u8; 4]>::try_from(b).unwrap_or_default()),
        _ => std::net::IpAddr::from(<[u8; 16]>::try_from(b).unwrap_or_default()),
    }
}

fn nodes(v: Option<&Bencode<'_>>, addr: usize) -> Vec<Node> {
    let Some(b) = v.and_then(Bencode::bytes) else {
        return Vec::new();
    };
    b.chunks_exact(20 + addr + 2)
        .map(|c| Node {
            id: c[..20].to_vec(),
            ip: ip(&c[20..20 + addr]),
            port: u16::from_be_bytes([c[20 + addr], c[21 + addr]]),
        })
        .collect()
}

/// Parses one datagram; `None` when it is not a bencoded dictionary.
pub fn parse(data: &[u8]) -> Option<DhtMessage> {
    let (root, _) = bencode::parse(data)?;
    let Bencode::Dict(_) = root else { return None };
    let t = bytes(root.get("t"));
    let mut malformed = t.is_none();
    let body = match root.get("y").and_then(Bencode::bytes) {
        Some(b"q") => {
            let a = root.get("a");
            let arg = |k| bytes(a.and_then(|a| a.get(k)));
            let int = |k| a.and_then(|a| a.get(k)).and_then(Bencode::int);
            let q = bytes(root.get("q"));
            malformed |= q.is_none() || a.is_none();
            Body::Request(
                q.unwrap_or_default(),
                Request {
                    id: arg("id"),
                    target: arg("target"),
                    info_hash: arg("info_hash"),
                    token: arg("token"),
                    implied_port: int("implied_port"),
                    port: int("port"),
                },
            )
        }
        Some(b"r") => {
            let r = root.get("r");
            malformed |= r.is_none();
            let get = |k| r.and_then(|r| r.get(k));
            let values = match get("values") {
                Some(Bencode::List(l)) => l
                    .iter()
                    .filter_map(Bencode::bytes)
                    .filter(|b| b.len() == 6)
                    .map(|b| Peer {
                        ip: ip(&b[..4]),
                        port: u16::from_be_bytes([b[4], b[5]]),
                    })
                    .collect(),
                _ => Vec::new(),
            };
            Body::Response(Response {
                id: bytes(get("id")),
                nodes: nodes(get("nodes"), 4),
                nodes6: nodes(get("nodes6"), 16),
                values,
                token: bytes(get("token")),
            })
        }
        Some(b"e") => match root.get("e") {
            Some(Bencode::List(l)) => match (l.first().and_then(Bencode::int), l.get(1)) {
                (Some(n), Some(Bencode::Bytes(m))) => Body::Error(n, m.to_vec()),
                _ => {
                    malformed = true;
                    Body::None
                }
            },
            _ => {
                malformed = true;
                Body::None
            }
        },
        _ => {
            malformed = true;
            Body::None
        }
    };
    Some(DhtMessage {
        transaction_id: t.unwrap_or_default(),
        client_version: bytes(root.get("v")),
        body,
        malformed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// sv-ether.pcap, 190.0.0.1:20000 <-> 190.0.0.3:30000.
    const GET_PEERS_VALUES: &[u8] = include_bytes!("testdata/get_peers_values.bin");
    const PING_NO_T: &[u8] = include_bytes!("testdata/ping_no_t.bin");
    const ERROR: &[u8] = include_bytes!("testdata/error.bin");

    #[test]
    fn real_messages() {
        let m = parse(GET_PEERS_VALUES).unwrap();
        assert!(!m.malformed);
        assert_eq!(m.transaction_id, b"aa");
        assert_eq!(m.client_version.as_deref(), Some(&b"UT12"[..]));
        let Body::Response(r) = m.body else { panic!() };
        assert_eq!(r.values.len(), 2);
        assert_eq!(
            (r.values[0].ip.to_string(), r.values[0].port),
            ("97.120.106.101".into(), 11893)
        );
        let m = parse(PING_NO_T).unwrap();
        assert!(m.malformed && m.transaction_id.is_empty());
        assert!(matches!(m.body, Body::Request(ref q, _) if q == b"ping"));
        let m = parse(ERROR).unwrap();
        assert_eq!(m.body, Body::Error(203, b"Malformed Packet".to_vec()));
        assert!(parse(b"l1:ae").is_none());
    }

    proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(data in proptest::collection::vec(any::<u8>(), 0..300)) {
            let _ = parse(&data);
            let mut d = b"d1:y1:r1:rd5:nodes".to_vec();
            d.extend_from_slice(&data);
            let _ = parse(&d);
        }
    }
}
