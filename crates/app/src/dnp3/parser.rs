//! DNP3 application fragments (IEEE 1815 clause 4.2.2): the application control and
//! function code, the internal indications of responses, then object headers
//! (group, variation, qualifier with its prefix and range codes) each followed by
//! its points. Points are located here and decoded when logged ([`super::log`]).

use super::objects::{layout, Layout};

/// One object header and where its points are in the fragment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Object {
    /// The object group.
    pub group: u8,
    /// The variation.
    pub variation: u8,
    /// The qualifier byte.
    pub qualifier: u8,
    /// The range's start (0 unless the range code gives one).
    pub start: u32,
    /// The range's stop.
    pub stop: u32,
    /// The number of points.
    pub count: u32,
    /// The points' bytes in the fragment, when the object type is decoded.
    pub points: Option<(usize, usize)>,
}

impl Object {
    /// The prefix code (bits 4 to 6 of the qualifier).
    pub fn prefix_code(&self) -> u8 {
        (self.qualifier >> 4) & 7
    }

    /// The range code (bits 0 to 3 of the qualifier).
    pub fn range_code(&self) -> u8 {
        self.qualifier & 0x0F
    }
}

/// A parsed application fragment.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Fragment {
    /// The application control byte (FIR, FIN, CON, UNS, sequence).
    pub control: u8,
    /// The function code.
    pub function: u8,
    /// The internal indications of a response (IIN1 in the high byte).
    pub iin: Option<u16>,
    /// The objects read, in order.
    pub objects: Vec<Object>,
    /// Whether every object was read.
    pub complete: bool,
    /// An object whose points could not be read (unknown type or too short).
    pub unknown_object: bool,
}

/// Little-endian unsigned value of `n` bytes at `at`.
pub(crate) fn le(b: &[u8], at: usize, n: usize) -> Option<u64> {
    let s = b.get(at..at.checked_add(n)?)?;
    Some(s.iter().rev().fold(0u64, |a, &x| (a << 8) | u64::from(x)))
}

/// Bytes of the prefix of each point for prefix code `p`.
pub fn prefix_len(p: u8) -> usize {
    match p {
        1 | 4 => 1,
        2 | 5 => 2,
        3 | 6 => 4,
        _ => 0,
    }
}

/// Parses a fragment; `response`: it carries internal indications. `None` when
/// the fragment is shorter than its header.
pub fn parse(b: &[u8], response: bool) -> Option<Fragment> {
    let head = if response { 4 } else { 2 };
    if b.len() < head {
        return None;
    }
    let mut f = Fragment {
        control: b[0],
        function: b[1],
        iin: response.then(|| u16::from_be_bytes([b[2], b[3]])),
        ..Default::default()
    };
    let mut at = head;
    while at < b.len() {
        let Some(next) = object(b, at, &mut f) else {
            return Some(f);
        };
        at = next;
    }
    f.complete = true;
    Some(f)
}

/// Reads the object at `at` into `f`; the offset after it, `None` when reading
/// stops there.
fn object(b: &[u8], at: usize, f: &mut Fragment) -> Option<usize> {
    let hdr = b.get(at..at + 3)?;
    let (group, variation, qualifier) = (hdr[0], hdr[1], hdr[2]);
    let mut at = at + 3;
    let (start, stop, count) = match qualifier & 0x0F {
        r @ 0..=5 => {
            let n = [1, 2, 4][usize::from(r % 3)];
            let start = le(b, at, n)?;
            let stop = le(b, at + n, n)?;
            at += 2 * n;
            let count = stop.checked_sub(start)?.checked_add(1)?;
            (start as u32, stop as u32, u32::try_from(count).ok()?)
        }
        6 => (0, 0, 0),
        r @ (7..=9 | 0x0B) => {
            let n = match r {
                7 | 0x0B => 1,
                8 => 2,
                _ => 4,
            };
            let count = le(b, at, n)?;
            at += n;
            (0, 0, count as u32)
        }
        _ => return None,
    };
    let mut o = Object {
        group,
        variation,
        qualifier,
        start,
        stop,
        count,
        points: None,
    };
    if count == 0 {
        f.objects.push(o);
        return Some(at);
    }
    let size = layout(group, variation).and_then(|l| points_len(l, &o, b, at));
    match size {
        Some(n) => {
            o.points = Some((at, n));
            f.objects.push(o);
            Some(at + n)
        }
        None => {
            f.objects.push(o);
            f.unknown_object = true;
            None
        }
    }
}

/// Bytes the points of `o` take at `at`, if they are all there.
fn points_len(l: Layout, o: &Object, b: &[u8], at: usize) -> Option<usize> {
    let count = usize::try_from(o.count).ok()?;
    let n = match l {
        Layout::Packed(..) => count.div_ceil(8),
        Layout::Fixed(fields) => {
            let point: usize =
                prefix_len(o.prefix_code()) + fields.iter().map(|f| f.size()).sum::<usize>();
            count.checked_mul(point)?
        }
    };
    (b.len().checked_sub(at)? >= n).then_some(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_and_responses() {
        // Read class 0.
        let f = parse(&[0xC0, 0x01, 60, 1, 0x06], false).unwrap();
        assert!(f.complete && !f.unknown_object && f.iin.is_none());
        assert_eq!(f.objects.len(), 1);
        assert_eq!((f.objects[0].range_code(), f.objects[0].count), (6, 0));
        // Response: IIN device_restart, g30v2 at index 5.
        let f = parse(
            &[0xC0, 0x81, 0x80, 0x00, 30, 2, 0x00, 5, 5, 0x01, 0x41, 0x01],
            true,
        )
        .unwrap();
        assert_eq!(f.iin, Some(0x8000));
        assert_eq!(f.objects[0].points, Some((9, 3)));
        assert!(f.complete);
        // Object data missing: an unknown object, incomplete.
        let f = parse(&[0xC0, 0x01, 30, 1, 0x01, 0, 0, 3, 0], false).unwrap();
        assert!(f.unknown_object && !f.complete);
        assert_eq!(f.objects.len(), 1);
        // A cut object header: incomplete, no event.
        let f = parse(&[0xC0, 0x01, 30, 1], false).unwrap();
        assert!(!f.unknown_object && !f.complete && f.objects.is_empty());
        // 16-bit index prefix, 16-bit count.
        let f = parse(&[0xC0, 0x06, 41, 2, 0x28, 1, 0, 7, 0, 0xd4, 0xfe, 0], false).unwrap();
        assert_eq!(f.objects[0].points, Some((7, 5)));
        assert!(parse(&[0xC0], false).is_none());
        assert!(parse(&[0xC0, 0x81, 0], true).is_none());
        // A range whose stop is below its start ends reading.
        assert!(
            !parse(&[0xC0, 0x81, 0, 0, 1, 2, 0x00, 5, 4], true)
                .unwrap()
                .complete
        );
    }
}
