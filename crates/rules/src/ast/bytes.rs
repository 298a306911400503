//! `byte_test`, `byte_jump`, `byte_extract`, `byte_math` and `isdataat`: their options,
//! typed at parse time (byte order, text base, operators, flags).

use super::Num;

/// Byte order for `byte_*`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Endian {
    /// Default (big endian).
    #[default]
    Default,
    /// `big`
    Big,
    /// `little`
    Little,
    /// `dce`: DCE/RPC byte order.
    Dce,
}

/// `string,<base>` for `byte_*`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NumBase {
    /// `hex`
    Hex,
    /// `dec`
    Dec,
    /// `oct`
    Oct,
    /// Two bases given (`dec,hex`): Suricata ORs their radixes (10|16 = 26) and reads
    /// the text in that radix (`crate::byte_opts`).
    Radix(u8),
}

impl NumBase {
    /// Keyword.
    pub fn as_str(self) -> &'static str {
        match self {
            NumBase::Hex => "hex",
            NumBase::Dec => "dec",
            NumBase::Oct => "oct",
            NumBase::Radix(24) => "oct,hex",
            NumBase::Radix(_) => "dec,hex",
        }
    }
}

/// Comparison operator of `byte_test`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ByteOp {
    /// `<`
    Lt,
    /// `>`
    Gt,
    /// `=`
    Eq,
    /// `<=`
    Le,
    /// `>=`
    Ge,
    /// `&`
    And,
    /// `^`
    Xor,
}

impl ByteOp {
    /// Operator text.
    pub fn as_str(self) -> &'static str {
        match self {
            ByteOp::Lt => "<",
            ByteOp::Gt => ">",
            ByteOp::Eq => "=",
            ByteOp::Le => "<=",
            ByteOp::Ge => ">=",
            ByteOp::And => "&",
            ByteOp::Xor => "^",
        }
    }
}

/// Operator of `byte_math`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MathOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `<<`
    Shl,
    /// `>>`
    Shr,
}

impl MathOp {
    /// Parses an operator as written in the rule.
    pub fn parse(s: &str) -> Option<MathOp> {
        Some(match s {
            "+" => MathOp::Add,
            "-" => MathOp::Sub,
            "*" => MathOp::Mul,
            "/" => MathOp::Div,
            "<<" => MathOp::Shl,
            ">>" => MathOp::Shr,
            _ => return None,
        })
    }

    /// Operator text.
    pub fn as_str(self) -> &'static str {
        match self {
            MathOp::Add => "+",
            MathOp::Sub => "-",
            MathOp::Mul => "*",
            MathOp::Div => "/",
            MathOp::Shl => "<<",
            MathOp::Shr => ">>",
        }
    }
}

/// Shared `byte_*` options.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ByteCommon {
    /// `relative`
    pub relative: bool,
    /// Byte order.
    pub endian: Endian,
    /// `string,<base>`: the bytes are a number in text.
    pub string: Option<NumBase>,
    /// `bitmask <n>`
    pub bitmask: Option<u32>,
}

/// `byte_test`
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ByteTest {
    /// Bytes to read (1..=10, or up to 23 with `string`).
    pub nbytes: Num,
    /// `!` before the operator.
    pub negated: bool,
    /// Operator.
    pub op: ByteOp,
    /// Value compared against.
    pub value: Num,
    /// Offset.
    pub offset: Num,
    /// Common flags.
    pub common: ByteCommon,
}

/// `byte_jump`
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ByteJump {
    /// Bytes to read.
    pub nbytes: Num,
    /// Offset.
    pub offset: Num,
    /// Common flags.
    pub common: ByteCommon,
    /// `multiplier <n>`
    pub multiplier: Option<u32>,
    /// `align`
    pub align: bool,
    /// `from_beginning`
    pub from_beginning: bool,
    /// `from_end`
    pub from_end: bool,
    /// `post_offset <n>`
    pub post_offset: Option<i64>,
}

/// `byte_extract`
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ByteExtract {
    /// Bytes to read.
    pub nbytes: u32,
    /// Offset.
    pub offset: i64,
    /// Variable name.
    pub name: String,
    /// Common flags.
    pub common: ByteCommon,
    /// `multiplier <n>`
    pub multiplier: Option<u32>,
    /// `align <n>`
    pub align: Option<u32>,
}

/// `byte_math`
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ByteMath {
    /// `bytes`
    pub nbytes: Num,
    /// `offset`
    pub offset: Num,
    /// `oper`.
    pub oper: MathOp,
    /// `rvalue`
    pub rvalue: Num,
    /// `result` variable.
    pub result: String,
    /// Common flags.
    pub common: ByteCommon,
}

/// `isdataat`
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IsDataAt {
    /// `!`
    pub negated: bool,
    /// Position.
    pub offset: Num,
    /// `relative`
    pub relative: bool,
    /// `rawbytes`
    pub rawbytes: bool,
}
