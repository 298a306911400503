//! Which EVE event types are written: suricata.yaml's `outputs: - eve-log: types: [...]`
//! and `--eve-types alert,http,dns,tls`. The application-layer types are those the
//! protocols of the app layer's registry log ([`app::registry::event_types`]), so a new
//! protocol's records need no change here.

/// The EVE event types enabled for a run. Alerts are always written (a configuration may
/// add event types, never remove alerts).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EveTypes {
    /// Enabled app-layer types: bit `i` for the protocol at position `i` of the registry
    /// ([`app::registry::index`]).
    on: u64,
    /// Of those, the ones with the extended fields (`http: extended: yes`).
    extended: u64,
    /// Enabled engine types ([`ENGINE_TYPES`]): bit `i` for the `i`-th name.
    engine: u8,
}

/// The EVE event types the engine writes itself (not a protocol's transactions):
/// `flow` and `netflow` when a flow ends, `anomaly` for decoder, stream and app-layer
/// events, `stats` at the stats interval, `drop` for packets dropped inline, `fileinfo`
/// for the files transactions carried (turned on by the `files` type).
pub const ENGINE_TYPES: &[&str] = &["flow", "netflow", "anomaly", "stats", "drop", "fileinfo"];

/// The bit of engine type `name`.
fn engine_bit(name: &str) -> Option<u8> {
    ENGINE_TYPES.iter().position(|&t| t == name).map(|i| 1 << i)
}

/// The bits of the protocols whose records `name` turns on (`http2`: HTTP/2's, written
/// as `http` events) and whether they have extended fields, if any.
fn bit(name: &str) -> Option<(u64, bool)> {
    app::registry::event_type_mask(name)
}

impl EveTypes {
    /// Whether any application-layer record type is on.
    pub fn any_app(&self) -> bool {
        self.on != 0
    }

    /// Whether the engine type `event_type` ([`ENGINE_TYPES`]: `flow`, `anomaly`, ...)
    /// is on.
    pub fn engine(&self, event_type: &str) -> bool {
        engine_bit(event_type).is_some_and(|b| self.engine & b != 0)
    }

    /// Whether records of `event_type` (a protocol's EVE event type) are on, and if so
    /// whether with the extended fields. Engine types ([`ENGINE_TYPES`]) answer
    /// `Some(false)` when on.
    pub fn get(&self, event_type: &str) -> Option<bool> {
        if let Some(b) = engine_bit(event_type) {
            return (self.engine & b != 0).then_some(false);
        }
        // A record type no configuration name turns on by itself (`ftp_data`, which
        // `ftp` turns on): its protocol's bit.
        let b = match bit(event_type) {
            Some((b, _)) => b,
            None => 1u64.checked_shl(app::registry::event_type_index(event_type)?.0 as u32)?,
        };
        (self.on & b != 0).then_some(self.extended & b != 0)
    }

    /// [`get`](Self::get) for the protocol at registry position `index`
    /// ([`app::registry::index`]): what the logger asks on every packet, without names.
    #[inline]
    pub fn get_index(&self, index: usize) -> Option<bool> {
        let b = 1u64.checked_shl(index as u32)?;
        (self.on & b != 0).then_some(self.extended & b != 0)
    }

    /// Parses a comma-separated list (`alert,http,dns,tls`). `<type>-extended`
    /// (`http-extended`, `tls-extended`) turns on the extended fields; `alert` is
    /// accepted and always on.
    pub fn parse_list(list: &str) -> Result<EveTypes, String> {
        let mut t = EveTypes::default();
        for name in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            if !t.enable(name, false) {
                return Err(format!("unknown EVE event type `{name}`"));
            }
        }
        Ok(t)
    }

    /// Turns on the type `name` (`extended` for the extended fields; `<type>-extended`
    /// names them too, for the types that have them); false for a type Osprey does not
    /// write (the caller reports it). `alert` is always on.
    pub fn enable(&mut self, name: &str, extended: bool) -> bool {
        if name == "alert" {
            return true;
        }
        // The `files` output writes `fileinfo` records.
        let name = if name == "files" { "fileinfo" } else { name };
        if let Some(b) = engine_bit(name) {
            self.engine |= b;
            return true;
        }
        let (name, suffixed) = match name.strip_suffix("-extended") {
            Some(base) => (base, true),
            None => (name, false),
        };
        let Some((b, has_extended)) = bit(name) else {
            return false;
        };
        if suffixed && !has_extended {
            return false;
        }
        self.on |= b;
        if has_extended && (extended || suffixed) {
            self.extended |= b;
        }
        true
    }

    /// Adds every type of `other`.
    pub fn merge(&mut self, other: EveTypes) {
        self.on |= other.on;
        self.extended |= other.extended;
        self.engine |= other.engine;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_lists() {
        let t = EveTypes::parse_list("alert, http,dns").unwrap();
        assert_eq!(t.get("http"), Some(false));
        assert_eq!(t.get("dns"), Some(false));
        assert_eq!(t.get("tls"), None);
        assert!(t.any_app());
        assert!(!EveTypes::parse_list("alert").unwrap().any_app());
        let t = EveTypes::parse_list("http-extended,tls-extended").unwrap();
        assert_eq!((t.get("http"), t.get("tls")), (Some(true), Some(true)));
        assert!(EveTypes::parse_list("alert,pgsql").is_err());
        assert!(EveTypes::parse_list("alert,dnp3").is_ok());
        assert!(EveTypes::parse_list("dns-extended").is_err());
        let mut d = EveTypes::default();
        assert!(d.enable("dns", true));
        assert_eq!(d.get("dns"), Some(false));
        let mut a = EveTypes::parse_list("dns").unwrap();
        a.merge(EveTypes::parse_list("tls").unwrap());
        assert!(a.get("dns").is_some() && a.get("tls").is_some());
        assert_eq!(a.get("dns"), Some(false));
        assert_eq!(a.get("http"), None);
        let t = EveTypes::parse_list("http-extended,tls").unwrap();
        assert_eq!((t.get("http"), t.get("tls")), (Some(true), Some(false)));
        let t = EveTypes::parse_list("files").unwrap();
        assert!(t.engine("fileinfo") && t.get("fileinfo") == Some(false) && !t.any_app());
    }

    #[test]
    fn engine_types_are_separate_from_app_types() {
        let t = EveTypes::parse_list("flow,anomaly").unwrap();
        assert!(t.engine("flow") && t.engine("anomaly") && !t.engine("netflow"));
        assert_eq!(t.get("flow"), Some(false));
        assert_eq!(t.get("stats"), None);
        assert!(!t.any_app());
        let mut u = EveTypes::parse_list("http").unwrap();
        u.merge(t);
        assert!(u.engine("flow") && u.get("http").is_some());
        assert!(EveTypes::parse_list("flow-extended").is_err());
    }

    #[test]
    fn http2_records_have_their_own_switch() {
        // As in Suricata: `- http2` logs HTTP/2 transactions (as `http` events),
        // `- http` only HTTP/1.
        let h1 = app::registry::index(app::AppProto::Http).unwrap();
        let h2 = app::registry::index(app::AppProto::Http2).unwrap();
        let t = EveTypes::parse_list("http").unwrap();
        assert_eq!((t.get_index(h1), t.get_index(h2)), (Some(false), None));
        let t = EveTypes::parse_list("http2").unwrap();
        assert_eq!((t.get_index(h1), t.get_index(h2)), (None, Some(false)));
        assert!(EveTypes::parse_list("http2-extended").is_err());
    }

    #[test]
    fn knows_every_registered_type() {
        for name in app::registry::event_types() {
            let t = EveTypes::parse_list(name).unwrap();
            assert_eq!(t.get(name), Some(false), "{name}");
        }
        for d in app::registry::protocols() {
            let i = app::registry::index(d.proto).unwrap();
            let name = app::registry::config_type(d);
            let t = EveTypes::parse_list(name.unwrap_or("alert")).unwrap();
            assert_eq!(t.get_index(i), d.eve.map(|_| false), "{:?}", d.proto);
        }
    }
}
