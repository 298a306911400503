//! Lists and intelligence: `dataset`, `datarep` (buffer matches, [`super::Match::List`])
//! and `iprep`, `geoip` (packet options, [`super::Opt::Intel`]).

/// What a dataset holds (`type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DatasetType {
    /// `string`: any bytes (base64 lines in the files).
    String,
    /// `md5`: 16 bytes (32 hex digits in the files and in the buffer).
    Md5,
    /// `sha256`: 32 bytes (64 hex digits).
    Sha256,
    /// `ipv4`: an IPv4 address.
    Ipv4,
    /// `ipv6`: an IPv6 (or IPv4) address.
    Ipv6,
}

impl DatasetType {
    /// From the word of `type <t>`.
    pub fn parse(s: &str) -> Option<DatasetType> {
        Some(match s {
            "string" => DatasetType::String,
            "md5" => DatasetType::Md5,
            "sha256" => DatasetType::Sha256,
            "ipv4" => DatasetType::Ipv4,
            "ip" | "ipv6" => DatasetType::Ipv6,
            _ => return None,
        })
    }

    /// The word as written in rules and configuration.
    pub fn name(self) -> &'static str {
        match self {
            DatasetType::String => "string",
            DatasetType::Md5 => "md5",
            DatasetType::Sha256 => "sha256",
            DatasetType::Ipv4 => "ipv4",
            DatasetType::Ipv6 => "ipv6",
        }
    }
}

/// The command of `dataset`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DatasetCmd {
    /// `isset`: the buffer is in the set.
    IsSet,
    /// `isnotset`: it is not.
    IsNotSet,
    /// `set`: add it; matches when it was not there yet.
    Set,
    /// `unset`: remove it; matches when it was there.
    Unset,
}

/// Options shared by `dataset` and `datarep` (`type`, `load`, `save`, `state`,
/// `memcap`, `hashsize`), as written.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SetSpec {
    /// Set name.
    pub name: String,
    /// `type` (required unless the configuration defines the set).
    pub kind: Option<DatasetType>,
    /// `load <file>`.
    pub load: Option<String>,
    /// `save <file>`.
    pub save: Option<String>,
    /// `state <file>` (load and save).
    pub state: Option<String>,
    /// `memcap <size>` in bytes.
    pub memcap: Option<u64>,
    /// `hashsize <n>`.
    pub hashsize: Option<u64>,
}

/// A comparison of a reputation value (`datarep`, `iprep`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RepOp {
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `=` / `==`
    Eq,
}

impl RepOp {
    /// From its text.
    pub fn parse(s: &str) -> Option<RepOp> {
        Some(match s {
            "<" => RepOp::Lt,
            "<=" => RepOp::Le,
            ">" => RepOp::Gt,
            ">=" => RepOp::Ge,
            "=" | "==" => RepOp::Eq,
            _ => return None,
        })
    }

    /// `have <op> want`.
    pub fn holds(self, have: u32, want: u32) -> bool {
        match self {
            RepOp::Lt => have < want,
            RepOp::Le => have <= want,
            RepOp::Gt => have > want,
            RepOp::Ge => have >= want,
            RepOp::Eq => have == want,
        }
    }
}

/// A buffer match against a named set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListMatch {
    /// `dataset:<cmd>,<name>[,options]`
    Dataset {
        /// Command.
        cmd: DatasetCmd,
        /// The set and its options.
        spec: SetSpec,
    },
    /// `datarep:<name>,<op>,<value>[,options]`
    Datarep {
        /// The set and its options.
        spec: SetSpec,
        /// Comparison.
        op: RepOp,
        /// Value compared with (0 to 65535).
        value: u16,
    },
}

impl ListMatch {
    /// The keyword's name.
    pub fn keyword(&self) -> &'static str {
        match self {
            ListMatch::Dataset { .. } => "dataset",
            ListMatch::Datarep { .. } => "datarep",
        }
    }
}

/// Which address(es) of the packet an `iprep`/`geoip` option looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IpSide {
    /// `src`
    Src,
    /// `dst`
    Dst,
    /// `both`: source and destination.
    Both,
    /// `any`: source or destination.
    Any,
}

impl IpSide {
    /// From its word: `src`, `dst`, `both`, `any`.
    pub fn parse(s: &str) -> Option<IpSide> {
        Some(match s {
            "src" => IpSide::Src,
            "dst" => IpSide::Dst,
            "both" => IpSide::Both,
            "any" => IpSide::Any,
            _ => return None,
        })
    }
}

/// A packet option on the packet's addresses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IntelOpt {
    /// `iprep:<side>,<category>,<op>,<value>`
    Iprep {
        /// Which address.
        side: IpSide,
        /// Category short name (from `reputation-categories-file`).
        category: String,
        /// Comparison.
        op: RepOp,
        /// Value (0 to 127).
        value: u8,
    },
    /// `geoip:<side>,<country>[,<country>...]` (`!` before a country negates the list).
    Geoip {
        /// Which address.
        side: IpSide,
        /// ISO country codes, upper case.
        countries: Vec<String>,
        /// `!`: the country is not one of them.
        negated: bool,
    },
}

impl std::fmt::Display for RepOp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            RepOp::Lt => "<",
            RepOp::Le => "<=",
            RepOp::Gt => ">",
            RepOp::Ge => ">=",
            RepOp::Eq => "=",
        })
    }
}

impl SetSpec {
    fn write_options(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(k) = self.kind {
            write!(f, ", type {}", k.name())?;
        }
        for (k, v) in [
            ("load", &self.load),
            ("save", &self.save),
            ("state", &self.state),
        ] {
            if let Some(v) = v {
                write!(f, ", {k} {v}")?;
            }
        }
        if let Some(m) = self.memcap {
            write!(f, ", memcap {m}")?;
        }
        if let Some(h) = self.hashsize {
            write!(f, ", hashsize {h}")?;
        }
        Ok(())
    }
}

/// The keyword as a rule writes it (`dataset:isset,name, type string;`).
impl std::fmt::Display for ListMatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ListMatch::Dataset { cmd, spec } => {
                let c = match cmd {
                    DatasetCmd::IsSet => "isset",
                    DatasetCmd::IsNotSet => "isnotset",
                    DatasetCmd::Set => "set",
                    DatasetCmd::Unset => "unset",
                };
                write!(f, "dataset:{c},{}", spec.name)?;
                spec.write_options(f)?;
            }
            ListMatch::Datarep { spec, op, value } => {
                write!(f, "datarep:{},{op},{value}", spec.name)?;
                spec.write_options(f)?;
            }
        }
        f.write_str(";")
    }
}

impl IpSide {
    /// Its word.
    pub fn name(self) -> &'static str {
        match self {
            IpSide::Src => "src",
            IpSide::Dst => "dst",
            IpSide::Both => "both",
            IpSide::Any => "any",
        }
    }
}

/// The keyword as a rule writes it (`iprep:src,Bad,>,30;`).
impl std::fmt::Display for IntelOpt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            IntelOpt::Iprep {
                side,
                category,
                op,
                value,
            } => write!(f, "iprep:{},{category},{op},{value};", side.name()),
            IntelOpt::Geoip {
                side,
                countries,
                negated,
            } => {
                write!(f, "geoip:{},", side.name())?;
                if *negated {
                    f.write_str("!")?;
                }
                write!(f, "{};", countries.join(","))
            }
        }
    }
}

impl IntelOpt {
    /// The keyword's name.
    pub fn keyword(&self) -> &'static str {
        match self {
            IntelOpt::Iprep { .. } => "iprep",
            IntelOpt::Geoip { .. } => "geoip",
        }
    }
}

/// `10mb`, `512kb`, `1gb`, `4096`: a size in bytes.
pub fn parse_size(s: &str) -> Option<u64> {
    let s = s.trim().to_ascii_lowercase();
    let (num, mult) = if let Some(n) = s.strip_suffix("kb").or_else(|| s.strip_suffix("kib")) {
        (n, 1u64 << 10)
    } else if let Some(n) = s.strip_suffix("mb").or_else(|| s.strip_suffix("mib")) {
        (n, 1 << 20)
    } else if let Some(n) = s.strip_suffix("gb").or_else(|| s.strip_suffix("gib")) {
        (n, 1 << 30)
    } else {
        (s.as_str(), 1)
    };
    num.trim().parse::<u64>().ok()?.checked_mul(mult)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_operators() {
        assert_eq!(parse_size("10mb"), Some(10 << 20));
        assert_eq!(parse_size("4096"), Some(4096));
        assert_eq!(parse_size("2 kb"), Some(2048));
        assert_eq!(parse_size("x"), None);
        assert!(RepOp::parse(">=").unwrap().holds(5, 5));
        assert!(!RepOp::parse("<").unwrap().holds(5, 5));
        assert_eq!(RepOp::parse("=="), Some(RepOp::Eq));
        assert_eq!(DatasetType::parse("md5"), Some(DatasetType::Md5));
        assert_eq!(IpSide::parse("any"), Some(IpSide::Any));
    }
}
