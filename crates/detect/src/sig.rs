//! Compiling one loaded rule into a [`Sig`]: header sets, flow and packet conditions,
//! flowbits, buffer programs, thresholds. Anything the detector cannot evaluate exactly
//! as Suricata does is refused with a [`Refusal`].

use std::collections::HashMap;

use app::BufferId;
use rules::{
    Action, AppLayerProto, AppProto as RuleApp, BitsCmd, Buffer, IntCmp, LoadedRule, Opt, Protocol,
    Rule, Threshold,
};
use wire::ip_proto;

use crate::buffer_program::{program, Vars};
use crate::program::Program;
use crate::transform::Xform;

/// Why a rule cannot be loaded.
#[derive(Debug, Clone)]
pub(crate) struct Refusal {
    pub unsupported: bool,
    pub keyword: String,
    pub message: String,
}

pub(crate) fn unsupported(keyword: impl Into<String>, message: impl Into<String>) -> Refusal {
    Refusal {
        unsupported: true,
        keyword: keyword.into(),
        message: message.into(),
    }
}

pub(crate) fn failed(keyword: impl Into<String>, message: impl Into<String>) -> Refusal {
    Refusal {
        unsupported: false,
        keyword: keyword.into(),
        message: message.into(),
    }
}

/// The app-layer buffer a rule buffer maps to, if a protocol exposes it (the
/// protocols' buffer tables are looked up by the buffer's canonical name).
pub(crate) fn app_buf(b: Buffer) -> Option<BufferId> {
    BufferId::by_name(b.name())
}

/// Where a buffer program runs (and what a prefilter matcher scans).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Slot {
    Payload,
    App(BufferId),
}

/// A program over one app-layer buffer, with its transforms.
#[derive(Debug, Clone)]
pub(crate) struct AppProg {
    pub buf: BufferId,
    pub transforms: Vec<Xform>,
    pub prog: Program,
}

/// Which payloads a payload program inspects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PayloadMode {
    /// Packet payload only (`tcp-pkt`, `flow:no_stream`, `dsize`, non-TCP).
    Packet,
    /// Reassembled stream only (`tcp-stream`, `flow:only_stream`).
    Stream,
    /// The stream chunk, else the packet payload when the packet is not part of the
    /// stream.
    Both,
    /// The stream chunk, else the packet payload even when the stream took it: rules
    /// with a content anchored by `offset`, `depth` or `startswith` (Suricata 7.0.10
    /// matches those on the packet that carries the bytes, checked on sv-ether's SMB
    /// flows; without the anchor the same content matches only in the stream).
    BothAndPacket,
}

/// The protocol condition of the header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ProtoM {
    /// Any IP packet; `Some(4|6)` restricts the version.
    Ip(Option<u8>),
    /// L4 protocol number; ICMP matches v4 and v6.
    L4(u8),
    /// ICMP or ICMPv6.
    AnyIcmp,
}

/// A packet header option.
#[derive(Debug, Clone)]
pub(crate) enum PktOpt {
    Dsize(IntCmp),
    Flags(rules::TcpFlags),
    Ttl(IntCmp),
    Itype(IntCmp),
    Icode(IntCmp),
    IcmpId(u16),
    IcmpSeq(u16),
    Seq(u32),
    Ack(u32),
    Window {
        negated: bool,
        size: u16,
    },
    IpId(u16),
    Tos {
        negated: bool,
        value: u8,
    },
    IpProto {
        op: rules::IpProtoOp,
        proto: u8,
    },
    SameIp,
    /// `iprep` (IP-only compatible).
    Intel(crate::lists::IntelC),
    Hdr(crate::packet_opts::HdrOpt),
    State(crate::flowstate::StateOpt),
    Lua(crate::lua::LuaC),
    /// A program over a header buffer (`tcp.hdr`, `ip.src`, ...).
    HdrBuf(Box<crate::hdr_buf::HdrProg>),
}

/// A flowbits condition (`isset`/`isnotset`).
#[derive(Debug, Clone)]
pub(crate) struct BitsCond {
    pub set: bool,
    pub all: bool,
    pub bits: Vec<u32>,
}

/// A flowbits action run when the rule matches.
#[derive(Debug, Clone, Copy)]
pub(crate) enum BitsAct {
    Set(u32),
    Unset(u32),
    Toggle(u32),
}

/// `flow` conditions that remain after the payload mode is decided.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct FlowC {
    pub to_server: bool,
    pub to_client: bool,
    pub established: bool,
    pub not_established: bool,
    pub needs_flow: bool,
}

/// `app-layer-protocol` condition.
#[derive(Debug, Clone, Copy)]
pub(crate) struct AlpC {
    pub negated: bool,
    pub proto: app::AppProto,
    /// With `proto` HTTP: the one version named (`http1`, `http2`).
    pub only: Option<app::AppProto>,
}

/// Whether a flow whose protocol is `flow` is one of `rule`'s (`only`: the one version
/// the rule names), as the app layer's registry says ([`app::registry::rule_covers`]).
pub(crate) fn proto_matches(
    rule: app::AppProto,
    only: Option<app::AppProto>,
    flow: app::AppProto,
) -> bool {
    app::registry::rule_covers(rule, only, flow)
}

/// A compiled signature.
#[derive(Debug, Clone)]
pub(crate) struct Sig {
    pub rule: u32,
    pub sid: u32,
    pub gid: u32,
    pub rev: u32,
    pub action: Action,
    pub priority: u32,
    pub proto: ProtoM,
    /// Required app protocol (header protocol `http`, `dns`, `tls` or app buffers);
    /// `Http` stands for HTTP/1 and HTTP/2 (see [`proto_matches`]).
    pub app_proto: Option<app::AppProto>,
    /// With `app_proto` HTTP: the one HTTP version the header protocol names.
    pub http_only: Option<app::AppProto>,
    pub src: rules::AddrSet,
    pub dst: rules::AddrSet,
    pub sports: rules::PortSet,
    pub dports: rules::PortSet,
    pub bidir: bool,
    /// The rule's addresses, ports and `<>` as one id shared by the rules that have
    /// the same ones ([`crate::state::EndsMemo`]), given by the detector's build.
    pub ends: u32,
    pub flow: FlowC,
    pub pkt: Vec<PktOpt>,
    pub bits_cond: Vec<BitsCond>,
    pub bits_act: Vec<BitsAct>,
    /// `xbits`/`hostbits` conditions and actions.
    pub xbits: Vec<crate::xbits::XbitOp>,
    /// `flowint` conditions and changes.
    pub flowint: Vec<crate::flowint::FlowintOp>,
    pub alp: Vec<AlpC>,
    pub payload: Option<Program>,
    pub payload_mode: PayloadMode,
    pub app: Vec<AppProg>,
    /// Protocol keywords the transaction evaluates (`app::Transaction::check`).
    pub tx_opts: Vec<rules::AppOpt>,
    /// The file options among them, compiled (evaluated on the transaction's files).
    pub files: crate::files::FileOpts,
    /// Direction of transaction inspection for app rules.
    pub app_dir: app::Direction,
    /// Only direction-neutral buffers (`http.header`, `file.data`...) and no flow
    /// direction: inspected in both directions, as Suricata does.
    pub app_both: bool,
    pub threshold: Option<Threshold>,
    pub noalert: bool,
    pub vars: Vec<crate::vars::VarCond>,
    /// Fast pattern: slot, bytes, nocase.
    pub fp: Option<(Slot, Vec<u8>, bool)>,
    /// Without a fast pattern, a prefilter pattern a transformed buffer still
    /// guarantees ([`crate::fastpat::select_transformed`]): used to group the rule, not
    /// reported as its fast pattern.
    pub pre_fp: Option<(Slot, Vec<u8>, bool)>,
    /// The app-layer buffer of Suricata's fast pattern (`crate::mpm_blind`): a
    /// transaction whose matcher cannot see it (`Transaction::prefilter_blind`) never
    /// matches the rule.
    pub mpm_buf: Option<app::BufferId>,
    /// Flowbits use, for ordering: 3 set only, 2 set and read, 1 read, 0 none.
    pub bits_rank: u8,
    /// IP-only rule: evaluated on the first packet of each flow direction.
    pub iponly: bool,
    /// IP-only but for a negated address: checked on every packet, pseudo-packets too.
    pub like_iponly: bool,
    /// A verdict of this rule covers the whole flow (IPS): header-only rules, as
    /// IP-only ones but ports and app-layer protocol allowed.
    pub flow_action: bool,
    /// `lua` scripts that inspect transactions (`crate::lua`).
    pub lua_tx: Vec<crate::lua::LuaC>,
    /// `frame` programs (at most one), inspected on the flow's frames.
    pub frames: Vec<crate::frames::FrameProg>,
}

impl Sig {
    /// Transaction rule (inspected per app-layer transaction).
    pub fn is_tx(&self) -> bool {
        !self.app.is_empty() || !self.tx_opts.is_empty() || !self.lua_tx.is_empty()
    }
}

/// Interns flowbit names into dense ids.
#[derive(Debug, Default)]
pub(crate) struct BitNames {
    pub ids: HashMap<String, u32>,
}

impl BitNames {
    fn id(&mut self, name: &str) -> u32 {
        let n = self.ids.len() as u32;
        *self.ids.entry(name.to_owned()).or_insert(n)
    }
}

/// Settles the protocol of a rule's transaction keywords: the one its header or
/// buffers name if the keyword applies to it, else the keyword's first protocol the app
/// layer parses.
fn tx_opts_proto(sig: &mut Sig, header: Option<app::AppProto>) -> Result<(), Refusal> {
    let parsed = |p: &rules::AppProto| app::registry::rule_name(p.name()).map(|(n, _)| n.proto);
    for o in &sig.tx_opts {
        let known: Vec<app::AppProto> = o.protos.iter().filter_map(parsed).collect();
        let want = sig.app_proto.or(header);
        let p = match want {
            Some(p) if known.contains(&p) => p,
            Some(_) if sig.app_proto.is_some() => {
                return Err(unsupported(o.name, "buffers of two application protocols"))
            }
            _ => match known.first() {
                Some(&p) => p,
                None => {
                    return Err(unsupported(
                        o.name,
                        format!("{}: its protocol is not parsed", o.name),
                    ))
                }
            },
        };
        sig.app_proto = Some(p);
    }
    Ok(())
}

/// Compiles one rule. `index` is its position in the rule set.
pub(crate) fn compile(
    index: usize,
    lr: &LoadedRule,
    bits: &mut BitNames,
    opts: &crate::DetectOptions,
) -> Result<Sig, Refusal> {
    let r: &Rule = &lr.rule;
    let mut vars = Vars {
        names: Vec::new(),
        pcre: opts.pcre_limits,
        b64: crate::base64::data_matches(r)?,
        lists: (opts.lists.clone(), lr.file.clone()),
    };
    let (proto, mut app_proto) = crate::header_proto::compile(r.header.protocol)?;
    app_proto = app_proto.or(crate::bytes::uses_dce(r).then_some(app::AppProto::Dcerpc));
    let http_only = match r.header.protocol {
        Protocol::App(a) => app::registry::rule_name(a.name()).and_then(|(n, _)| n.only),
        _ => None,
    };
    let mut sig = Sig {
        rule: index as u32,
        sid: r.meta.sid,
        gid: r.meta.gid,
        rev: r.meta.rev,
        action: r.action,
        priority: lr.priority,
        proto,
        app_proto: None,
        http_only,
        src: lr.src_addrs.clone(),
        dst: lr.dst_addrs.clone(),
        sports: lr.src_ports.clone(),
        ends: 0,
        dports: lr.dst_ports.clone(),
        bidir: r.header.direction == rules::Direction::Both,
        flow: FlowC::default(),
        pkt: Vec::new(),
        bits_cond: Vec::new(),
        bits_act: Vec::new(),
        xbits: Vec::new(),
        flowint: Vec::new(),
        alp: Vec::new(),
        payload: None,
        payload_mode: PayloadMode::Both,
        app: Vec::new(),
        tx_opts: Vec::new(),
        files: Default::default(),
        app_dir: app::Direction::ToServer,
        app_both: false,
        threshold: None,
        noalert: r.action == Action::Pass,
        vars: Vec::new(),
        fp: None,
        pre_fp: None,
        mpm_buf: None,
        bits_rank: 0,
        iponly: false,
        like_iponly: false,
        flow_action: false,
        lua_tx: Vec::new(),
        frames: Vec::new(),
    };
    if matches!(r.action, Action::Log | Action::Sdrop) {
        return Err(unsupported(
            r.action.as_str(),
            format!("Snort action '{}'", r.action.as_str()),
        ));
    }
    let mut only_stream = matches!(r.header.protocol, Protocol::TcpStream);
    let mut no_stream = matches!(r.header.protocol, Protocol::TcpPkt);
    let (mut set_bits, mut read_bits) = (false, false);
    for o in &r.options {
        match o {
            Opt::Flow(f) => {
                if f.only_frag || f.no_frag {
                    return Err(unsupported("flow", "flow:only_frag/no_frag"));
                }
                sig.flow.to_server = f.to_server;
                sig.flow.to_client = f.to_client;
                sig.flow.established = f.established;
                sig.flow.not_established = f.not_established;
                sig.flow.needs_flow =
                    f.to_server || f.to_client || f.established || f.not_established;
                only_stream |= f.only_stream;
                no_stream |= f.no_stream;
            }
            Opt::Flowbits(fb) => match fb.cmd {
                BitsCmd::NoAlert => sig.noalert = true,
                BitsCmd::IsSet | BitsCmd::IsNotSet => {
                    read_bits = true;
                    sig.bits_cond.push(BitsCond {
                        set: fb.cmd == BitsCmd::IsSet,
                        all: fb.all || fb.names.len() == 1,
                        bits: fb.names.iter().map(|n| bits.id(n)).collect(),
                    });
                }
                BitsCmd::Set | BitsCmd::Unset | BitsCmd::Toggle => {
                    set_bits = true;
                    for n in &fb.names {
                        let id = bits.id(n);
                        sig.bits_act.push(match fb.cmd {
                            BitsCmd::Set => BitsAct::Set(id),
                            BitsCmd::Unset => BitsAct::Unset(id),
                            _ => BitsAct::Toggle(id),
                        });
                    }
                }
            },
            Opt::Dsize(c) => {
                no_stream = true;
                sig.pkt.push(PktOpt::Dsize(*c));
            }
            Opt::Flags(f) => sig.pkt.push(PktOpt::Flags(*f)),
            Opt::Ttl(c) => sig.pkt.push(PktOpt::Ttl(*c)),
            Opt::Itype(c) => sig.pkt.push(PktOpt::Itype(*c)),
            Opt::Icode(c) => sig.pkt.push(PktOpt::Icode(*c)),
            Opt::IcmpId(v) => sig.pkt.push(PktOpt::IcmpId(*v)),
            Opt::IcmpSeq(v) => sig.pkt.push(PktOpt::IcmpSeq(*v)),
            Opt::Seq(v) => sig.pkt.push(PktOpt::Seq(*v)),
            Opt::Ack(v) => sig.pkt.push(PktOpt::Ack(*v)),
            Opt::Window { negated, size } => sig.pkt.push(PktOpt::Window {
                negated: *negated,
                size: *size,
            }),
            Opt::IpId(v) => sig.pkt.push(PktOpt::IpId(*v)),
            Opt::Tos { negated, value } => sig.pkt.push(PktOpt::Tos {
                negated: *negated,
                value: *value,
            }),
            Opt::IpProto { op, proto } => sig.pkt.push(crate::ip_proto_opt::compile(
                r.header.protocol,
                *op,
                *proto,
            )?),
            Opt::SameIp => sig.pkt.push(PktOpt::SameIp),
            Opt::Threshold(t) | Opt::DetectionFilter(t) => {
                if t.kind == Some(rules::ThresholdType::Backoff) {
                    return Err(unsupported("threshold", "threshold type backoff"));
                }
                if sig.threshold.is_some() {
                    return Err(unsupported(
                        "threshold",
                        "threshold and detection_filter together",
                    ));
                }
                sig.threshold = Some(*t);
            }
            Opt::AppLayerProtocol {
                negated,
                proto,
                mode,
            } => {
                if mode.is_some() {
                    return Err(unsupported(
                        "app-layer-protocol",
                        "app-layer-protocol with a mode",
                    ));
                }
                let (p, only) =
                    match proto {
                        AppLayerProto::Known(RuleApp::Failed) => (app::AppProto::Failed, None),
                        // Suricata 7.0.10 refuses the name (found by the differential
                        // harness's `flowkw` family).
                        AppLayerProto::Unknown => return Err(failed(
                            "app-layer-protocol",
                            "app-layer-protocol keyword supplied with unknown protocol \"unknown\"",
                        )),
                        AppLayerProto::Known(a) => match app::registry::rule_name(a.name()) {
                            Some((n, _)) => (n.proto, n.only),
                            None => {
                                return Err(unsupported(
                                    "app-layer-protocol",
                                    format!(
                                    "app-layer-protocol {}: protocol not detected by the app layer",
                                    a.name()
                                ),
                                ))
                            }
                        },
                    };
                sig.alp.push(AlpC {
                    negated: *negated,
                    proto: p,
                    only,
                });
            }
            Opt::Tag(_) => {} // acted on after the alert (`tag.rs`)
            Opt::NoAlert => sig.noalert = true,
            Opt::Xbits { cmd, name, rest } => {
                crate::xbits::compile(&mut sig, *cmd, name, rest, (&mut set_bits, &mut read_bits))?
            }
            Opt::Flowint { name, op, value } => {
                sig.flowint
                    .push(crate::flowint::compile(name, op, value.as_deref())?)
            }
            Opt::IpOpts(v) => sig.pkt.push(PktOpt::Hdr(crate::packet_opts::ipopts(v)?)),
            Opt::Fragbits(v) => sig.pkt.push(PktOpt::Hdr(crate::packet_opts::fragbits(v)?)),
            Opt::Fragoffset(v) => sig
                .pkt
                .push(PktOpt::Hdr(crate::packet_opts::fragoffset(v)?)),
            Opt::StreamSize { side, op, size } => sig.pkt.push(PktOpt::State(
                crate::flowstate::stream_size(side, op, *size)?,
            )),
            Opt::AppLayerEvent(v) => sig.tx_opts.push(crate::events::app_layer(v)?),
            Opt::SslState(_) => return Err(unsupported("ssl_state", "ssl_state")),
            Opt::TlsVersion(_) => {
                return Err(unsupported("tls.version", "tls.version / ssl_version"))
            }
            Opt::App(a) => sig.tx_opts.push(a.clone()),
            Opt::Intel(o) => sig.pkt.push(PktOpt::Intel(
                crate::lists::IntelC::compile(o, &opts.lists).map_err(|(u, m)| Refusal {
                    unsupported: u,
                    keyword: o.keyword().into(),
                    message: m,
                })?,
            )),
            Opt::Keyword { name, value } if *name == crate::bypass::NAME => {
                crate::bypass::compile(value.as_deref(), &r.options)?
            }
            Opt::Keyword { name, value } if crate::keyword_opts::handles(name) => {
                crate::keyword_opts::compile(name, value.as_deref(), &mut sig)?
            }
            Opt::Keyword { name, .. } => return Err(unsupported(*name, format!("keyword {name}"))),
            Opt::Lua(l) => crate::lua::add(&mut sig, l, &opts.lua, lr.file.as_deref())?,
        }
    }
    sig.bits_rank = match (set_bits, read_bits) {
        (true, false) => 3,
        (true, true) => 2,
        (false, true) => 1,
        _ => 0,
    };
    // Buffers.
    let mut app_dirs: Option<app::Direction> = None;
    // A buffer or keyword `flow:to_client` refuses (see `crate::app_dir`).
    let mut request_only = false;
    // A buffer `flow:to_server` refuses (see `crate::app_dir::suricata_side`).
    let mut response_only = false;
    crate::tls_content::check(&r.buffers)?;
    for bm in r.buffers.iter().filter(|b| b.buffer != Buffer::Base64Data) {
        crate::xform_check::check(bm)?;
        if bm.buffer == Buffer::Payload {
            if !bm.transforms.is_empty() {
                return Err(unsupported("pkt_data", "transforms on the packet payload"));
            }
            if sig.payload.is_some() {
                return Err(unsupported(
                    "pkt_data",
                    "payload matches split in two lists",
                ));
            }
            sig.payload = Some(program(&bm.matches, &mut vars, false)?);
            continue;
        }
        if let Buffer::Frame(t) = bm.buffer {
            let prog = program(&bm.matches, &mut vars, false)?;
            crate::frames::add(&mut sig, t, bm, prog)?;
            continue;
        }
        if let Some(hb) = crate::hdr_buf::HdrBuf::of(bm.buffer) {
            let xf = bm.transforms.iter().map(crate::transform::compile);
            let xf = xf.collect::<Result<Vec<_>, _>>()?;
            let prog = program(&bm.matches, &mut vars, false)?;
            sig.pkt
                .push(PktOpt::HdrBuf(Box::new(crate::hdr_buf::HdrProg::new(
                    hb, xf, prog,
                ))));
            continue;
        }
        let Some(ab) = app_buf(bm.buffer) else {
            return Err(unsupported(
                bm.buffer.name(),
                format!("buffer {}", bm.buffer.name()),
            ));
        };
        crate::host_case::check(bm)?;
        let ab = crate::proto_buffer::resolve(ab, app_proto, sig.app_proto);
        let transforms = bm
            .transforms
            .iter()
            .map(crate::transform::compile)
            .collect::<Result<Vec<_>, _>>()?;
        let prog = program(&bm.matches, &mut vars, ab.def().uri)?;
        if let Some(d) = ab.direction() {
            match app_dirs {
                Some(x) if x != d => return Err(crate::app_dir::conflicting(bm.buffer.name())),
                _ => app_dirs = Some(d),
            }
            request_only |= crate::app_dir::request_only(bm.buffer.name(), d);
        }
        match crate::app_dir::suricata_side(bm.buffer.name()) {
            Some(app::Direction::ToServer) => request_only = true,
            Some(app::Direction::ToClient) => response_only = true,
            None => {}
        }
        match sig.app_proto {
            Some(p) if p != ab.proto() => {
                return Err(unsupported(
                    bm.buffer.name(),
                    "buffers of two application protocols",
                ))
            }
            _ => sig.app_proto = Some(ab.proto()),
        }
        sig.app.push(AppProg {
            buf: ab,
            transforms,
            prog,
        });
    }
    // Protocol keywords of one direction (`mqtt.qos` to the server ...) count as its
    // buffers do.
    for o in &sig.tx_opts {
        if let Some(d) =
            app::mqtt::option_direction(o.name).or_else(|| crate::app_dir::option_side(o.name))
        {
            match app_dirs {
                Some(x) if x != d => return Err(crate::app_dir::conflicting(o.name)),
                _ => app_dirs = Some(d),
            }
            request_only |= d == app::Direction::ToServer;
        }
    }
    tx_opts_proto(&mut sig, app_proto)?;
    sig.files = crate::files::compile(&sig.tx_opts, lr.file.as_deref())?;
    if let Some(hp) = app_proto.take() {
        match sig.app_proto {
            // `file.data` also names the files of SMTP, SMB, FTP, ...: only the protocols
            // whose registry line declares a file buffer extract them (today HTTP).
            Some(p)
                if p != hp
                    && !app::registry::has_files(hp)
                    && sig.app.iter().any(|a| a.buf.def().file) =>
            {
                return Err(unsupported(
                    "file.data",
                    format!("file.data of {}: only HTTP files are extracted", hp.name()),
                ))
            }
            // `alert smb` with `dcerpc.stub_data`: the calls over SMB's named pipes.
            Some(app::AppProto::Dcerpc) if hp == app::AppProto::Smb => sig.app_proto = Some(hp),
            Some(p) if p != hp => {
                return Err(failed("protocol", "header protocol and buffers disagree"))
            }
            _ => sig.app_proto = Some(hp),
        }
    }
    if sig.is_tx() {
        sig.app_dir = if sig.flow.to_client {
            app::Direction::ToClient
        } else if sig.flow.to_server {
            app::Direction::ToServer
        } else {
            app_dirs.unwrap_or(app::Direction::ToServer)
        };
        sig.app_both = !sig.flow.to_client && !sig.flow.to_server && app_dirs.is_none();
        if sig.flow.to_server && app_dirs == Some(app::Direction::ToClient) {
            return Err(failed("flow", "to_server rule with response buffers"));
        }
        if (sig.flow.to_client && request_only) || (sig.flow.to_server && response_only) {
            return Err(crate::app_dir::conflicting("flow"));
        }
    }
    let tcp_capable =
        matches!(proto, ProtoM::Ip(_) | ProtoM::L4(ip_proto::TCP)) || sig.app_proto.is_some();
    crate::only_stream::check(&sig, only_stream)?;
    sig.payload_mode = if only_stream && no_stream {
        return Err(failed("flow", "only_stream and no_stream / dsize together"));
    } else if only_stream {
        PayloadMode::Stream
    } else if no_stream || !tcp_capable || crate::asn1::in_payload(r) {
        PayloadMode::Packet
    } else if sig
        .payload
        .as_ref()
        .is_some_and(|p| p.has_anchored_content())
    {
        PayloadMode::BothAndPacket
    } else {
        PayloadMode::Both
    };
    sig.payload_mode = crate::pkt_only::settle(sig.payload_mode, r);
    sig.fp = crate::fastpat::select(r, sig.is_tx()).filter(|_| sig.frames.is_empty());
    if sig.fp.is_none() && sig.is_tx() && sig.frames.is_empty() {
        sig.pre_fp = crate::fastpat::select_transformed(r);
    }
    for fp in [&mut sig.fp, &mut sig.pre_fp] {
        if let Some((Slot::App(b), _, _)) = fp {
            *b = crate::proto_buffer::resolve(*b, sig.app_proto, None);
        }
    }
    sig.mpm_buf = crate::mpm_blind::fast_pattern_buffer(r)
        .and_then(app_buf)
        .map(|b| crate::proto_buffer::resolve(b, sig.app_proto, None));
    // IP-only (Suricata's SignatureIsIPOnly): no buffers, no packet options, no `flow`
    // keyword (not even `flow:stateless`), only `flowbits:set`; then no negated address
    // (crate::iponly). Matched on the first packet of each direction.
    sig.flow_action = sig.payload.is_none()
        && sig.frames.is_empty()
        && !sig.is_tx()
        && sig.pkt.is_empty()
        && sig.bits_cond.is_empty()
        && sig.xbits.is_empty()
        && sig.flowint.is_empty()
        && sig.alp.is_empty()
        && !r.options.iter().any(|o| matches!(o, Opt::Flow(_)));
    sig.iponly = sig.payload.is_none()
        && !r.options.iter().any(|o| matches!(o, Opt::Flow(_)))
        && !sig.is_tx()
        && sig.pkt.iter().all(crate::iponly::compatible)
        && sig.bits_cond.is_empty()
        && sig.bits_act.iter().all(|a| matches!(a, BitsAct::Set(_)))
        // Every `xbits`/`hostbits` command leaves the rule IP-only (see crate::iponly);
        // `flowvar`/`pktvar` do not.
        && sig.vars.is_empty()
        && sig.flowint.is_empty()
        && sig.alp.is_empty()
        && sig.app_proto.is_none()
        && !sig.flow.needs_flow
        && !no_stream;
    crate::iponly::settle(&mut sig, lr)?;
    Ok(sig)
}
