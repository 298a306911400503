//! Compiling the match list of one buffer (or the payload) into a [`Program`]: contents,
//! `pcre`, the `byte_*` keywords and the other per-buffer steps, with the variables
//! `byte_extract`/`byte_math` define ([`Vars`]).

use rules::{Content, Endian, Match, Num, NumBase, Transform};

use crate::bytes::Read;
use crate::program::MAX_VARS;
use crate::program::{ByteRead, ContentC, NumC, PcreC, Program, Step};
use crate::sig::{failed, unsupported, Refusal};

/// The byte variables a rule defines and what its buffer programs compile under.
pub(crate) struct Vars {
    pub(crate) names: Vec<String>,
    /// The limits `pcre`s compile under.
    pub(crate) pcre: crate::pcre::PcreLimits,
    /// The rule's `base64_data` matches, compiled at its `base64_decode`.
    pub(crate) b64: Option<Vec<Match>>,
    /// The sets `dataset`/`datarep` name, and the rule's file (their `load` base).
    pub(crate) lists: (crate::lists::Lists, Option<std::sync::Arc<std::path::Path>>),
}

impl Vars {
    fn define(&mut self, name: &str) -> Result<u8, Refusal> {
        if let Some(i) = self.names.iter().position(|n| n == name) {
            return Ok(i as u8);
        }
        if self.names.len() >= MAX_VARS {
            return Err(failed(
                "byte_extract",
                format!("more than {MAX_VARS} byte variables"),
            ));
        }
        self.names.push(name.to_owned());
        Ok((self.names.len() - 1) as u8)
    }

    fn num(&self, n: &Num, kw: &str) -> Result<NumC, Refusal> {
        match n {
            Num::Lit(v) => Ok(NumC::Lit(*v)),
            Num::Var(name) => match self.names.iter().position(|x| x == name) {
                Some(i) => Ok(NumC::Var(i as u8)),
                None => Err(failed(
                    kw,
                    format!(
                        "variable '{name}' is not defined by an earlier byte_extract/byte_math"
                    ),
                )),
            },
        }
    }
}

fn read_how(c: &rules::ByteCommon) -> Result<Read, Refusal> {
    Ok(match (c.string, c.endian) {
        (_, Endian::Dce) => Read::Dce,
        (Some(NumBase::Hex), _) => Read::Text(16),
        (Some(NumBase::Dec), _) => Read::Text(10),
        (Some(NumBase::Oct), _) => Read::Text(8),
        (Some(NumBase::Radix(r)), _) => Read::Text(r as u32),
        (None, Endian::Little) => Read::Little,
        (None, _) => Read::Big,
    })
}

pub(crate) fn program(ms: &[Match], vars: &mut Vars, uri: bool) -> Result<Program, Refusal> {
    let mut steps = Vec::with_capacity(ms.len());
    for m in ms {
        steps.push(match m {
            Match::Content(c) => Step::Content(content(c, vars)?),
            Match::Pcre(p) => {
                let re =
                    crate::pcre::compile(&p.pattern, p.flags, Some(vars.pcre)).map_err(|e| {
                        if e.starts_with("pcre does not compile") {
                            failed("pcre", e)
                        } else {
                            unsupported("pcre", e)
                        }
                    })?;
                Step::Pcre(PcreC {
                    captures: crate::vars::captures(&re, &p.captures)?,
                    re,
                    source: std::sync::Arc::new((p.pattern.clone(), p.flags)),
                    negated: p.negated,
                    relative: p.is_relative(),
                    warned: Default::default(),
                })
            }
            Match::ByteTest(t) => Step::ByteTest {
                rd: ByteRead {
                    nbytes: vars.num(&t.nbytes, "byte_test")?,
                    offset: vars.num(&t.offset, "byte_test")?,
                    relative: t.common.relative,
                    how: read_how(&t.common)?,
                    bitmask: t.common.bitmask,
                },
                negated: t.negated,
                op: t.op,
                value: vars.num(&t.value, "byte_test")?,
            },
            Match::ByteJump(j) => Step::ByteJump {
                rd: ByteRead {
                    nbytes: vars.num(&j.nbytes, "byte_jump")?,
                    offset: vars.num(&j.offset, "byte_jump")?,
                    relative: j.common.relative,
                    how: read_how(&j.common)?,
                    bitmask: j.common.bitmask,
                },
                jump: crate::byte_jump::JumpC::of(j),
            },
            Match::ByteExtract(e) => {
                let rd = ByteRead {
                    nbytes: NumC::Lit(e.nbytes as i64),
                    offset: NumC::Lit(e.offset),
                    relative: e.common.relative,
                    how: read_how(&e.common)?,
                    bitmask: e.common.bitmask,
                };
                Step::ByteExtract {
                    rd,
                    multiplier: e.multiplier.unwrap_or(1) as u64,
                    align: e.align.unwrap_or(0) as u64,
                    var: vars.define(&e.name)?,
                }
            }
            Match::ByteMath(bm) => {
                let rd = ByteRead {
                    nbytes: vars.num(&bm.nbytes, "byte_math")?,
                    offset: vars.num(&bm.offset, "byte_math")?,
                    relative: bm.common.relative,
                    how: read_how(&bm.common)?,
                    bitmask: bm.common.bitmask,
                };
                let rvalue = vars.num(&bm.rvalue, "byte_math")?;
                Step::ByteMath {
                    rd,
                    op: bm.oper,
                    rvalue,
                    var: vars.define(&bm.result)?,
                }
            }
            Match::IsDataAt(d) => Step::IsDataAt {
                offset: vars.num(&d.offset, "isdataat")?,
                relative: d.relative,
                negated: d.negated,
            },
            Match::Bsize(c) => Step::Len(*c),
            Match::Urilen { cmp, .. } => {
                if !uri {
                    return Err(failed("urilen", "urilen outside the URI buffer"));
                }
                Step::Len(*cmp)
            }
            Match::Base64Decode {
                bytes,
                offset,
                relative,
            } => Step::Base64(Box::new(crate::base64::Base64C {
                bytes: bytes.filter(|&b| b > 0).unwrap_or(crate::base64::MAX_BYTES),
                offset: offset.unwrap_or(0),
                relative: *relative,
                data: vars
                    .b64
                    .clone()
                    .map(|ms| program(&ms, vars, false))
                    .transpose()?,
            })),
            Match::Asn1(a) => Step::Asn1(crate::asn1::compile(a)?),
            Match::List(l) => Step::List(
                crate::lists::ListC::compile(l, &vars.lists.0, vars.lists.1.as_deref())
                    .map_err(|e| failed(l.keyword(), e))?,
            ),
        });
    }
    // Length checks do not depend on the cursor: run them first so they never split a
    // relative chain.
    steps.sort_by_key(|s| !matches!(s, Step::Len(_)));
    Ok(Program::new(steps))
}

fn content(c: &Content, vars: &Vars) -> Result<ContentC, Refusal> {
    let n = |x: &Option<Num>| -> Result<Option<NumC>, Refusal> {
        x.as_ref().map(|v| vars.num(v, "content")).transpose()
    };
    Ok(ContentC {
        pat: c.pattern.clone(),
        negated: c.negated,
        offset: n(&c.offset)?,
        depth: n(&c.depth)?,
        distance: n(&c.distance)?,
        within: n(&c.within)?,
        startswith: c.startswith,
        endswith: c.endswith,
        needle: crate::search::Needle::new(&c.pattern, c.nocase),
    })
}

/// `Transform` support check, exposed for the transform module's compile.
pub(crate) fn transform_refusal(t: &Transform) -> Refusal {
    unsupported(t.name(), format!("transform {}", t.name()))
}
