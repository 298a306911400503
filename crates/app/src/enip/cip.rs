//! The CIP requests an ENIP message carries (for `cip_service`): SendRRData and
//! SendUnitData hold common packet format items, whose unconnected (0xB2) or connected
//! (0xB1, after its sequence count) data item is a CIP message: service, request path
//! (class, instance, attribute logical segments, 8 or 16 bits; ANSI symbols skipped),
//! request data. A Multiple Service Packet (0x0A) contributes its own service and each
//! request it embeds; Get_Attribute_List (0x03) and Set_Attribute_List (0x04) their
//! attribute lists. Responses (service bit 7) are not requests.
//!
//! `cip_service` with a class or an attribute matches as Suricata 7.0.10 does (found
//! by running it on hand-made requests): a class only on the attribute services
//! (Get/Set_Attribute_List, Get/Set_Attribute_Single), an attribute in the list of
//! Get/Set_Attribute_List; an attribute segment of the request path never matches by
//! its value (`cip_service:14,1,7` misses Get_Attribute_Single class 1 attribute 7),
//! but an 8-bit one makes the rule's attribute compare with the path's class on those
//! four services (`cip_service:16,2,2` matches Set_Attribute_Single class 2 attribute
//! 1, `14,16,16` a 16-bit class 16 with attribute 7; a 16-bit attribute segment does
//! neither).

/// One CIP request: its service, the class and attribute(s) it addresses.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CipService {
    /// Service code.
    pub service: u8,
    /// Class of the request path.
    pub class: Option<u32>,
    /// Attributes: the list of Get/Set_Attribute_List (the request path's attribute
    /// values are not kept: no rule matches them).
    pub attributes: Vec<u32>,
    /// The request path has an 8-bit attribute segment: the rule's attribute then
    /// compares with the class (Suricata 7.0.10, difftest case dt-3635822693-3042).
    pub path_attribute: bool,
}

/// Requests kept per message (embedded requests of a Multiple Service Packet included).
pub const MAX_SERVICES: usize = 32;
/// Attributes kept per request.
pub const MAX_ATTRIBUTES: usize = 32;

fn u16le(b: &[u8], at: usize) -> Option<u16> {
    b.get(at..at + 2).map(|x| u16::from_le_bytes([x[0], x[1]]))
}

/// The CIP requests of the data of a SendRRData (0x6F) or SendUnitData (0x70) message.
pub fn requests(command: u16, data: &[u8]) -> Vec<CipService> {
    let mut out = Vec::new();
    if !matches!(command, 0x6F | 0x70) {
        return out;
    }
    // Interface handle (4), timeout (2), item count (2), items.
    let Some(count) = u16le(data, 6) else {
        return out;
    };
    let mut at = 8;
    for _ in 0..count.min(16) {
        let (Some(kind), Some(len)) = (u16le(data, at), u16le(data, at + 2)) else {
            break;
        };
        let start = at + 4;
        let Some(item) = data.get(start..start + usize::from(len)) else {
            break;
        };
        match kind {
            0xB2 => message(item, &mut out, 0),
            0xB1 if item.len() > 2 => message(&item[2..], &mut out, 0),
            _ => {}
        }
        at = start + usize::from(len);
    }
    out
}

/// One CIP message (a request, or a response that is skipped) into `out`.
fn message(m: &[u8], out: &mut Vec<CipService>, depth: u8) {
    let (Some(&service), Some(&words)) = (m.first(), m.get(1)) else {
        return;
    };
    if service & 0x80 != 0 || out.len() >= MAX_SERVICES {
        return;
    }
    let path_end = 2 + 2 * usize::from(words);
    let Some(path) = m.get(2..path_end) else {
        return;
    };
    let mut s = CipService {
        service,
        ..CipService::default()
    };
    path_segments(path, &mut s);
    let body = &m[path_end..];
    match service {
        0x03 | 0x04 => {
            if let Some(n) = u16le(body, 0) {
                // Get_Attribute_List: the ids; Set_Attribute_List: read as ids too
                // (each id's value is not skipped, as Suricata reads the list).
                for i in 0..usize::from(n).min(MAX_ATTRIBUTES) {
                    match u16le(body, 2 + 2 * i) {
                        Some(a) => s.attributes.push(u32::from(a)),
                        None => break,
                    }
                }
            }
        }
        0x0A if depth == 0 => {
            // The packet's own entry carries no class (Suricata 7.0.10 matches
            // `cip_service:10` but not `cip_service:10,2` on a packet to the
            // Message Router).
            s.class = None;
            out.push(s);
            let n = usize::from(u16le(body, 0).unwrap_or(0));
            for i in 0..n.min(MAX_SERVICES) {
                let Some(off) = u16le(body, 2 + 2 * i) else {
                    break;
                };
                if let Some(inner) = body.get(usize::from(off)..) {
                    message(inner, out, depth + 1);
                }
            }
            return;
        }
        _ => {}
    }
    out.push(s);
}

/// The class and attribute of a request path's logical segments.
fn path_segments(mut p: &[u8], s: &mut CipService) {
    while let Some(&seg) = p.first() {
        let (value, len) = match seg {
            // Logical segments: 8-bit (type, value) or 16-bit (type, pad, value).
            0x20..=0x3F if seg & 0x03 == 0 => (p.get(1).map(|&v| u32::from(v)), 2),
            0x20..=0x3F if seg & 0x03 == 1 => (u16le(p, 2).map(u32::from), 4),
            // ANSI extended symbol: length, characters, padded to even.
            0x91 => {
                let n = usize::from(p.get(1).copied().unwrap_or(0));
                (None, 2 + n + n % 2)
            }
            _ => return,
        };
        match (seg & 0x1C, value) {
            (0x00, Some(v)) => s.class = Some(v),
            (0x10, Some(_)) if seg & 0x03 == 0 => s.path_attribute = true,
            _ => {}
        }
        match p.get(len..) {
            Some(rest) => p = rest,
            None => return,
        }
    }
}

impl CipService {
    /// Whether `cip_service:service[,class[,attribute]]` matches this request: a class
    /// only on the attribute services (0x03, 0x04, 0x0E, 0x10), an attribute in the
    /// list of Get/Set_Attribute_List (0x03, 0x04) or, on the four, equal to the class
    /// when the path has an 8-bit attribute segment, as Suricata 7.0.10.
    pub fn matches(&self, service: u64, class: Option<u64>, attribute: Option<u64>) -> bool {
        let attr_service = matches!(self.service, 0x03 | 0x04 | 0x0E | 0x10);
        let list_service = matches!(self.service, 0x03 | 0x04);
        let class_is = |c: u64| attr_service && self.class.map(u64::from) == Some(c);
        u64::from(self.service) == service
            && class.is_none_or(class_is)
            && attribute.is_none_or(|a| {
                (list_service && self.attributes.iter().any(|&x| u64::from(x) == a))
                    || (self.path_attribute && class_is(a))
            })
    }
}

/// Whether one of `list` matches a `cip_service` value: the service, then optionally
/// the class and the attribute, each an equality ([`rules::ast::IntCmp::Eq`]).
pub fn rule_matches(list: &[CipService], value: &[rules::ast::IntCmp]) -> bool {
    let eq = |i: usize| match value.get(i) {
        Some(rules::ast::IntCmp::Eq(v)) => Some(Some(*v)),
        None => Some(None),
        Some(_) => None,
    };
    let (Some(Some(service)), Some(class), Some(attribute)) = (eq(0), eq(1), eq(2)) else {
        return false;
    };
    list.iter().any(|s| s.matches(service, class, attribute))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SendRRData data around one unconnected CIP message.
    fn rr(cip: &[u8]) -> Vec<u8> {
        let mut d = vec![0, 0, 0, 0, 10, 0, 2, 0, 0, 0, 0, 0, 0xB2, 0];
        d.extend_from_slice(&(cip.len() as u16).to_le_bytes());
        d.extend_from_slice(cip);
        d
    }

    #[test]
    fn get_attribute_single_of_the_ics_capture() {
        // data/ics/enip/input.pcap: Get_Attribute_Single, class 1, instance 1, attr 7.
        let r = requests(0x6F, &rr(&[0x0E, 3, 0x20, 0x01, 0x24, 0x01, 0x30, 0x07]));
        assert_eq!(
            r,
            [CipService {
                service: 0x0E,
                class: Some(1),
                attributes: Vec::new(),
                path_attribute: true,
            }]
        );
        assert!(r[0].matches(14, None, None));
        assert!(r[0].matches(14, Some(1), None));
        // The path's attribute never matches (Suricata 7.0.10).
        assert!(!r[0].matches(14, Some(1), Some(7)));
        assert!(!r[0].matches(14, Some(2), None));
        // ... but an 8-bit attribute segment makes the attribute compare with the class.
        assert!(r[0].matches(14, Some(1), Some(1)));
        assert!(r[0].matches(14, None, Some(1)));
        // Get_Attribute_All (1): the service only, never a class.
        let all = requests(0x6F, &rr(&[0x01, 3, 0x20, 0x01, 0x24, 0x01, 0x30, 0x07]));
        assert!(all[0].matches(1, None, None));
        assert!(!all[0].matches(1, Some(1), None));
        assert!(!all[0].matches(1, Some(1), Some(7)));
        // A response is no request.
        assert!(requests(0x6F, &rr(&[0x8E, 0, 0, 0])).is_empty());
        assert!(requests(0x65, &rr(&[0x0E, 0])).is_empty());
    }

    #[test]
    fn lists_symbols_and_multiple_service_packets() {
        let list = requests(0x6F, &rr(&[0x03, 2, 0x20, 1, 0x24, 1, 2, 0, 1, 0, 7, 0]));
        assert_eq!(list[0].attributes, [1, 7]);
        assert!(list[0].matches(3, Some(1), Some(7)));
        assert!(!list[0].matches(3, Some(1), Some(2)));
        let wide = requests(0x6F, &rr(&[0x0E, 5, 0x21, 0, 0, 1, 0x24, 1, 0x31, 0, 5, 0]));
        assert_eq!(
            (wide[0].class, &wide[0].attributes[..]),
            (Some(256), &[][..])
        );
        let tag = requests(0x6F, &rr(&[0x4C, 3, 0x91, 3, b'T', b'a', b'g', 0, 1, 0]));
        assert_eq!((tag[0].service, tag[0].class), (0x4C, None));
        let mut msp = vec![0x0A, 2, 0x20, 2, 0x24, 1, 2, 0, 6, 0, 14, 0];
        msp.extend_from_slice(&[0x0E, 3, 0x20, 1, 0x24, 1, 0x30, 5]);
        msp.extend_from_slice(&[0x4C, 2, 0x91, 2, b'T', b'1', 1, 0]);
        let r = requests(0x6F, &rr(&msp));
        let services: Vec<u8> = r.iter().map(|s| s.service).collect();
        assert_eq!(services, [0x0A, 0x0E, 0x4C]);
        assert!(r[1].matches(14, Some(1), None));
        assert!(!r[0].matches(10, Some(2), None));
    }

    /// Found by running Suricata 7.0.10 on hand-made requests (difftest case
    /// dt-3635822693-3042 and its variations).
    #[test]
    fn a_path_attribute_compares_with_the_class() {
        // Set_Attribute_Single class 2 instance 1 attribute 1, data 1: `16,2,2` only.
        let set = requests(0x6F, &rr(&[0x10, 3, 0x20, 2, 0x24, 1, 0x30, 1, 1, 0]));
        assert!(set[0].matches(16, Some(2), Some(2)));
        assert!(!set[0].matches(16, Some(2), Some(1)));
        assert!(!set[0].matches(16, Some(2), Some(0)));
        // Without an attribute segment, no attribute matches.
        let no = requests(0x6F, &rr(&[0x10, 2, 0x20, 2, 0x24, 1, 1, 0]));
        assert!(no[0].matches(16, Some(2), None) && !no[0].matches(16, Some(2), Some(2)));
        // A 16-bit class: the same; a 16-bit attribute segment: nothing.
        let wide = requests(0x6F, &rr(&[0x0E, 4, 0x21, 0, 0x10, 0, 0x24, 1, 0x30, 7]));
        assert!(wide[0].matches(14, Some(16), Some(16)));
        let wide_attr = requests(0x6F, &rr(&[0x0E, 4, 0x20, 5, 0x24, 1, 0x31, 0, 7, 1]));
        assert!((0..300).all(|a| !wide_attr[0].matches(14, Some(5), Some(a))));
        // Get_Attribute_List: its list and the class.
        let list = requests(0x6F, &rr(&[0x03, 3, 0x20, 5, 0x24, 1, 0x30, 3, 1, 0, 7, 0]));
        assert!(list[0].matches(3, Some(5), Some(7)) && list[0].matches(3, Some(5), Some(5)));
        assert!(!list[0].matches(3, Some(5), Some(3)));
        // Not on Get_Attribute_All.
        let all = requests(0x6F, &rr(&[0x01, 3, 0x20, 5, 0x24, 1, 0x30, 3]));
        assert!(!all[0].matches(1, None, Some(5)));
    }

    #[test]
    fn hostile_lengths() {
        assert!(requests(0x6F, &[0; 7]).is_empty());
        assert!(requests(0x6F, &rr(&[0x0E, 200])).is_empty());
        let r = requests(0x6F, &rr(&[0x0E, 1, 0x21, 0]));
        assert_eq!(r[0].class, None);
        let r = requests(0x6F, &rr(&[0x0E, 1, 0x91, 0xff]));
        assert_eq!(r.len(), 1);
        let mut msp = vec![0x0A, 0, 0xff, 0xff];
        msp.extend(std::iter::repeat_n(0u8, 64));
        assert!(requests(0x6F, &rr(&msp)).len() <= MAX_SERVICES);
    }
}
