//! Which rules Suricata 7.0.10 runs as IP-only rules (checked on the first packet of
//! each flow direction only), beyond the options (`sig.rs` decides the rest): the
//! packet options must be IP-only compatible (`ip_proto`, `iprep`; of the bits only
//! `flowbits:set`, and `xbits`/`hostbits` with every command and track: measured on
//! Suricata 7.0.10, such a rule alerts on the first packet of each direction only,
//! tests/parity/difftest/fixed/dt-51-vars-43; `flowvar`/`pktvar` are not,
//! tests/parity/difftest/fixed/dt-54-vars-489), and no address may
//! hold a negation (`!x`, also through a variable such as `$EXTERNAL_NET`): such a rule
//! is checked on every packet. Ports do not matter: `alert tcp A any -> B 80` is IP-only
//! (Suricata's engine analysis says `ip_only`, and it alerts once per flow direction;
//! tests/parity/cases/iponly-ports-proto). And an IPv6
//! `a-b` range is refused in a rule that is IP-only by its options and has no negated
//! address (whatever its ports), as Suricata's IP-only address parser refuses it
//! ("address parsing error"); elsewhere the range is accepted.

use crate::sig::{PktOpt, Refusal, Sig};

/// Whether a packet option leaves its rule IP-only (Suricata's `SIGMATCH_IPONLY_COMPAT`):
/// `ip_proto` and `iprep` do; `geoip` and every other packet keyword do not.
pub(crate) fn compatible(o: &PktOpt) -> bool {
    match o {
        PktOpt::IpProto { .. } => true,
        PktOpt::Intel(i) => i.ip_only(),
        _ => false,
    }
}

/// Settles `sig.iponly`, given as what the rule's options allow, for `lr`'s header.
pub(crate) fn settle(sig: &mut Sig, lr: &rules::LoadedRule) -> Result<(), Refusal> {
    let u = lr.addr_use;
    if sig.iponly && u.ipv6_range && !u.negation {
        return Err(Refusal {
            unsupported: false,
            keyword: "address".into(),
            message: "address parsing error: an IPv6 range in an IP-only rule \
                      (Suricata 7.0.10 refuses it)"
                .into(),
        });
    }
    // `config` makes the rule an application-layer rule in Suricata: never IP-only.
    let app = crate::log_config::of_rule(&lr.rule.options);
    sig.like_iponly = sig.iponly && u.negation && !app;
    sig.iponly = sig.iponly && !u.negation && !app;
    Ok(())
}

#[cfg(test)]
mod tests {
    /// Whether the one rule `rule` is IP-only; its diagnostics when it is refused.
    fn iponly(rule: &str) -> Result<bool, String> {
        let vars = rules::Vars::suricata_default();
        let (set, _) = rules::RuleSet::load_str(rule, None, &vars, &Default::default());
        let (d, diags) =
            crate::Detector::build(&set.rules, &crate::DetectOptions::default(), &vars);
        if !diags.is_empty() {
            return Err(format!("{diags:?}"));
        }
        Ok(d.sigs()[0].iponly)
    }

    #[test]
    fn negations_are_not_iponly_ports_and_ip_proto_are() {
        assert_eq!(
            iponly("alert ip 10.0.0.1 any -> any any (sid:1;)"),
            Ok(true)
        );
        assert_eq!(
            iponly("alert ip !10.0.0.1 any -> any any (sid:1;)"),
            Ok(false)
        );
        assert_eq!(
            iponly("alert ip $EXTERNAL_NET any -> any any (sid:1;)"),
            Ok(false)
        );
        assert_eq!(iponly("alert udp any any -> any 53 (sid:1;)"), Ok(true));
        assert_eq!(
            iponly("alert tcp 10.0.0.1 1024: -> 10.0.0.2 [80,443] (sid:1;)"),
            Ok(true)
        );
        assert_eq!(
            iponly("alert ip any any -> any any (ip_proto:!6; sid:1;)"),
            Ok(true)
        );
        assert_eq!(
            iponly("alert ip any any -> any any (ip_proto:>5; sid:1;)"),
            Ok(true)
        );
        assert_eq!(
            iponly("alert ip any any -> any any (ttl:3; sid:1;)"),
            Ok(false)
        );
        assert_eq!(
            iponly("alert ip !10.0.0.1 any -> any any (ip_proto:6; sid:1;)"),
            Ok(false)
        );
    }

    #[test]
    fn xbits_and_hostbits_leave_a_rule_iponly_flowbits_tests_do_not() {
        for o in [
            "hostbits:isnotset,b,dst;",
            "hostbits:set,b,dst; hostbits:isset,b,dst;",
            "hostbits:toggle,b;",
            "xbits:unset,b,track ip_pair;",
            "xbits:set,b,track ip_src,expire 5; xbits:isnotset,b,track ip_src;",
            "xbits:isnotset,b,track ip_pair; flowbits:set,f;",
        ] {
            let r = format!("alert tcp 10.0.0.1 any -> 10.0.0.2 any ({o} sid:1;)");
            assert_eq!(iponly(&r), Ok(true), "{o}");
        }
        for o in [
            r#"flowvar:v,"abc";"#,
            r#"pktvar:v,"abc";"#,
            "xbits:isnotset,b,track ip_pair; flowbits:isnotset,f;",
            "hostbits:isnotset,b; ttl:<255;",
            "hostbits:isnotset,b; flow:established;",
        ] {
            let r = format!("alert tcp 10.0.0.1 any -> 10.0.0.2 any ({o} sid:1;)");
            assert_eq!(iponly(&r), Ok(false), "{o}");
        }
    }

    #[test]
    fn ipv6_ranges_are_refused_in_iponly_rules() {
        let r = "2001:db8::1-2001:db8::5";
        assert!(iponly(&format!("alert ip {r} any -> any any (sid:1;)")).is_err());
        assert!(iponly(&format!("alert tcp {r} any -> any 80 (sid:1;)")).is_err());
        assert!(iponly(&format!("alert ip any any -> [{r}] any (sid:1;)")).is_err());
        assert_eq!(
            iponly(&format!(
                "alert ip [{r},!2001:db8::3] any -> any any (sid:1;)"
            )),
            Ok(false)
        );
        assert_eq!(
            iponly(&format!(
                "alert ip {r} any -> any any (content:\"a\"; sid:1;)"
            )),
            Ok(false)
        );
        assert_eq!(
            iponly("alert ip 10.0.0.1-10.0.0.5 any -> any any (sid:1;)"),
            Ok(true)
        );
    }
}
