//! Flow and state options: `flow`, `flowbits`, `xbits`, `flowint`, `stream_size`,
//! `threshold`, `detection_filter`, `tag`, `noalert`, `app-layer-protocol` ...

use super::{verbatim, Ctx, Keyword, Kind, Value};
use crate::ast::{AppLayerMode, AppLayerProto, BitsCmd, Opt, Track};
use crate::diag::Reason;
use crate::parser::state::State;
use crate::values as v;

/// Flow and state keywords.
pub(super) const KEYWORDS: &[Keyword] = &[
    Keyword::new("flow", Value::Required, Kind::Option, flow)
        .once()
        .about(
            "direction and state of the flow (to_server, established ...)",
            "rules/flow-keywords.html#flow",
        ),
    Keyword::new("flowbits", Value::Required, Kind::Option, flowbits).about(
        "set, clear or test named bits on the flow",
        "rules/flow-keywords.html#flowbits",
    ),
    Keyword::new("xbits", Value::Required, Kind::Option, xbits).about(
        "set, clear or test named bits on hosts, IP pairs or flows, with expiry",
        "rules/xbits.html",
    ),
    Keyword::new("flowint", Value::Required, Kind::Option, flowint).about(
        "keep and compare integer counters on the flow",
        "rules/flow-keywords.html#flowint",
    ),
    Keyword::new("stream_size", Value::Required, Kind::Option, stream_size).about(
        "compare the bytes seen on the TCP stream",
        "rules/flow-keywords.html#stream-size",
    ),
    Keyword::new("threshold", Value::Required, Kind::Option, threshold)
        .once()
        .about(
            "limit or require a number of alerts per time window",
            "rules/thresholding.html#threshold",
        ),
    Keyword::new("detection_filter", Value::Required, Kind::Option, threshold)
        .once()
        .about(
            "alert only after a rate of matches is exceeded",
            "rules/thresholding.html#detection-filter",
        ),
    Keyword::new("tag", Value::Required, Kind::Option, tag)
        .about("log the packets that follow an alert", "rules/tag.html"),
    Keyword::new("noalert", Value::None, Kind::Option, noalert).about(
        "match without raising an alert (e.g. only set flowbits)",
        "rules/noalert.html",
    ),
    verbatim("alert").about(
        "raise an alert after all (undoes noalert, makes a pass rule log its match)",
        "rules/noalert.html",
    ),
    Keyword::new(
        "app-layer-protocol",
        Value::Required,
        Kind::Option,
        app_layer_protocol,
    )
    .about(
        "match the application protocol detected on the flow",
        "rules/app-layer.html#app-layer-protocol",
    ),
    Keyword::new(
        "app-layer-event",
        Value::Required,
        Kind::Option,
        app_layer_event,
    )
    .about(
        "match an event raised by an application-layer parser",
        "rules/app-layer.html#app-layer-event",
    ),
    verbatim("hostbits").about(
        "set, clear or test named bits on a host",
        "rules/xbits.html",
    ),
    verbatim("flowvar").about(
        "match or store a variable on the flow",
        "rules/flow-keywords.html",
    ),
    verbatim("pktvar").about(
        "match or store a variable on the packet",
        "rules/flow-keywords.html",
    ),
    verbatim("flow.age").about(
        "compare the age of the flow in seconds",
        "rules/flow-keywords.html#flow-age",
    ),
    verbatim("flow.pkts").about(
        "compare the number of packets of the flow",
        "rules/flow-keywords.html",
    ),
    verbatim("flow.bytes").about(
        "compare the number of bytes of the flow",
        "rules/flow-keywords.html",
    ),
    verbatim("bypass").about(
        "stop inspecting the flow after this match",
        "rules/bypass-keyword.html",
    ),
    Keyword::new("prefilter", Value::Optional, Kind::Verbatim, prefilter).about(
        "use this keyword as the rule's prefilter",
        "rules/prefilter-keywords.html#prefilter",
    ),
    verbatim("nfq_set_mark").about(
        "set the netfilter mark of a matching packet (IPS with NFQUEUE only)",
        "rules/nfq-keywords.html#nfq-set-mark",
    ),
    verbatim("requires").about(
        "load the rule only when the engine has a feature or version",
        "rules/meta-keywords.html#requires",
    ),
    Keyword::new(
        "config",
        Value::Required,
        Kind::Option,
        crate::log_config::keyword,
    )
    .about(
        "do not log the transaction the rule matched (`logging disable`)",
        "rules/config.html",
    ),
    Keyword::new(
        "frame",
        Value::Required,
        Kind::Option,
        crate::frames::keyword,
    )
    .own_check()
    .about(
        "inspect the bytes of an application-layer frame (`frame:tls.pdu`)",
        "rules/intro.html",
    ),
    verbatim("transform").about(
        "apply a transform to the current buffer",
        "rules/transforms.html",
    ),
    verbatim("absent").about(
        "match when the buffer is absent",
        "rules/payload-keywords.html",
    ),
];

/// `prefilter` marks the match before it: Suricata 7.0.10 refuses it first in a rule
/// ("prefilter needs preceding match"); the value is checked by the detector.
fn prefilter(st: &mut State, c: &Ctx<'_>) {
    if st.last_match.is_none() && st.options.is_empty() {
        st.err(
            c.o.name_off,
            Reason::Semantic,
            c.kw,
            "prefilter needs preceding match",
        );
        return;
    }
    st.options.push(Opt::Keyword {
        name: c.def.name,
        value: c.o.value.map(str::to_owned),
    });
}

fn flow(st: &mut State, c: &Ctx<'_>) {
    let kw = c.kw;
    let o = c.o;
    let val = c.val;
    let f = tryv!(st, o, kw, v::flow(val));
    if st.options.iter().any(|x| matches!(x, Opt::Flow(_))) {
        st.err(o.name_off, Reason::Semantic, kw, "flow given twice");
        return;
    }
    st.options.push(Opt::Flow(f));
}

fn flowbits(st: &mut State, c: &Ctx<'_>) {
    let kw = c.kw;
    let o = c.o;
    let val = c.val;
    let f = tryv!(st, o, kw, v::flowbits(val));
    st.options.push(Opt::Flowbits(f));
}

fn xbits(st: &mut State, c: &Ctx<'_>) {
    let kw = c.kw;
    let o = c.o;
    let val = c.val;
    let off = c.o.value_off;
    let p: Vec<&str> = val.splitn(3, ',').map(str::trim).collect();
    let cmd = tryv!(st, o, kw, v::bits_cmd(p[0]));
    if p.len() < 2 || p[1].is_empty() {
        st.err(
            off,
            Reason::InvalidValue,
            kw,
            "xbits needs a command and a name",
        );
        return;
    }
    let rest = p.get(2).copied().unwrap_or("").to_owned();
    if cmd != BitsCmd::NoAlert && !rest.contains("track") {
        st.err(
            off,
            Reason::InvalidValue,
            kw,
            "xbits needs 'track ip_src|ip_dst|ip_pair'",
        );
        return;
    }
    st.options.push(Opt::Xbits {
        cmd,
        name: p[1].to_owned(),
        rest,
    });
}

fn flowint(st: &mut State, c: &Ctx<'_>) {
    let kw = c.kw;
    let val = c.val;
    let off = c.o.value_off;
    let p = v::csv(val);
    let ops = [
        "=", "+", "-", "==", "!=", "<", ">", "<=", ">=", "isset", "notset", "isnotset",
    ];
    if p.len() < 2 || p[0].is_empty() || !ops.contains(&p[1]) {
        st.err(
            off,
            Reason::InvalidValue,
            kw,
            "flowint needs name,operator[,value]",
        );
        return;
    }
    let needs = !matches!(p[1], "isset" | "notset" | "isnotset");
    if needs != (p.len() == 3) || p.len() > 3 {
        st.err(
            off,
            Reason::InvalidValue,
            kw,
            format!("flowint: operator '{}' arity", p[1]),
        );
        return;
    }
    st.options.push(Opt::Flowint {
        name: p[0].to_owned(),
        op: p[1].to_owned(),
        value: p.get(2).map(|s| s.to_string()),
    });
}

fn stream_size(st: &mut State, c: &Ctx<'_>) {
    let kw = c.kw;
    let o = c.o;
    let val = c.val;
    let off = c.o.value_off;
    let p = v::csv(val);
    if p.len() != 3 || !["server", "client", "both", "either"].contains(&p[0]) {
        st.err(
            off,
            Reason::InvalidValue,
            kw,
            "stream_size needs server|client|both|either,op,size",
        );
        return;
    }
    if !["<", ">", "=", "!=", "<=", ">="].contains(&p[1]) {
        st.err(
            off,
            Reason::InvalidValue,
            kw,
            format!("stream_size: invalid operator '{}'", p[1]),
        );
        return;
    }
    let size = tryv!(st, o, kw, v::uint(p[2], u32::MAX as u64));
    st.options.push(Opt::StreamSize {
        side: p[0].to_owned(),
        op: p[1].to_owned(),
        size,
    });
}

fn threshold(st: &mut State, c: &Ctx<'_>) {
    let kw = c.kw;
    let o = c.o;
    let val = c.val;
    let t = tryv!(st, o, kw, v::threshold(val, kw == "threshold"));
    if kw == "detection_filter" && !matches!(t.track, Track::BySrc | Track::ByDst) {
        // Suricata 7.0.10 reads `track by_src|by_dst` only (tests/parity/difftest/fixed/dt-1-119).
        st.err(
            o.value_off,
            Reason::InvalidValue,
            kw,
            "detection_filter tracks by_src or by_dst",
        );
        return;
    }
    if st
        .options
        .iter()
        .any(|x| matches!(x, Opt::Threshold(_) | Opt::DetectionFilter(_)))
    {
        st.err(
            o.name_off,
            Reason::Semantic,
            kw,
            "only one threshold or detection_filter per rule",
        );
        return;
    }
    st.options.push(if kw == "threshold" {
        Opt::Threshold(t)
    } else {
        Opt::DetectionFilter(t)
    });
}

fn tag(st: &mut State, c: &Ctx<'_>) {
    match crate::tag::Tag::parse(c.val) {
        Ok(t) => st.options.push(Opt::Tag(t)),
        Err(e) => st.err(c.o.value_off, Reason::InvalidValue, c.kw, e),
    }
}

fn noalert(st: &mut State, _: &Ctx<'_>) {
    st.options.push(Opt::NoAlert);
}

fn app_layer_protocol(st: &mut State, c: &Ctx<'_>) {
    let kw = c.kw;
    let val = c.val;
    let off = c.o.value_off;
    let (p, mode) = match val.split_once(',') {
        Some((a, b)) => (a.trim(), Some(b.trim().to_owned())),
        None => (val, None),
    };
    let (negated, name) = match p.strip_prefix('!') {
        Some(r) => (true, r.trim()),
        None => (false, p),
    };
    let Some(proto) = AppLayerProto::parse(name) else {
        st.err(
            off,
            Reason::InvalidValue,
            kw,
            format!("unknown app-layer protocol '{name}'"),
        );
        return;
    };
    let mode = match mode {
        None => None,
        Some(m) => match AppLayerMode::parse(&m) {
            Some(m) => Some(m),
            None => {
                st.err(
                    off,
                    Reason::InvalidValue,
                    kw,
                    format!("unknown app-layer-protocol mode '{m}'"),
                );
                return;
            }
        },
    };
    st.options.push(Opt::AppLayerProtocol {
        negated,
        proto,
        mode,
    });
}

fn app_layer_event(st: &mut State, c: &Ctx<'_>) {
    let val = c.val;
    st.options.push(Opt::AppLayerEvent(val.to_owned()));
}
