//! Bidirectional rules (`<>`): Suricata 7 loads one as two signatures, one per
//! direction, unless both sides are the same (addresses and ports, as `any <> any`); a
//! packet that matches both directions of such a pair alerts twice (see
//! tests/parity/cases/iponly-ipv6-both*).

use crate::sig::Sig;

/// Whether the packet matched both directions of a `<>` rule whose sides differ.
pub(crate) fn twice(s: &Sig, p: &wire::Packet) -> bool {
    s.bidir
        && (s.src != s.dst || s.sports != s.dports)
        && crate::detector::ends_ok(s, p, false)
        && crate::detector::ends_ok(s, p, true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{detector, packet};

    fn sig(rule: &str) -> Sig {
        detector(rule).sigs()[0].clone()
    }

    #[test]
    fn both_directions_of_different_sides() {
        // 10.0.0.1:1234 -> 10.0.0.2:80.
        let (p, _) = packet(17, b"x");
        assert!(twice(
            &sig("alert ip 10.0.0.0/8 any <> any any (sid:1;)"),
            &p
        ));
        assert!(!twice(&sig("alert ip any any <> any any (sid:1;)"), &p));
        assert!(!twice(
            &sig("alert ip 10.0.0.1 any <> any any (sid:1;)"),
            &p
        ));
        assert!(!twice(
            &sig("alert ip 10.0.0.0/8 any -> any any (sid:1;)"),
            &p
        ));
        assert!(!twice(&sig("alert udp any any <> any 80 (sid:1;)"), &p));
    }
}
