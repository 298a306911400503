//! The keyword registry: every rule option Osprey knows, by family, with its value
//! grammar, whether it may appear once, what it is (sticky buffer, content modifier,
//! transform, option ...), the application protocols it needs and the function that
//! parses its value into the typed [`Rule`](crate::Rule).
//!
//! The parser looks keywords up here; `--list-keywords` lists [`all`]. Adding a keyword
//! is one entry in the file of its family (or protocol) and, for a new family, one line
//! in [`TABLES`].
//!
//! ```
//! let content = rules::keywords::find("content").unwrap();
//! assert_eq!(content.value, rules::keywords::Value::Required);
//! assert!(rules::keywords::all().any(|k| k.name == "http.uri"));
//! ```

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::ast::{AppProto, Opt};
use crate::buffers::Buffer;
use crate::diag::Reason;
use crate::lexer::RawOption;
use crate::parser::state::{need_value, no_value, quoted, State, Sticky};

/// Records the error of a value parser (`Err(message)`) at the value and returns.
macro_rules! tryv {
    ($st:expr, $o:expr, $kw:expr, $e:expr) => {
        match $e {
            Ok(x) => x,
            Err(msg) => {
                $st.err($o.value_off, Reason::InvalidValue, $kw, msg);
                return;
            }
        }
    };
}

mod apps;
mod bytes;
mod dcerpc;
mod dhcp;
mod dns;
mod enip;
mod lua;
pub use lua::LuaScript;
mod file;
mod flow;
mod ftp;
mod header;
mod http;
mod http2;
pub use dnp3::INDICATIONS as DNP3_INDICATIONS;
pub use http2::settings_value as http2_settings;
pub use http2::{
    ERROR_CODES as HTTP2_ERROR_CODES, FRAME_TYPES as HTTP2_FRAME_TYPES, SETTINGS as HTTP2_SETTINGS,
};
mod dnp3;
mod ike;
mod krb5;
mod lists;
mod meta;
mod modbus;
mod mqtt;
mod nfs;
mod payload;
pub(crate) mod pcre;
mod rfb;
mod snmp;
mod snort;
mod ssh;
mod sticky_docs;
mod tls;
mod transform;

/// Where the documentation pages of [`Keyword::doc`] are: Suricata's, whose rule
/// language Osprey reads.
pub const DOCS_BASE: &str = "https://docs.suricata.io/en/suricata-7.0.10/";

/// What a keyword's value looks like.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Value {
    /// No value (`nocase;`).
    None,
    /// A value is required (`sid:1;`).
    Required,
    /// A quoted string is required (`msg:"...";`).
    Quoted,
    /// A value may follow (`fast_pattern;`, `fast_pattern:only;`).
    Optional,
}

/// What a keyword does in a rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Rule metadata (`msg`, `sid`, `classtype` ...).
    Meta,
    /// A match appended to the current buffer (`content`, `pcre`, `byte_test` ...).
    Match,
    /// Modifies the preceding `content` (`nocase`, `depth`, `fast_pattern` ...).
    ContentModifier,
    /// Snort-style modifier moving the preceding `content` to a buffer (`http_uri`).
    BufferModifier(Buffer),
    /// Selects the buffer the following matches inspect (`http.uri`, `pkt_data`).
    StickyBuffer(Buffer),
    /// Transforms the current sticky buffer (`to_lowercase`, `xor` ...).
    Transform,
    /// A packet, flow or protocol option outside the buffers (`flow`, `dsize` ...).
    Option,
    /// Recognised and kept as written ([`Opt::Keyword`]) for the detection engine.
    Verbatim,
}

/// The arguments of a keyword's parse function.
#[derive(Clone, Copy)]
pub(crate) struct Ctx<'a> {
    /// The definition found.
    pub def: &'static Keyword,
    /// The keyword as written (lowercased): the name or an alias.
    pub kw: &'a str,
    /// The option with its offsets.
    pub o: &'a RawOption<'a>,
    /// The value, checked against [`Keyword::value`] (unquoted for [`Value::Quoted`];
    /// empty for [`Value::None`] and [`Value::Optional`]: read `o.value`).
    pub val: &'a str,
}

/// A keyword's parse function: records into the rule state, diagnostics included.
pub(crate) type Parse = fn(&mut State, &Ctx<'_>);

/// One keyword definition.
#[derive(Clone, Copy)]
pub struct Keyword {
    /// Canonical name.
    pub name: &'static str,
    /// Other names that parse the same way.
    pub aliases: &'static [&'static str],
    /// Value grammar.
    pub value: Value,
    /// At most once per rule (or per content, for content modifiers). Enforced by the
    /// keyword's parse function, each with its own message (a test checks that every
    /// keyword marked once refuses a second use).
    pub once: bool,
    /// What it is.
    pub kind: Kind,
    /// Application protocols it needs (empty: any). The parser checks them for sticky
    /// buffers (`app_proto_check`); for other keywords they are informational.
    pub protos: &'static [AppProto],
    /// One line saying what it does (`--list-keywords`).
    pub description: &'static str,
    /// Its documentation page, relative to [`DOCS_BASE`] (see [`Keyword::doc_url`]).
    pub doc: &'static str,
    /// Parses the value into the rule.
    pub(crate) parse: Parse,
    /// True when `parse` checks the value grammar itself (its diagnostics come in an
    /// order of their own), false when the registry checks it first.
    pub(crate) own_check: bool,
}

impl std::fmt::Debug for Keyword {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Keyword")
            .field("name", &self.name)
            .field("aliases", &self.aliases)
            .field("value", &self.value)
            .field("once", &self.once)
            .field("kind", &self.kind)
            .field("protos", &self.protos)
            .field("description", &self.description)
            .field("doc", &self.doc)
            .finish()
    }
}

impl Keyword {
    /// A definition with no aliases, allowed many times, needing no protocol.
    pub(crate) const fn new(name: &'static str, value: Value, kind: Kind, parse: Parse) -> Self {
        Keyword {
            name,
            aliases: &[],
            value,
            once: false,
            kind,
            protos: &[],
            description: "",
            doc: "",
            parse,
            own_check: false,
        }
    }

    /// With its description and documentation page (relative to [`DOCS_BASE`]).
    pub(crate) const fn about(mut self, description: &'static str, doc: &'static str) -> Self {
        self.description = description;
        self.doc = doc;
        self
    }

    /// The full address of its documentation.
    pub fn doc_url(&self) -> String {
        format!("{DOCS_BASE}{}", self.doc)
    }

    /// Suricata's feature words for it: `No option` (takes no value), `sticky buffer`,
    /// `content modifier`, `transform`; empty for none.
    pub fn features(&self) -> Vec<&'static str> {
        let mut f = Vec::new();
        if self.value == Value::None {
            f.push("No option");
        }
        match self.kind {
            Kind::StickyBuffer(_) => f.push("sticky buffer"),
            Kind::ContentModifier | Kind::BufferModifier(_) => f.push("content modifier"),
            Kind::Transform => f.push("transform"),
            _ => {}
        }
        f
    }

    /// With aliases.
    pub(crate) const fn aliases(mut self, aliases: &'static [&'static str]) -> Self {
        self.aliases = aliases;
        self
    }

    /// Allowed once.
    pub(crate) const fn once(mut self) -> Self {
        self.once = true;
        self
    }

    /// Needing one of these protocols.
    pub(crate) const fn protos(mut self, protos: &'static [AppProto]) -> Self {
        self.protos = protos;
        self
    }

    /// `parse` checks the value grammar itself.
    pub(crate) const fn own_check(mut self) -> Self {
        self.own_check = true;
        self
    }

    /// Every name it answers to, canonical first.
    pub fn names(&self) -> impl Iterator<Item = &'static str> {
        std::iter::once(self.name).chain(self.aliases.iter().copied())
    }
}

/// A keyword kept verbatim ([`Opt::Keyword`]), value optional.
pub(crate) const fn verbatim(name: &'static str) -> Keyword {
    Keyword::new(name, Value::Optional, Kind::Verbatim, keep_verbatim)
}

fn keep_verbatim(st: &mut State, c: &Ctx<'_>) {
    st.options.push(Opt::Keyword {
        name: c.def.name,
        value: c.o.value.map(str::to_owned),
    });
}

/// Adds the transaction option ([`Opt::App`]) of the keyword being parsed, for the
/// protocols its definition names.
pub(crate) fn push_app(st: &mut State, c: &Ctx<'_>, negated: bool, value: crate::ast::AppValue) {
    st.options.push(Opt::App(crate::ast::AppOpt {
        name: c.def.name,
        protos: c.def.protos,
        negated,
        value,
    }));
}

/// The sticky buffers of one family with the protocols they need.
pub(crate) type Stickies = &'static [(&'static [Buffer], &'static [AppProto])];

/// The families: their static keywords and their sticky buffers.
const TABLES: &[(&[Keyword], Stickies)] = &[
    (meta::KEYWORDS, &[]),
    (payload::KEYWORDS, payload::STICKY),
    (pcre::KEYWORDS, &[]),
    (bytes::KEYWORDS, &[]),
    (transform::KEYWORDS, &[]),
    (flow::KEYWORDS, &[]),
    (header::KEYWORDS, header::STICKY),
    (http::KEYWORDS, http::STICKY),
    (file::KEYWORDS, file::STICKY),
    (dns::KEYWORDS, dns::STICKY),
    (tls::KEYWORDS, tls::STICKY),
    (apps::KEYWORDS, apps::STICKY),
    (snort::KEYWORDS, &[]),
    (dcerpc::KEYWORDS, &[]),
    (nfs::KEYWORDS, nfs::STICKY),
    (ssh::KEYWORDS, ssh::STICKY),
    (krb5::KEYWORDS, krb5::STICKY),
    (snmp::KEYWORDS, snmp::STICKY),
    (dhcp::KEYWORDS, dhcp::STICKY),
    (ftp::KEYWORDS, &[]),
    (mqtt::KEYWORDS, mqtt::STICKY),
    (http2::KEYWORDS, http2::STICKY),
    (ike::KEYWORDS, ike::STICKY),
    (modbus::KEYWORDS, modbus::STICKY),
    (enip::KEYWORDS, enip::STICKY),
    (lists::KEYWORDS, &[]),
    (rfb::KEYWORDS, rfb::STICKY),
    (lua::KEYWORDS, &[]),
    (dnp3::KEYWORDS, dnp3::STICKY),
];

/// Sticky buffer names Suricata also registers as value keywords: with a value they
/// are kept verbatim ([`Opt::Keyword`]), except `filename` (typed by `file`).
const STICKY_OR_VERBATIM: &[&str] = &[
    "filename",
    "ja4.hash",
    "tls.cert_chain_len",
    "quic.version",
    "sip.method",
    "http.response_header",
    "icmpv4.hdr",
];

fn sticky_def(b: Buffer, protos: &'static [AppProto]) -> Keyword {
    let (description, doc) = sticky_docs::about(b);
    Keyword::new(b.name(), Value::None, Kind::StickyBuffer(b), select_sticky)
        .aliases(b.aliases())
        .protos(protos)
        .own_check()
        .about(description, doc)
}

/// `pkt_data`, `http.uri` ...: selects the buffer (`file_data` also accepts Snort's
/// `file_data:mime`).
fn select_sticky(st: &mut State, c: &Ctx<'_>) {
    let Kind::StickyBuffer(b) = c.def.kind else {
        return;
    };
    match c.o.value {
        None => {}
        Some("mime") if b == Buffer::FileData => {}
        Some(_) if b == Buffer::TlsCertChainLen => return tls::cert_chain_len(st, c),
        Some(v) => {
            if file::legacy_filename(st, c, b, v) {
                return;
            }
            if let Some(name) = STICKY_OR_VERBATIM.iter().find(|k| **k == c.kw) {
                st.options.push(Opt::Keyword {
                    name,
                    value: Some(v.to_owned()),
                });
            } else {
                st.err(
                    c.o.value_off,
                    Reason::InvalidValue,
                    c.kw,
                    format!("sticky buffer '{}' takes no value", c.kw),
                );
            }
            return;
        }
    }
    st.response_body_sticky |= b == Buffer::HttpResponseBody;
    st.sticky = if b == Buffer::Payload {
        None
    } else {
        Some(Sticky {
            buffer: b,
            transforms: Vec::new(),
            block: None,
        })
    };
}

struct Registry {
    all: Vec<Keyword>,
    by_name: HashMap<&'static str, usize>,
    buffer_protos: HashMap<Buffer, &'static [AppProto]>,
}

fn registry() -> &'static Registry {
    static R: OnceLock<Registry> = OnceLock::new();
    R.get_or_init(|| {
        let mut all = Vec::new();
        let mut buffer_protos = HashMap::new();
        for (kws, stickies) in TABLES {
            all.extend_from_slice(kws);
            for (bufs, protos) in stickies.iter() {
                for &b in bufs.iter() {
                    all.push(sticky_def(b, protos));
                    buffer_protos.insert(b, *protos);
                }
            }
        }
        let mut by_name = HashMap::new();
        for (i, k) in all.iter().enumerate() {
            for n in k.names() {
                by_name.entry(n).or_insert(i);
            }
        }
        Registry {
            all,
            by_name,
            buffer_protos,
        }
    })
}

/// Every keyword definition, family by family.
pub fn all() -> impl Iterator<Item = &'static Keyword> {
    registry().all.iter()
}

/// The definition of a keyword by name or alias (lowercase).
pub fn find(name: &str) -> Option<&'static Keyword> {
    let r = registry();
    r.by_name.get(name).map(|&i| &r.all[i])
}

/// Application protocols a buffer needs (`None`: any).
pub fn buffer_protos(b: Buffer) -> Option<&'static [AppProto]> {
    registry()
        .buffer_protos
        .get(&b)
        .copied()
        .filter(|p| !p.is_empty())
}

/// Parses one option of a rule: looks the keyword up, checks its value grammar and
/// runs its parse function.
pub(crate) fn apply(st: &mut State, kw: &str, o: &RawOption<'_>) {
    let Some(def) = find(kw) else {
        st.err(
            o.name_off,
            Reason::UnsupportedKeyword,
            kw,
            format!("unsupported keyword '{kw}'"),
        );
        return;
    };
    let val = match (def.value, def.own_check) {
        (_, true) | (Value::Optional, _) => "",
        (Value::None, false) => {
            if !no_value(st, o, kw) {
                return;
            }
            ""
        }
        (Value::Required, false) => match need_value(st, o, kw) {
            Some(v) => v,
            None => return,
        },
        (Value::Quoted, false) => match quoted(st, o, kw) {
            Some(v) => v,
            None => return,
        },
    };
    (def.parse)(st, &Ctx { def, kw, o, val });
}

#[cfg(test)]
mod tests;

/// The value of the first protocol keyword (`Opt::App`) of `rule` (tests of the
/// protocols' keyword files).
#[cfg(test)]
pub(crate) fn first_app_value(rule: &str) -> Result<crate::ast::AppValue, String> {
    let r = crate::parse_rule(rule).map_err(|e| format!("{e:?}"))?;
    r.options
        .iter()
        .find_map(|o| match o {
            crate::ast::Opt::App(a) => Some(a.value.clone()),
            _ => None,
        })
        .ok_or_else(|| "no app option".into())
}
