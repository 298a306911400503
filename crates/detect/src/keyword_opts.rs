//! Keywords the rules crate keeps verbatim (`Opt::Keyword`) that the detector
//! evaluates: which ones, and compiling each into its packet condition.

use crate::sig::{PktOpt, Refusal, Sig};

/// Keywords compiled here.
const HANDLED: [&str; 16] = [
    "flow.age",
    "tcp.mss",
    "icmpv6.mtu",
    "l3_proto",
    "hostbits",
    "decode-event",
    "engine-event",
    "stream-event",
    "prefilter",
    "nfq_set_mark",
    "requires",
    "rpc",
    "alert",
    "flowvar",
    "pktvar",
    "config",
];

/// Whether `name` (canonical) is compiled by [`compile`].
pub(crate) fn handles(name: &str) -> bool {
    HANDLED.contains(&name)
        || crate::csum_opt::NAMES.contains(&name)
        || name == crate::tls_store::NAME
}

/// Compiles keyword `name` with its value into `sig`.
pub(crate) fn compile(name: &str, value: Option<&str>, sig: &mut Sig) -> Result<(), Refusal> {
    let opt = match name {
        // 7.0's `alert`: the rule alerts (again), undoing an earlier `noalert` and
        // making a pass rule log its matches; a later `noalert` wins.
        "alert" => {
            if let Some(v) = value {
                return Err(crate::sig::failed(
                    "alert",
                    format!("alert:{v}: takes no value"),
                ));
            }
            sig.noalert = false;
            return Ok(());
        }
        crate::tls_store::NAME => return crate::tls_store::compile(value, sig),
        "config" => return crate::log_config::compile(value),
        "flowvar" | "pktvar" => {
            sig.vars.push(crate::vars::cond(name, value)?);
            return Ok(());
        }
        "hostbits" => {
            let op = crate::xbits::hostbits(value)?;
            sig.xbits.push(op);
            return Ok(());
        }
        "flow.age" => PktOpt::State(crate::flowstate::flow_age(value)?),
        "rpc" => PktOpt::Hdr(crate::packet_opts::HdrOpt::Rpc(crate::rpc_opt::compile(
            value,
        )?)),
        "prefilter" | "nfq_set_mark" | "requires" => return crate::meta_opts::check(name, value),
        "decode-event" | "engine-event" | "stream-event" => {
            PktOpt::Hdr(crate::events::packet(name, value)?)
        }
        n if crate::csum_opt::NAMES.contains(&n) => PktOpt::Hdr(crate::packet_opts::HdrOpt::Csum(
            crate::csum_opt::compile(n, value)?,
        )),
        _ => PktOpt::Hdr(crate::packet_opts::keyword(name, value)?),
    };
    sig.pkt.push(opt);
    Ok(())
}
