//! Which rules Suricata 7.0.10 runs as IP-only rules (checked on the first packet of
//! each flow direction only), beyond the options (`sig.rs` decides those): the ports
//! must be `any` and no address may hold a negation (`!x`, also through a variable
//! such as `$EXTERNAL_NET`): such a rule is checked on every packet. And an IPv6
//! `a-b` range is refused in a rule that is IP-only by its options and has no negated
//! address (whatever its ports), as Suricata's IP-only address parser refuses it
//! ("address parsing error"); elsewhere the range is accepted.

use crate::sig::{Refusal, Sig};

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
    sig.iponly = sig.iponly && !u.negation && sig.sports.is_any() && sig.dports.is_any();
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
    fn negations_and_ports_are_not_iponly() {
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
        assert_eq!(iponly("alert udp any any -> any 53 (sid:1;)"), Ok(false));
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
