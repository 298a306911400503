//! The value of the `modbus` keyword ([`super::AppValue::Modbus`]).

use super::IntCmp;

/// What a `modbus` keyword asks of a transaction's request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModbusMatch {
    /// `unit <value>`: the unit identifier.
    pub unit: Option<IntCmp>,
    /// The function or access condition (`Any` for `unit` alone).
    pub what: ModbusWhat,
}

/// The function or access part of a `modbus` keyword. Bit values are those of the
/// Modbus access types and function categories (`sawp-modbus`'s flags).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModbusWhat {
    /// No function or access condition.
    Any,
    /// `function N` (the function code), optionally `subfunction N`.
    Function {
        /// Function code.
        code: u8,
        /// Diagnostic sub-function.
        subfunction: Option<u16>,
    },
    /// `function [!]<assigned|unassigned|public|user|reserved|all>`.
    Category {
        /// `!`: none of the categories.
        negated: bool,
        /// Category bits: 1 public assigned, 2 public unassigned, 4 user-defined,
        /// 8 reserved.
        bits: u8,
    },
    /// `access <read|write> [table][, address <value>][, value <value>]`.
    Access {
        /// Access bits every one of which the request must have: 1 read, 2 write,
        /// and the table (4 discretes, 8 coils, 16 input, 32 holding).
        bits: u8,
        /// The addresses accessed (numbered from 1).
        address: Option<IntCmp>,
        /// The value written at the address (which is then one address, `Eq`).
        value: Option<IntCmp>,
    },
}

/// A `modbus` value as the keyword reads it back.
impl core::fmt::Display for ModbusMatch {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let mut sep = "";
        if let Some(u) = self.unit {
            write!(f, "unit {}", Range(u))?;
            sep = ", ";
        }
        match &self.what {
            ModbusWhat::Any => Ok(()),
            ModbusWhat::Function { code, subfunction } => {
                write!(f, "{sep}function {code}")?;
                match subfunction {
                    Some(s) => write!(f, ", subfunction {s}"),
                    None => Ok(()),
                }
            }
            ModbusWhat::Category { negated, bits } => {
                let name = match bits {
                    1 => "assigned",
                    2 => "unassigned",
                    3 => "public",
                    4 => "user",
                    8 => "reserved",
                    _ => "all",
                };
                write!(f, "{sep}function {}{name}", if *negated { "!" } else { "" })
            }
            ModbusWhat::Access {
                bits,
                address,
                value,
            } => {
                let kind = if bits & 1 != 0 { "read" } else { "write" };
                write!(f, "{sep}access {kind}")?;
                for (bit, t) in [
                    (4, "discretes"),
                    (8, "coils"),
                    (16, "input"),
                    (32, "holding"),
                ] {
                    if bits & bit != 0 {
                        write!(f, " {t}")?;
                    }
                }
                if let Some(a) = address {
                    write!(f, ", address {}", Range(*a))?;
                }
                if let Some(v) = value {
                    write!(f, ", value {}", Range(*v))?;
                }
                Ok(())
            }
        }
    }
}

/// A comparison in the `modbus` keyword's notation.
struct Range(IntCmp);

impl core::fmt::Display for Range {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.0 {
            IntCmp::Lt(n) => write!(f, "<{n}"),
            IntCmp::Gt(n) => write!(f, ">{n}"),
            IntCmp::Range(a, b) => write!(f, "{a}<>{b}"),
            c => write!(f, "{c}"),
        }
    }
}
