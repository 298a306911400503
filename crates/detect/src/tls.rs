//! Transaction options that need the packet as well as the transaction:
//! `tls_cert_expired` and `tls_cert_valid` compare the server certificate's validity
//! with the packet's time, so they are asked of the TLS session as the
//! `tls_cert_notafter`/`tls_cert_notbefore` comparisons they amount to, on real
//! packets only (a flow-end pseudo packet carries the capture's last time, not the
//! flow's: Suricata raises neither there). Every other option goes to the
//! transaction as it is.

use crate::input::Input;
use app::{Direction, Transaction};
use rules::ast::IntCmp;
use rules::{AppOpt, AppValue};

/// Evaluates one transaction option for the packet of `input` going `dir`.
pub(crate) fn check(tx: &dyn Transaction, o: &AppOpt, dir: Direction, input: &Input<'_>) -> bool {
    let now = input.packet.ts.0 / 1_000_000_000;
    let real = input.packet_rules;
    let cmp = |name: &'static str, c: IntCmp| {
        tx.check(
            &AppOpt {
                name,
                protos: o.protos,
                negated: false,
                value: AppValue::Ints(vec![c]),
            },
            dir,
        )
    };
    match o.name {
        "tls_cert_expired" => real && cmp("tls_cert_notafter", IntCmp::Lt(now)),
        "tls_cert_valid" => {
            real && cmp("tls_cert_notbefore", IntCmp::Le(now))
                && cmp("tls_cert_notafter", IntCmp::Ge(now))
        }
        crate::events::APP_LAYER_EVENT => crate::events::app_layer_holds(o, tx, dir, input),
        _ => tx.check(o, dir),
    }
}
