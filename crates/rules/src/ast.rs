//! The typed rule model: a header, rule metadata, per-buffer ordered match lists and
//! non-payload options.

use crate::buffers::{Buffer, Transform};
use crate::header::{AddrExpr, PortExpr};

mod app_opt;
mod bytes;
mod lists;
mod modbus;
mod pcre_flags;
mod tcp_flags;

pub use app_opt::{AppOpt, AppValue};
pub use bytes::*;
pub use lists::*;
pub use modbus::{ModbusMatch, ModbusWhat};
pub use pcre_flags::PcreFlags;
pub use tcp_flags::*;

/// Rule action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Action {
    /// `alert`
    Alert,
    /// `drop`
    Drop,
    /// `reject`
    Reject,
    /// `rejectsrc`
    RejectSrc,
    /// `rejectdst`
    RejectDst,
    /// `rejectboth`
    RejectBoth,
    /// `pass`
    Pass,
    /// `log` (Snort)
    Log,
    /// `sdrop` (Snort: drop without alerting)
    Sdrop,
}

impl Action {
    /// Parses an action word (case-insensitive).
    pub fn parse(s: &str) -> Option<Action> {
        Some(match s.to_ascii_lowercase().as_str() {
            "alert" => Action::Alert,
            "drop" => Action::Drop,
            "reject" => Action::Reject,
            "rejectsrc" => Action::RejectSrc,
            "rejectdst" => Action::RejectDst,
            "rejectboth" => Action::RejectBoth,
            "pass" => Action::Pass,
            "log" => Action::Log,
            "sdrop" => Action::Sdrop,
            _ => return None,
        })
    }

    /// Keyword.
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Alert => "alert",
            Action::Drop => "drop",
            Action::Reject => "reject",
            Action::RejectSrc => "rejectsrc",
            Action::RejectDst => "rejectdst",
            Action::RejectBoth => "rejectboth",
            Action::Pass => "pass",
            Action::Log => "log",
            Action::Sdrop => "sdrop",
        }
    }
}

/// Protocol field of the header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Protocol {
    /// `ip` / `ipv4` / `ipv6` family: any IP packet.
    Ip,
    /// `ipv4` / `ip4`
    Ipv4,
    /// `ipv6` / `ip6`
    Ipv6,
    /// `tcp`
    Tcp,
    /// `tcp-pkt`: TCP packets only, not the stream.
    TcpPkt,
    /// `tcp-stream`: reassembled TCP stream only.
    TcpStream,
    /// `udp`
    Udp,
    /// `icmp` (v4 and v6)
    Icmp,
    /// `icmpv4`
    Icmpv4,
    /// `icmpv6`
    Icmpv6,
    /// `sctp`
    Sctp,
    /// `pkthdr`: decoder-event rules.
    Pkthdr,
    /// An application-layer protocol.
    App(AppProto),
}

macro_rules! app_protos {
    ($( $v:ident = $name:literal $(| $alias:literal)* ;)*) => {
        /// Application-layer protocols Suricata 7 accepts in a rule header and in
        /// `app-layer-protocol`.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum AppProto {
            $(
                #[doc = concat!("`", $name, "`")]
                $v,
            )*
        }

        impl AppProto {
            /// Canonical name.
            pub fn name(self) -> &'static str {
                match self { $(AppProto::$v => $name,)* }
            }

            /// Parses a name (lowercase).
            pub fn parse(s: &str) -> Option<AppProto> {
                match s {
                    $($name $(| $alias)* => Some(AppProto::$v),)*
                    _ => None,
                }
            }
        }
    };
}

app_protos! {
    Http = "http";
    Http1 = "http1";
    Http2 = "http2";
    Ftp = "ftp";
    FtpData = "ftp-data";
    Smb = "smb";
    Dcerpc = "dcerpc";
    Dns = "dns";
    Tls = "tls" | "ssl";
    Ssh = "ssh";
    Smtp = "smtp";
    Imap = "imap";
    Pop3 = "pop3";
    Modbus = "modbus";
    Dnp3 = "dnp3";
    Enip = "enip";
    Cip = "cip";
    Nfs = "nfs";
    Ike = "ike" | "ikev2";
    Krb5 = "krb5";
    Ntp = "ntp";
    Dhcp = "dhcp";
    Snmp = "snmp";
    Sip = "sip";
    Rfb = "rfb";
    Mqtt = "mqtt";
    Rdp = "rdp";
    Quic = "quic";
    BittorrentDht = "bittorrent-dht";
    Telnet = "telnet";
    Tftp = "tftp";
    Pgsql = "pgsql";
    Websocket = "websocket";
    Ldap = "ldap";
    Template = "template";
    Irc = "irc";
    Jabber = "jabber";
    Msn = "msn";
    Failed = "failed";
}

/// Protocol named by `app-layer-protocol`: an application protocol or `unknown`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AppLayerProto {
    /// A protocol a rule header also accepts (`failed` included).
    Known(AppProto),
    /// `unknown`: no protocol detected yet.
    Unknown,
}

impl AppLayerProto {
    /// Parses a name (lowercase).
    pub fn parse(s: &str) -> Option<AppLayerProto> {
        match s {
            "unknown" => Some(AppLayerProto::Unknown),
            _ => AppProto::parse(s).map(AppLayerProto::Known),
        }
    }

    /// Canonical name.
    pub fn name(self) -> &'static str {
        match self {
            AppLayerProto::Known(a) => a.name(),
            AppLayerProto::Unknown => "unknown",
        }
    }
}

/// Mode of `app-layer-protocol` (after the comma).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AppLayerMode {
    /// `final`
    Final,
    /// `original`
    Original,
    /// `either`
    Either,
    /// `to_server`
    ToServer,
    /// `to_client`
    ToClient,
    /// `direction`
    Direction,
}

impl AppLayerMode {
    /// Parses a mode word.
    pub fn parse(s: &str) -> Option<AppLayerMode> {
        Some(match s {
            "final" => AppLayerMode::Final,
            "original" => AppLayerMode::Original,
            "either" => AppLayerMode::Either,
            "to_server" => AppLayerMode::ToServer,
            "to_client" => AppLayerMode::ToClient,
            "direction" => AppLayerMode::Direction,
            _ => return None,
        })
    }

    /// Keyword.
    pub fn as_str(self) -> &'static str {
        match self {
            AppLayerMode::Final => "final",
            AppLayerMode::Original => "original",
            AppLayerMode::Either => "either",
            AppLayerMode::ToServer => "to_server",
            AppLayerMode::ToClient => "to_client",
            AppLayerMode::Direction => "direction",
        }
    }
}

impl Protocol {
    /// Parses a protocol name (case-insensitive).
    pub fn parse(s: &str) -> Option<Protocol> {
        let l = s.to_ascii_lowercase();
        Some(match l.as_str() {
            "ip" => Protocol::Ip,
            "ipv4" | "ip4" => Protocol::Ipv4,
            "ipv6" | "ip6" => Protocol::Ipv6,
            "tcp" => Protocol::Tcp,
            "tcp-pkt" => Protocol::TcpPkt,
            "tcp-stream" => Protocol::TcpStream,
            "udp" => Protocol::Udp,
            "icmp" => Protocol::Icmp,
            "icmpv4" => Protocol::Icmpv4,
            "icmpv6" => Protocol::Icmpv6,
            "sctp" => Protocol::Sctp,
            "pkthdr" => Protocol::Pkthdr,
            other => Protocol::App(AppProto::parse(other)?),
        })
    }

    /// Canonical name.
    pub fn name(self) -> &'static str {
        match self {
            Protocol::Ip => "ip",
            Protocol::Ipv4 => "ipv4",
            Protocol::Ipv6 => "ipv6",
            Protocol::Tcp => "tcp",
            Protocol::TcpPkt => "tcp-pkt",
            Protocol::TcpStream => "tcp-stream",
            Protocol::Udp => "udp",
            Protocol::Icmp => "icmp",
            Protocol::Icmpv4 => "icmpv4",
            Protocol::Icmpv6 => "icmpv6",
            Protocol::Sctp => "sctp",
            Protocol::Pkthdr => "pkthdr",
            Protocol::App(a) => a.name(),
        }
    }
}

/// Direction of the header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    /// `->`
    ToDst,
    /// `<>`
    Both,
}

/// The rule header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// Protocol.
    pub protocol: Protocol,
    /// Source addresses.
    pub src: AddrExpr,
    /// Source ports.
    pub src_ports: PortExpr,
    /// Direction.
    pub direction: Direction,
    /// Destination addresses.
    pub dst: AddrExpr,
    /// Destination ports.
    pub dst_ports: PortExpr,
}

/// A number that may be a literal or a `byte_extract`/`byte_math` variable name.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Num {
    /// Literal value.
    Lit(i64),
    /// Variable set by `byte_extract` or `byte_math`.
    Var(String),
}

/// `fast_pattern` settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FastPattern {
    /// `fast_pattern`
    Yes,
    /// `fast_pattern:only` (Snort 2.9; Suricata treats it as plain `fast_pattern`).
    Only,
    /// `fast_pattern:offset,length`
    Chop {
        /// Offset into the content.
        offset: u16,
        /// Length.
        length: u16,
    },
}

/// A `content` match with its modifiers.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Content {
    /// Pattern bytes (escapes and `|hex|` decoded).
    pub pattern: Vec<u8>,
    /// `!` before the pattern.
    pub negated: bool,
    /// `nocase`
    pub nocase: bool,
    /// `rawbytes` (Snort: match undecoded bytes).
    pub rawbytes: bool,
    /// `offset`
    pub offset: Option<Num>,
    /// `depth`
    pub depth: Option<Num>,
    /// `distance`
    pub distance: Option<Num>,
    /// `within`
    pub within: Option<Num>,
    /// `startswith`
    pub startswith: bool,
    /// `endswith`
    pub endswith: bool,
    /// `fast_pattern`
    pub fast_pattern: Option<FastPattern>,
    /// `replace` (IPS)
    pub replace: Option<Vec<u8>>,
}

impl Content {
    /// True if positioned relative to the previous match (`distance`/`within`).
    pub fn is_relative(&self) -> bool {
        self.distance.is_some() || self.within.is_some()
    }
}

/// A `pcre` match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pcre {
    /// The regular expression between the slashes.
    pub pattern: String,
    /// Flags after the closing slash, buffer-selecting letters (`U`, `H` ...) removed
    /// (they select the match's buffer); includes `R` (relative) when present.
    pub flags: PcreFlags,
    /// `!` before the pattern.
    pub negated: bool,
    /// Capture targets after the flags (`pkt:name`, `flow:name`, `alert:name`).
    pub captures: Vec<String>,
}

impl Pcre {
    /// `R` flag: relative to the previous match.
    pub fn is_relative(&self) -> bool {
        self.flags.contains(PcreFlags::RELATIVE)
    }
}

/// How `ip_proto` compares a packet's protocol number with the rule's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum IpProtoOp {
    /// No operator: equal.
    #[default]
    Eq,
    /// `!`: not equal.
    Ne,
    /// `<`: lower.
    Lt,
    /// `>`: higher.
    Gt,
}

impl IpProtoOp {
    /// The operator a value starts with (`!`, `<`, `>`), if any.
    pub fn from_char(c: char) -> Option<IpProtoOp> {
        Some(match c {
            '!' => IpProtoOp::Ne,
            '<' => IpProtoOp::Lt,
            '>' => IpProtoOp::Gt,
            _ => return None,
        })
    }

    /// The operator as written in a rule (empty for [`IpProtoOp::Eq`]).
    pub fn as_str(self) -> &'static str {
        match self {
            IpProtoOp::Eq => "",
            IpProtoOp::Ne => "!",
            IpProtoOp::Lt => "<",
            IpProtoOp::Gt => ">",
        }
    }

    /// Whether a packet of protocol `packet` passes `self proto`.
    #[inline]
    pub fn matches(self, packet: u8, proto: u8) -> bool {
        match self {
            IpProtoOp::Eq => packet == proto,
            IpProtoOp::Ne => packet != proto,
            IpProtoOp::Lt => packet < proto,
            IpProtoOp::Gt => packet > proto,
        }
    }
}

/// A numeric comparison used by `dsize`, `bsize`, `urilen`, `ttl`, `itype` ...
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IntCmp {
    /// `N`
    Eq(u64),
    /// `!N`
    Ne(u64),
    /// `<N`
    Lt(u64),
    /// `<=N`
    Le(u64),
    /// `>N`
    Gt(u64),
    /// `>=N`
    Ge(u64),
    /// `A<>B` or `A-B`: strictly between.
    Range(u64, u64),
    /// `!A-B`: outside.
    NotRange(u64, u64),
}

impl IntCmp {
    /// Evaluates against a value.
    pub fn matches(self, v: u64) -> bool {
        match self {
            IntCmp::Eq(n) => v == n,
            IntCmp::Ne(n) => v != n,
            IntCmp::Lt(n) => v < n,
            IntCmp::Le(n) => v <= n,
            IntCmp::Gt(n) => v > n,
            IntCmp::Ge(n) => v >= n,
            IntCmp::Range(a, b) => v > a && v < b,
            IntCmp::NotRange(a, b) => !(v > a && v < b),
        }
    }
}

/// One match in a buffer's ordered list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Match {
    /// `content`
    Content(Content),
    /// `pcre`
    Pcre(Pcre),
    /// `byte_test`
    ByteTest(ByteTest),
    /// `byte_jump`
    ByteJump(ByteJump),
    /// `byte_extract`
    ByteExtract(ByteExtract),
    /// `byte_math`
    ByteMath(ByteMath),
    /// `isdataat`
    IsDataAt(IsDataAt),
    /// `bsize`
    Bsize(IntCmp),
    /// `base64_decode`: decode base64 from the buffer (read with `base64_data`).
    Base64Decode {
        /// `bytes`
        bytes: Option<u32>,
        /// `offset`
        offset: Option<u32>,
        /// `relative`
        relative: bool,
    },
    /// `asn1` checks.
    Asn1(String),
    /// `urilen` (Snort/Suricata: length of the normalized or raw URI).
    Urilen {
        /// Comparison.
        cmp: IntCmp,
        /// `,raw`
        raw: bool,
    },
    /// `dataset` / `datarep`: the buffer looked up in a named set.
    List(Box<ListMatch>),
}

/// One inspection buffer with its transforms and ordered matches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BufferMatches {
    /// Which buffer.
    pub buffer: Buffer,
    /// Transforms applied to it first.
    pub transforms: Vec<Transform>,
    /// Matches in rule order.
    pub matches: Vec<Match>,
}

/// `flow` options.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Flow {
    /// `to_server` / `from_client`
    pub to_server: bool,
    /// `to_client` / `from_server`
    pub to_client: bool,
    /// `established`
    pub established: bool,
    /// `not_established`
    pub not_established: bool,
    /// `stateless`
    pub stateless: bool,
    /// `only_stream`
    pub only_stream: bool,
    /// `no_stream`
    pub no_stream: bool,
    /// `only_frag`
    pub only_frag: bool,
    /// `no_frag`
    pub no_frag: bool,
}

/// Command of `flowbits`/`xbits`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BitsCmd {
    /// `set`
    Set,
    /// `unset`
    Unset,
    /// `toggle`
    Toggle,
    /// `isset`
    IsSet,
    /// `isnotset`
    IsNotSet,
    /// `noalert`
    NoAlert,
}

impl BitsCmd {
    /// Keyword.
    pub fn as_str(self) -> &'static str {
        match self {
            BitsCmd::Set => "set",
            BitsCmd::Unset => "unset",
            BitsCmd::Toggle => "toggle",
            BitsCmd::IsSet => "isset",
            BitsCmd::IsNotSet => "isnotset",
            BitsCmd::NoAlert => "noalert",
        }
    }
}

/// `flowbits`
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Flowbits {
    /// Command.
    pub cmd: BitsCmd,
    /// Bit names; several joined by `|` (any of) or `&` (all of).
    pub names: Vec<String>,
    /// True when the names were joined with `&`.
    pub all: bool,
}

/// Tracking key for thresholds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Track {
    /// `by_src`
    BySrc,
    /// `by_dst`
    ByDst,
    /// `by_rule`
    ByRule,
    /// `by_both`
    ByBoth,
    /// `by_flow`
    ByFlow,
}

impl Track {
    /// Parses a track keyword.
    pub fn parse(s: &str) -> Option<Track> {
        Some(match s {
            "by_src" => Track::BySrc,
            "by_dst" => Track::ByDst,
            "by_rule" => Track::ByRule,
            "by_both" => Track::ByBoth,
            "by_flow" => Track::ByFlow,
            _ => return None,
        })
    }

    /// Keyword.
    pub fn as_str(self) -> &'static str {
        match self {
            Track::BySrc => "by_src",
            Track::ByDst => "by_dst",
            Track::ByRule => "by_rule",
            Track::ByBoth => "by_both",
            Track::ByFlow => "by_flow",
        }
    }
}

/// `threshold` type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ThresholdType {
    /// `limit`
    Limit,
    /// `threshold`
    Threshold,
    /// `both`
    Both,
    /// `backoff`
    Backoff,
}

impl ThresholdType {
    /// Parses a type keyword.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "limit" => ThresholdType::Limit,
            "threshold" => ThresholdType::Threshold,
            "both" => ThresholdType::Both,
            "backoff" => ThresholdType::Backoff,
            _ => return None,
        })
    }

    /// Keyword.
    pub fn as_str(self) -> &'static str {
        match self {
            ThresholdType::Limit => "limit",
            ThresholdType::Threshold => "threshold",
            ThresholdType::Both => "both",
            ThresholdType::Backoff => "backoff",
        }
    }
}

/// `threshold` (and `detection_filter`, which has no type).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Threshold {
    /// Type (`None` for `detection_filter`).
    pub kind: Option<ThresholdType>,
    /// Tracking.
    pub track: Track,
    /// `count`
    pub count: u32,
    /// `seconds`
    pub seconds: u32,
    /// `multiplier` (backoff).
    pub multiplier: Option<u32>,
}

/// `reference`
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference {
    /// System (`url`, `cve` ...).
    pub system: String,
    /// Identifier.
    pub id: String,
}

/// `target`
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Target {
    /// `src_ip`
    SrcIp,
    /// `dest_ip`
    DestIp,
}

/// Non-payload options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Opt {
    /// `flow`
    Flow(Flow),
    /// `flowbits`
    Flowbits(Flowbits),
    /// `xbits:<cmd>,<name>,track <t>[,expire <n>]` (stored as written after the command).
    Xbits {
        /// Command.
        cmd: BitsCmd,
        /// Name.
        name: String,
        /// Rest (`track ip_src` ...).
        rest: String,
    },
    /// `flowint:<name>,<op>[,<value>]`
    Flowint {
        /// Variable.
        name: String,
        /// Operator (`=`, `+`, `-`, `==`, `!=`, `<`, `>`, `<=`, `>=`, `isset`, `notset`, `isnotset`).
        op: String,
        /// Operand.
        value: Option<String>,
    },
    /// `dsize`
    Dsize(IntCmp),
    /// `flags`
    Flags(TcpFlags),
    /// `ttl`
    Ttl(IntCmp),
    /// `itype`
    Itype(IntCmp),
    /// `icode`
    Icode(IntCmp),
    /// `icmp_id`
    IcmpId(u16),
    /// `icmp_seq`
    IcmpSeq(u16),
    /// `seq`
    Seq(u32),
    /// `ack`
    Ack(u32),
    /// `window` (`!` negates)
    Window {
        /// `!`
        negated: bool,
        /// Size.
        size: u16,
    },
    /// `id` (IP id)
    IpId(u16),
    /// `tos`
    Tos {
        /// `!`
        negated: bool,
        /// Value.
        value: u8,
    },
    /// `ip_proto` (number or name, stored as the protocol number with an operator).
    IpProto {
        /// `!`, `<`, `>` or none.
        op: IpProtoOp,
        /// Protocol number.
        proto: u8,
    },
    /// `ipopts`
    IpOpts(String),
    /// `fragbits`
    Fragbits(String),
    /// `fragoffset`
    Fragoffset(String),
    /// `sameip`
    SameIp,
    /// `stream_size:<side>,<op>,<n>`
    StreamSize {
        /// `server`, `client`, `both`, `either`.
        side: String,
        /// Operator text.
        op: String,
        /// Size.
        size: u64,
    },
    /// `threshold`
    Threshold(Threshold),
    /// `detection_filter`
    DetectionFilter(Threshold),
    /// `app-layer-protocol:[!]name[,final|original|...]`
    AppLayerProtocol {
        /// `!`
        negated: bool,
        /// Protocol.
        proto: AppLayerProto,
        /// Mode after the comma.
        mode: Option<AppLayerMode>,
    },
    /// `app-layer-event`
    AppLayerEvent(String),
    /// `tag`
    Tag(crate::tag::Tag),
    /// `noalert`
    NoAlert,
    /// `ssl_state`
    SslState(String),
    /// `ssl_version` / `tls.version`
    TlsVersion(String),
    /// A protocol keyword matched against a transaction (`dcerpc.opnum`,
    /// `nfs_procedure`, `krb5_msg_type`, ...): the protocol's
    /// `app::Transaction::check` evaluates it.
    App(AppOpt),
    /// A recognised keyword the detection engine inspects as written (protocol-specific
    /// options such as `dns.opcode`, `ssh.protoversion`, `filemd5`...).
    Keyword {
        /// Keyword (canonical name).
        name: &'static str,
        /// Value as written.
        value: Option<String>,
    },
    /// `iprep` / `geoip`: the packet's addresses looked up.
    Intel(IntelOpt),
    /// `lua` / `luajit`: a detection script.
    Lua(crate::keywords::LuaScript),
}

/// Rule metadata (who, what, which revision).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Meta {
    /// `msg`
    pub msg: Option<String>,
    /// `sid` (0 when missing; validation rejects it).
    pub sid: u32,
    /// `rev`
    pub rev: u32,
    /// `gid` (default 1)
    pub gid: u32,
    /// `classtype`
    pub classtype: Option<String>,
    /// `priority`
    pub priority: Option<u32>,
    /// `reference`s
    pub references: Vec<Reference>,
    /// `metadata` key/value pairs.
    pub metadata: Vec<String>,
    /// `target`
    pub target: Option<Target>,
}

/// A parsed rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    /// Action.
    pub action: Action,
    /// Header.
    pub header: Header,
    /// Metadata.
    pub meta: Meta,
    /// Per-buffer matches, in the order the buffers first appear.
    pub buffers: Vec<BufferMatches>,
    /// Non-payload options in rule order.
    pub options: Vec<Opt>,
    /// False for a commented-out rule parsed on request.
    pub enabled: bool,
}

impl Rule {
    /// The matches of one buffer (all transform variants).
    pub fn matches_in(&self, b: Buffer) -> impl Iterator<Item = &Match> {
        self.buffers
            .iter()
            .filter(move |m| m.buffer == b)
            .flat_map(|m| m.matches.iter())
    }

    /// Every content of the rule with its buffer.
    pub fn contents(&self) -> impl Iterator<Item = (Buffer, &Content)> {
        self.buffers.iter().flat_map(|bm| {
            bm.matches.iter().filter_map(move |m| match m {
                Match::Content(c) => Some((bm.buffer, c)),
                _ => None,
            })
        })
    }

    /// `flow` option, if any.
    pub fn flow(&self) -> Option<&Flow> {
        self.options.iter().find_map(|o| match o {
            Opt::Flow(f) => Some(f),
            _ => None,
        })
    }
}
