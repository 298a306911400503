//! MQTT 3.1.1 (OASIS) and 5.0 control packets: the fixed header (type, flags,
//! remaining length), the variable headers and payloads of each packet type, and the
//! version 5 properties.

use std::fmt;

/// A packet that does not parse.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Malformed;

impl fmt::Display for Malformed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("malformed MQTT packet")
    }
}

/// The fixed header of a control packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FixedHeader {
    /// Packet type (1 CONNECT .. 15 AUTH; 0 is reserved).
    pub kind: u8,
    /// The low four bits of the first byte.
    pub flags: u8,
    /// Remaining length: bytes after the header.
    pub remaining: usize,
    /// Length of the fixed header itself (2 to 5 bytes).
    pub len: usize,
}

impl FixedHeader {
    /// The QoS bits (PUBLISH; 1 for the packets whose flags are `0010`).
    pub fn qos(&self) -> u8 {
        (self.flags >> 1) & 3
    }

    /// The RETAIN bit.
    pub fn retain(&self) -> bool {
        self.flags & 1 != 0
    }

    /// The DUP bit.
    pub fn dup(&self) -> bool {
        self.flags & 8 != 0
    }
}

/// The outcome of reading a fixed header from the start of a stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Header {
    /// A complete header.
    Ok(FixedHeader),
    /// More bytes are needed to read it.
    Incomplete,
    /// The remaining length runs past four bytes.
    Malformed,
}

/// Reads the fixed header at the start of `b`.
pub fn fixed_header(b: &[u8]) -> Header {
    let Some(&first) = b.first() else {
        return Header::Incomplete;
    };
    let mut remaining = 0usize;
    for i in 0..4 {
        let Some(&c) = b.get(1 + i) else {
            return Header::Incomplete;
        };
        remaining |= usize::from(c & 0x7f) << (7 * i);
        if c & 0x80 == 0 {
            return Header::Ok(FixedHeader {
                kind: first >> 4,
                flags: first & 0x0f,
                remaining,
                len: 2 + i,
            });
        }
    }
    Header::Malformed
}

/// A version 5 property value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PropValue {
    /// A byte, two- or four-byte integer or variable byte integer.
    Int(u32),
    /// A UTF-8 string or binary data.
    Bytes(Vec<u8>),
    /// A user property: name and value.
    Pair(Vec<u8>, Vec<u8>),
}

/// One version 5 property: identifier and value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Property {
    /// The property identifier.
    pub id: u8,
    /// Its value.
    pub value: PropValue,
}

/// The name Suricata logs property `id` under.
pub fn property_name(id: u8) -> Option<&'static str> {
    Some(match id {
        0x01 => "payload_format_indicator",
        0x02 => "message_expiry_interval",
        0x03 => "content_type",
        0x08 => "response_topic",
        0x09 => "correlation_data",
        0x0b => "subscription_identifier",
        0x11 => "session_expiry_interval",
        0x12 => "assigned_client_identifier",
        0x13 => "server_keep_alive",
        0x15 => "authentication_method",
        0x16 => "authentication_data",
        0x17 => "request_problem_information",
        0x18 => "will_delay_interval",
        0x19 => "request_response_information",
        0x1a => "response_information",
        0x1c => "server_reference",
        0x1f => "reason_string",
        0x21 => "receive_maximum",
        0x22 => "topic_alias_maximum",
        0x23 => "topic_alias",
        0x24 => "maximum_qos",
        0x25 => "retain_available",
        0x26 => "user_property",
        0x27 => "maximum_packet_size",
        0x28 => "wildcard_subscription_available",
        0x29 => "subscription_identifier_available",
        0x2a => "shared_subscription_available",
        _ => return None,
    })
}

/// A cursor over a packet's bytes.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], Malformed> {
        if self.0.len() < n {
            return Err(Malformed);
        }
        let (a, b) = self.0.split_at(n);
        self.0 = b;
        Ok(a)
    }

    fn u8(&mut self) -> Result<u8, Malformed> {
        Ok(self.take(1)?[0])
    }

    fn u16(&mut self) -> Result<u16, Malformed> {
        let b = self.take(2)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }

    fn u32(&mut self) -> Result<u32, Malformed> {
        let b = self.take(4)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn varint(&mut self) -> Result<u32, Malformed> {
        let mut v = 0u32;
        for i in 0..4 {
            let c = self.u8()?;
            v |= u32::from(c & 0x7f) << (7 * i);
            if c & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(Malformed)
    }

    /// A two-byte length and that many bytes (UTF-8 strings and binary data).
    fn bytes(&mut self) -> Result<Vec<u8>, Malformed> {
        let n = self.u16()?;
        Ok(self.take(usize::from(n))?.to_vec())
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    fn rest(&mut self) -> &'a [u8] {
        std::mem::take(&mut self.0)
    }

    /// A version 5 property list (length, then properties).
    fn properties(&mut self) -> Result<Vec<Property>, Malformed> {
        let n = self.varint()? as usize;
        let mut r = Reader(self.take(n)?);
        let mut out = Vec::new();
        while !r.is_empty() {
            let id = r.u8()?;
            let value = match id {
                0x01 | 0x17 | 0x19 | 0x24 | 0x25 | 0x28 | 0x29 | 0x2a => {
                    PropValue::Int(r.u8()?.into())
                }
                0x13 | 0x21 | 0x22 | 0x23 => PropValue::Int(r.u16()?.into()),
                0x02 | 0x11 | 0x18 | 0x27 => PropValue::Int(r.u32()?),
                0x0b => PropValue::Int(r.varint()?),
                0x03 | 0x08 | 0x09 | 0x12 | 0x15 | 0x16 | 0x1a | 0x1c | 0x1f => {
                    PropValue::Bytes(r.bytes()?)
                }
                0x26 => PropValue::Pair(r.bytes()?, r.bytes()?),
                _ => return Err(Malformed),
            };
            out.push(Property { id, value });
        }
        Ok(out)
    }
}

/// The will of a CONNECT.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Will {
    /// Will topic.
    pub topic: Vec<u8>,
    /// Will message.
    pub message: Vec<u8>,
    /// Will properties (version 5).
    pub properties: Vec<Property>,
}

/// CONNECT.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Connect {
    /// Protocol name (`MQTT`, `MQIsdp`).
    pub protocol_string: Vec<u8>,
    /// Protocol level (3, 4 or 5).
    pub protocol_version: u8,
    /// Connect flags.
    pub flags: u8,
    /// Keep alive, seconds.
    pub keepalive: u16,
    /// Client identifier.
    pub client_id: Vec<u8>,
    /// User name, when its flag is set.
    pub username: Option<Vec<u8>>,
    /// Password, when its flag is set.
    pub password: Option<Vec<u8>>,
    /// The will, when its flag is set.
    pub will: Option<Will>,
    /// Properties (version 5).
    pub properties: Vec<Property>,
}

/// The body of a control packet, by type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Body {
    /// CONNECT.
    Connect(Connect),
    /// CONNACK: session present, return (reason) code, properties.
    Connack {
        /// Session present flag.
        session_present: bool,
        /// Return code (reason code in version 5).
        return_code: u8,
        /// Properties (version 5).
        properties: Vec<Property>,
    },
    /// PUBLISH.
    Publish {
        /// Topic name.
        topic: Vec<u8>,
        /// Packet identifier (QoS 1 and 2 only).
        message_id: Option<u16>,
        /// Application message.
        message: Vec<u8>,
        /// Properties (version 5).
        properties: Vec<Property>,
    },
    /// PUBACK, PUBREC, PUBREL, PUBCOMP (the type says which).
    Ack {
        /// Packet identifier.
        message_id: u16,
        /// Reason code (version 5, when present).
        reason_code: Option<u8>,
        /// Properties (version 5).
        properties: Vec<Property>,
    },
    /// SUBSCRIBE: topic filters with their requested QoS.
    Subscribe {
        /// Packet identifier.
        message_id: u16,
        /// Topic filters and QoS.
        topics: Vec<(Vec<u8>, u8)>,
        /// Properties (version 5).
        properties: Vec<Property>,
    },
    /// SUBACK: granted QoS (reason codes).
    Suback {
        /// Packet identifier.
        message_id: u16,
        /// Return codes.
        qos_granted: Vec<u8>,
        /// Properties (version 5).
        properties: Vec<Property>,
    },
    /// UNSUBSCRIBE: topic filters.
    Unsubscribe {
        /// Packet identifier.
        message_id: u16,
        /// Topic filters.
        topics: Vec<Vec<u8>>,
        /// Properties (version 5).
        properties: Vec<Property>,
    },
    /// UNSUBACK.
    Unsuback {
        /// Packet identifier.
        message_id: u16,
        /// Reason codes (version 5).
        reason_codes: Option<Vec<u8>>,
        /// Properties (version 5).
        properties: Vec<Property>,
    },
    /// PINGREQ, PINGRESP (no body).
    Ping,
    /// DISCONNECT and AUTH: reason code and properties (version 5, when present).
    Reason {
        /// Reason code.
        reason_code: Option<u8>,
        /// Properties.
        properties: Vec<Property>,
    },
    /// A reserved packet type (0, or 15 before version 5).
    Unassigned,
    /// A packet longer than the configured limit: only its fixed header was read.
    Truncated,
}

/// One control packet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Packet {
    /// The fixed header.
    pub header: FixedHeader,
    /// The body.
    pub body: Body,
}

/// Parses one packet's body of type `h.kind` (`b`: its remaining bytes); `v5` selects
/// the version 5 layout (properties, reason codes). A CONNECT decides its own layout
/// by its protocol level.
pub fn body(h: &FixedHeader, b: &[u8], v5: bool) -> Result<Body, Malformed> {
    let mut r = Reader(b);
    let props = |r: &mut Reader| {
        if v5 {
            r.properties()
        } else {
            Ok(Vec::new())
        }
    };
    Ok(match h.kind {
        1 => Body::Connect(connect(&mut r)?),
        2 => {
            let session_present = r.u8()? & 1 != 0;
            let return_code = r.u8()?;
            let properties = if v5 && !r.is_empty() {
                r.properties()?
            } else {
                Vec::new()
            };
            Body::Connack {
                session_present,
                return_code,
                properties,
            }
        }
        3 => {
            let topic = r.bytes()?;
            let message_id = if h.qos() > 0 { Some(r.u16()?) } else { None };
            let properties = props(&mut r)?;
            Body::Publish {
                topic,
                message_id,
                message: r.rest().to_vec(),
                properties,
            }
        }
        4..=7 => {
            let message_id = r.u16()?;
            // Version 5 leaves out a success reason code (0).
            let reason_code = match (v5, r.is_empty()) {
                (true, false) => Some(r.u8()?),
                (true, true) => Some(0),
                (false, _) => None,
            };
            let properties = if v5 && !r.is_empty() {
                r.properties()?
            } else {
                Vec::new()
            };
            Body::Ack {
                message_id,
                reason_code,
                properties,
            }
        }
        8 => {
            let message_id = r.u16()?;
            let properties = props(&mut r)?;
            let mut topics = Vec::new();
            while !r.is_empty() {
                topics.push((r.bytes()?, r.u8()? & 3));
            }
            Body::Subscribe {
                message_id,
                topics,
                properties,
            }
        }
        9 => {
            let message_id = r.u16()?;
            let properties = props(&mut r)?;
            Body::Suback {
                message_id,
                qos_granted: r.rest().to_vec(),
                properties,
            }
        }
        10 => {
            let message_id = r.u16()?;
            let properties = props(&mut r)?;
            let mut topics = Vec::new();
            while !r.is_empty() {
                topics.push(r.bytes()?);
            }
            Body::Unsubscribe {
                message_id,
                topics,
                properties,
            }
        }
        11 => {
            let message_id = r.u16()?;
            let properties = props(&mut r)?;
            let reason_codes = v5.then(|| r.rest().to_vec());
            Body::Unsuback {
                message_id,
                reason_codes,
                properties,
            }
        }
        12 | 13 => Body::Ping,
        14 | 15 if v5 || h.kind == 14 => {
            // Version 5: a reason code and properties, or neither (success, 0); a
            // lone reason code is not read, as Suricata does not read it.
            let (reason_code, properties) = match (v5, r.0.len() >= 2) {
                (true, true) => (Some(r.u8()?), r.properties()?),
                (true, false) => (Some(0), Vec::new()),
                (false, _) => (None, Vec::new()),
            };
            Body::Reason {
                reason_code,
                properties,
            }
        }
        _ => Body::Unassigned,
    })
}

fn connect(r: &mut Reader) -> Result<Connect, Malformed> {
    let protocol_string = r.bytes()?;
    let protocol_version = r.u8()?;
    let flags = r.u8()?;
    let keepalive = r.u16()?;
    let v5 = protocol_version >= 5;
    let properties = if v5 { r.properties()? } else { Vec::new() };
    let client_id = r.bytes()?;
    let will = if flags & 0x04 != 0 {
        let properties = if v5 { r.properties()? } else { Vec::new() };
        Some(Will {
            topic: r.bytes()?,
            message: r.bytes()?,
            properties,
        })
    } else {
        None
    };
    let username = if flags & 0x80 != 0 {
        Some(r.bytes()?)
    } else {
        None
    };
    let password = if flags & 0x40 != 0 {
        Some(r.bytes()?)
    } else {
        None
    };
    Ok(Connect {
        protocol_string,
        protocol_version,
        flags,
        keepalive,
        client_id,
        username,
        password,
        will,
        properties,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// sv-ether.pcap (the first MQTT flow, port 53654): a version 5 CONNECT with user
    /// name, password and a receive maximum.
    const CONNECT_V5: &[u8] =
        b"\x10\x1c\x00\x04MQTT\x05\xc2\x00\x3c\x03\x21\x00\x14\x00\x00\x00\x04user\x00\x04pass";

    #[test]
    fn a_version_5_connect() {
        let Header::Ok(h) = fixed_header(CONNECT_V5) else {
            panic!("header")
        };
        assert_eq!((h.kind, h.flags, h.remaining, h.len), (1, 0, 28, 2));
        let Body::Connect(c) = body(&h, &CONNECT_V5[2..], false).unwrap() else {
            panic!("connect")
        };
        assert_eq!(c.protocol_string, b"MQTT");
        assert_eq!((c.protocol_version, c.flags, c.keepalive), (5, 0xc2, 60));
        assert_eq!(c.username.as_deref(), Some(&b"user"[..]));
        assert_eq!(c.password.as_deref(), Some(&b"pass"[..]));
        assert_eq!(
            c.properties,
            [Property {
                id: 0x21,
                value: PropValue::Int(20)
            }]
        );
    }

    #[test]
    fn fixed_headers() {
        assert_eq!(fixed_header(b""), Header::Incomplete);
        assert_eq!(fixed_header(b"\x30\x80"), Header::Incomplete);
        assert_eq!(fixed_header(b"\x30\xff\xff\xff\xff\x01"), Header::Malformed);
        let Header::Ok(h) = fixed_header(b"\x34\x80\x01") else {
            panic!()
        };
        assert_eq!((h.kind, h.qos(), h.remaining, h.len), (3, 2, 128, 3));
    }

    #[test]
    fn acks_and_subscriptions() {
        let h = |b: u8, n| FixedHeader {
            kind: b >> 4,
            flags: b & 15,
            remaining: n,
            len: 2,
        };
        assert_eq!(
            body(&h(0x40, 2), b"\x00\x02", false).unwrap(),
            Body::Ack {
                message_id: 2,
                reason_code: None,
                properties: vec![]
            }
        );
        // Version 5: a left-out reason code is success (sv-ether.pcap, port 37844).
        assert_eq!(
            body(&h(0x50, 2), b"\x00\x01", true).unwrap(),
            Body::Ack {
                message_id: 1,
                reason_code: Some(0),
                properties: vec![]
            }
        );
        // A lone DISCONNECT reason code is not read (sv-ether.pcap, port 37932).
        assert_eq!(
            body(&h(0xe0, 1), b"\x04", true).unwrap(),
            Body::Reason {
                reason_code: Some(0),
                properties: vec![]
            }
        );
        let sub = b"\x00\x01\x00\x11house/bulbs/bulb2\x01";
        assert_eq!(
            body(&h(0x82, sub.len()), sub, false).unwrap(),
            Body::Subscribe {
                message_id: 1,
                topics: vec![(b"house/bulbs/bulb2".to_vec(), 1)],
                properties: vec![]
            }
        );
        assert_eq!(body(&h(0x82, 3), b"\x00\x01\x00", false), Err(Malformed));
        assert_eq!(body(&h(0x00, 0), b"", false).unwrap(), Body::Unassigned);
        assert_eq!(body(&h(0xf0, 0), b"", false).unwrap(), Body::Unassigned);
    }

    proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(b in proptest::collection::vec(any::<u8>(), 0..200), v5: bool) {
            if let Header::Ok(h) = fixed_header(&b) {
                let end = (h.len + h.remaining).min(b.len());
                let _ = body(&h, &b[h.len..end], v5);
            }
        }
    }
}
