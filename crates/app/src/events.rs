//! Application-layer events: the anomalies a protocol's parser met on a flow, named as
//! Suricata names them for `app-layer-event` (`http.request_field_too_long`,
//! `dns.malformed_data`, ...). Each protocol lists its event names in its registry line
//! ([`crate::registry::ProtocolDef::events`]) and keeps the ones raised in an [`Events`]
//! set, reported through [`crate::Protocol::events`].

/// A set of events raised on one flow: bit `i` for the `i`-th name of the protocol's
/// event table. At most 64 events per protocol.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Events(u64);

impl Events {
    /// Records event `i` of the protocol's table (indices past 63 are ignored).
    #[inline]
    pub fn raise(&mut self, i: usize) {
        if i < 64 {
            self.0 |= 1 << i;
        }
    }

    /// Whether event `i` was raised.
    #[inline]
    pub fn has(self, i: usize) -> bool {
        i < 64 && self.0 & (1 << i) != 0
    }

    /// Whether no event was raised.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Calls `f` with the name of each raised event, in table order.
    pub fn each(self, names: &'static [&'static str], f: &mut dyn FnMut(&'static str)) {
        for (i, name) in names.iter().enumerate() {
            if self.has(i) {
                f(name);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raised_events_are_named_in_table_order() {
        const NAMES: &[&str] = &["a.one", "a.two", "a.three"];
        let mut e = Events::default();
        assert!(e.is_empty());
        e.raise(2);
        e.raise(0);
        e.raise(70);
        let mut got = Vec::new();
        e.each(NAMES, &mut |n| got.push(n));
        assert_eq!(got, ["a.one", "a.three"]);
        assert!(e.has(2) && !e.has(1) && !e.has(70));
    }
}
