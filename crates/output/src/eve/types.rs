//! Which EVE event types are written: suricata.yaml's `outputs: - eve-log: types: [...]`
//! and `--eve-types alert,http,dns,tls`.

/// The EVE event types enabled for a run. Alerts are always written (a configuration may
/// add event types, never remove alerts).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EveTypes {
    /// `http` records (one per transaction).
    pub http: bool,
    /// `http: extended: yes`: method, protocol, status, length, referer, redirect.
    pub http_extended: bool,
    /// `dns` records (v2: one `query` record per question, one `answer` per response).
    pub dns: bool,
    /// `tls` records (one per session).
    pub tls: bool,
    /// `tls: extended: yes`: SNI and version too.
    pub tls_extended: bool,
}

impl EveTypes {
    /// Whether any application-layer record type is on.
    pub fn any_app(&self) -> bool {
        self.http || self.dns || self.tls
    }

    /// Whether records of `event_type` (a protocol's EVE event type) are on, and if so
    /// whether with the extended fields.
    pub fn get(&self, event_type: &str) -> Option<bool> {
        match event_type {
            "http" => self.http.then_some(self.http_extended),
            "dns" => self.dns.then_some(false),
            "tls" => self.tls.then_some(self.tls_extended),
            _ => None,
        }
    }

    /// Parses a comma-separated list (`alert,http,dns,tls`). `http-extended` and
    /// `tls-extended` turn on the extended fields; `alert` is accepted and always on.
    pub fn parse_list(list: &str) -> Result<EveTypes, String> {
        let mut t = EveTypes::default();
        for name in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            if !t.enable(name, false) {
                return Err(format!("unknown EVE event type `{name}`"));
            }
        }
        Ok(t)
    }

    /// Turns on the type `name` (`extended` for the extended fields); false for a type
    /// Osprey does not write (the caller reports it). `alert` is always on.
    pub fn enable(&mut self, name: &str, extended: bool) -> bool {
        match name {
            "alert" => {}
            "http" => {
                self.http = true;
                self.http_extended |= extended;
            }
            "http-extended" => {
                self.http = true;
                self.http_extended = true;
            }
            "dns" => self.dns = true,
            "tls" => {
                self.tls = true;
                self.tls_extended |= extended;
            }
            "tls-extended" => {
                self.tls = true;
                self.tls_extended = true;
            }
            _ => return false,
        }
        true
    }

    /// Adds every type of `other`.
    pub fn merge(&mut self, other: EveTypes) {
        self.http |= other.http;
        self.http_extended |= other.http_extended;
        self.dns |= other.dns;
        self.tls |= other.tls;
        self.tls_extended |= other.tls_extended;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_lists() {
        let t = EveTypes::parse_list("alert, http,dns").unwrap();
        assert!(t.http && t.dns && !t.tls && !t.http_extended);
        assert!(t.any_app());
        assert!(!EveTypes::parse_list("alert").unwrap().any_app());
        let t = EveTypes::parse_list("http-extended,tls-extended").unwrap();
        assert!(t.http && t.http_extended && t.tls && t.tls_extended);
        assert!(EveTypes::parse_list("alert,smb").is_err());
        let mut a = EveTypes::parse_list("dns").unwrap();
        a.merge(EveTypes::parse_list("tls").unwrap());
        assert!(a.dns && a.tls);
        assert_eq!(a.get("dns"), Some(false));
        assert_eq!(a.get("http"), None);
        let t = EveTypes::parse_list("http-extended,tls").unwrap();
        assert_eq!((t.get("http"), t.get("tls")), (Some(true), Some(false)));
    }
}
