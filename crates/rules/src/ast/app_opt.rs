//! Protocol keywords matched on a transaction ([`super::Opt::App`]).

use super::{AppProto, IntCmp, ModbusMatch};

/// A protocol keyword matched against a transaction, its value typed once here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppOpt {
    /// Keyword (canonical name: `dcerpc.opnum`, `nfs_procedure`, ...).
    pub name: &'static str,
    /// The protocols whose transactions it applies to (the keyword's own; a rule whose
    /// header names one of them uses that one, otherwise the first).
    pub protos: &'static [AppProto],
    /// `!` before the value.
    pub negated: bool,
    /// The value.
    pub value: AppValue,
}

/// The value of an [`AppOpt`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AppValue {
    /// No value (`ftpbounce`).
    Flag,
    /// Integer comparisons, any of which may hold (`dcerpc.opnum:1,3-5`, `krb5_msg_type:10`).
    Ints(Vec<IntCmp>),
    /// A word or string, unquoted (`nfs_procedure` names, `ssh.protoversion`, ...).
    Text(String),
    /// A DCERPC interface: UUID, optional version comparison, `any_frag`.
    Iface {
        /// The interface UUID in its wire (little-endian fields) byte order.
        uuid: [u8; 16],
        /// Version comparison (`<2`, `=1`, ...).
        version: Option<IntCmp>,
        /// Match on any fragment, not only the first.
        any_frag: bool,
    },
    /// Bits that must be set and bits that must be clear (`mqtt.flags:retain,!dup`),
    /// with the value as written, to print the rule back.
    Bits {
        /// Bits that must be set.
        set: u32,
        /// Bits that must be clear.
        clear: u32,
        /// The value as written.
        text: String,
    },
    /// A named value and a comparison (`ike.chosen_sa_attribute:alg_hash=2`).
    Named {
        /// The name (`alg_hash`, `sa_key_length`, ...).
        name: String,
        /// The comparison its value must pass.
        cmp: IntCmp,
    },
    /// The `modbus` keyword's function, access or unit condition.
    Modbus(ModbusMatch),
}
