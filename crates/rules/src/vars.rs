//! Address and port variables (`vars.address-groups`, `vars.port-groups`).

use std::collections::HashMap;

/// Variable definitions, stored as written (resolved on use).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Vars {
    addresses: HashMap<String, String>,
    ports: HashMap<String, String>,
}

/// Suricata 7's default address groups (see `default-config.dump`).
const DEFAULT_ADDRESSES: &[(&str, &str)] = &[
    ("HOME_NET", "[192.168.0.0/16,10.0.0.0/8,172.16.0.0/12]"),
    ("EXTERNAL_NET", "!$HOME_NET"),
    ("HTTP_SERVERS", "$HOME_NET"),
    ("SMTP_SERVERS", "$HOME_NET"),
    ("SQL_SERVERS", "$HOME_NET"),
    ("DNS_SERVERS", "$HOME_NET"),
    ("TELNET_SERVERS", "$HOME_NET"),
    ("AIM_SERVERS", "$EXTERNAL_NET"),
    ("DC_SERVERS", "$HOME_NET"),
    ("DNP3_SERVER", "$HOME_NET"),
    ("DNP3_CLIENT", "$HOME_NET"),
    ("MODBUS_CLIENT", "$HOME_NET"),
    ("MODBUS_SERVER", "$HOME_NET"),
    ("ENIP_CLIENT", "$HOME_NET"),
    ("ENIP_SERVER", "$HOME_NET"),
];

/// Suricata 7's default port groups.
const DEFAULT_PORTS: &[(&str, &str)] = &[
    ("HTTP_PORTS", "80"),
    ("SHELLCODE_PORTS", "!80"),
    ("ORACLE_PORTS", "1521"),
    ("SSH_PORTS", "22"),
    ("DNP3_PORTS", "20000"),
    ("MODBUS_PORTS", "502"),
    ("FILE_DATA_PORTS", "[$HTTP_PORTS,110,143]"),
    ("FTP_PORTS", "21"),
    ("GENEVE_PORTS", "6081"),
    ("VXLAN_PORTS", "4789"),
    ("TEREDO_PORTS", "3544"),
];

impl Vars {
    /// The variables Suricata 7 defines in its default configuration.
    pub fn suricata_default() -> Self {
        let mut v = Vars::default();
        for (k, x) in DEFAULT_ADDRESSES {
            v.set_address(k, x);
        }
        for (k, x) in DEFAULT_PORTS {
            v.set_port(k, x);
        }
        v
    }

    /// Defines (or replaces) an address variable.
    pub fn set_address(&mut self, name: &str, value: &str) {
        self.addresses.insert(name.to_owned(), value.to_owned());
    }

    /// Defines (or replaces) a port variable.
    pub fn set_port(&mut self, name: &str, value: &str) {
        self.ports.insert(name.to_owned(), value.to_owned());
    }

    /// Value of an address variable.
    pub fn address(&self, name: &str) -> Option<&str> {
        self.addresses.get(name).map(String::as_str)
    }

    /// Value of a port variable.
    pub fn port(&self, name: &str) -> Option<&str> {
        self.ports.get(name).map(String::as_str)
    }

    /// Address variable names.
    pub fn address_names(&self) -> impl Iterator<Item = &str> {
        self.addresses.keys().map(String::as_str)
    }

    /// Port variable names.
    pub fn port_names(&self) -> impl Iterator<Item = &str> {
        self.ports.keys().map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_match_suricata() {
        let v = Vars::suricata_default();
        assert_eq!(v.address("EXTERNAL_NET"), Some("!$HOME_NET"));
        assert_eq!(v.port("HTTP_PORTS"), Some("80"));
        assert_eq!(v.address_names().count(), 15);
        assert_eq!(v.port_names().count(), 11);
        assert_eq!(v.address("NOPE"), None);
    }

    #[test]
    fn defaults_match_the_dump() {
        let p = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../../shared/corpus/default-config.dump"
        );
        let Ok(text) = std::fs::read_to_string(p) else {
            assert!(
                std::env::var("OSPREY_REQUIRE_DATA").as_deref() != Ok("1"),
                "missing {p}"
            );
            eprintln!("skip: {p} not found");
            return;
        };
        let v = Vars::suricata_default();
        let mut n = 0;
        for line in text.lines() {
            let Some((k, val)) = line.split_once(" = ") else {
                continue;
            };
            if let Some(name) = k.strip_prefix("vars.address-groups.") {
                assert_eq!(v.address(name), Some(val), "{name}");
                n += 1;
            } else if let Some(name) = k.strip_prefix("vars.port-groups.") {
                assert_eq!(v.port(name), Some(val), "{name}");
                n += 1;
            }
        }
        assert_eq!(n, 26);
    }
}
