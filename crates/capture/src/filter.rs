//! Capture filters: tcpdump-syntax expressions compiled in-process by libpcap's compiler
//! (through the `pcap` crate), run in user space on the frames of files
//! ([`FilteredSource`]) or handed to the kernel as classic BPF for live capture
//! ([`compile_filter`] → [`LiveOptions::filter`](crate::LiveOptions::filter)).

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use pcap::{BpfProgram, Capture, Linktype};
use wire::LinkType;

use crate::{Batch, BpfInstruction, CaptureError, CaptureStats, Source, MAX_CAPLEN};

/// `BPF_RET | BPF_K`: return a constant (0 rejects, anything else accepts that many
/// bytes of the frame).
const BPF_RET_K: u16 = 0x06;

/// libpcap's `DLT_RAW` on Linux: the value `pcap_open_dead` wants for LINKTYPE_RAW (101)
/// files, whose link type is written in the file format's numbering.
const DLT_RAW: i32 = 12;

/// Compiles `expr` (tcpdump syntax) for frames of link type `link` with libpcap's
/// optimiser, as Suricata does. Errors name the expression and carry libpcap's message.
fn compile(expr: &str, link: LinkType) -> Result<BpfProgram, CaptureError> {
    let bad = |message: String| CaptureError::Filter {
        expr: expr.to_string(),
        link,
        message,
    };
    let dlt = match link {
        LinkType::RAW => DLT_RAW,
        other => i32::from(other.0),
    };
    let dead = Capture::dead(Linktype(dlt)).map_err(|e| bad(e.to_string()))?;
    dead.compile(expr, true).map_err(|e| bad(e.to_string()))
}

/// Compiles `expr` for live capture on an interface whose frames have link type `link`,
/// as instructions the kernel runs on the socket. Accepting returns keep the whole frame
/// (libpcap's dead handles would cut frames at 65,535 bytes).
pub fn compile_filter(expr: &str, link: LinkType) -> Result<Vec<BpfInstruction>, CaptureError> {
    let program = compile(expr, link)?;
    program
        .get_instructions()
        .iter()
        .map(|insn| {
            // The crate shows an instruction only as `code jt jf k`.
            let text = insn.to_string();
            let mut f = text.split_whitespace().map(str::parse::<u64>);
            let mut next = || f.next().and_then(Result::ok);
            let (code, jt, jf, k) = (next(), next(), next(), next());
            let insn = (|| {
                Some(BpfInstruction {
                    code: u16::try_from(code?).ok()?,
                    jt: u8::try_from(jt?).ok()?,
                    jf: u8::try_from(jf?).ok()?,
                    k: u32::try_from(k?).ok()?,
                })
            })();
            let mut insn = insn.ok_or_else(|| CaptureError::Filter {
                expr: expr.to_string(),
                link,
                message: format!("libpcap produced an unreadable instruction `{text}`"),
            })?;
            if insn.code == BPF_RET_K && insn.k != 0 {
                insn.k = MAX_CAPLEN;
            }
            Ok(insn)
        })
        .collect()
}

/// A filter expression and its programs, compiled once per link type met.
pub struct CaptureFilter {
    expr: String,
    /// Few entries (one per link type in the input): a vector beats a map.
    programs: Vec<(LinkType, BpfProgram)>,
}

impl CaptureFilter {
    /// A filter for `expr`, checked now by compiling it for Ethernet frames (the
    /// programs for the link types of the input are compiled when they are met).
    pub fn new(expr: &str) -> Result<CaptureFilter, CaptureError> {
        let mut filter = CaptureFilter {
            expr: expr.to_string(),
            programs: Vec::new(),
        };
        filter.program(LinkType::ETHERNET)?;
        Ok(filter)
    }

    /// The expression.
    pub fn expr(&self) -> &str {
        &self.expr
    }

    fn program(&mut self, link: LinkType) -> Result<usize, CaptureError> {
        if let Some(i) = self.programs.iter().position(|(l, _)| *l == link) {
            return Ok(i);
        }
        let program = compile(&self.expr, link)?;
        self.programs.push((link, program));
        Ok(self.programs.len() - 1)
    }

    /// Keeps the frames of `batch` the expression accepts, numbering them from
    /// `*next + 1`; returns how many were removed. A link type the expression cannot
    /// be compiled for (e.g. `ether host ...` on raw IP frames) is an error.
    pub fn apply(&mut self, batch: &mut Batch, next: &mut u64) -> Result<usize, CaptureError> {
        // Compile first for every link type of the batch (rarely more than one).
        let mut last = None;
        for frame in batch.iter() {
            if last != Some(frame.link) {
                self.program(frame.link)?;
                last = Some(frame.link);
            }
        }
        let programs = &self.programs;
        let mut cached: Option<(LinkType, &BpfProgram)> = None;
        Ok(batch.retain_renumber(
            |frame| {
                let program = match cached {
                    Some((l, p)) if l == frame.link => p,
                    _ => match programs.iter().find(|(l, _)| *l == frame.link) {
                        Some((l, p)) => {
                            cached = Some((*l, p));
                            p
                        }
                        // Compiled just above for every link type of the batch.
                        None => return false,
                    },
                };
                program.filter(frame.data)
            },
            next,
        ))
    }
}

/// A [`Source`] yielding only the frames of another source that a [`CaptureFilter`]
/// accepts, numbered 1, 2, ... among themselves (Suricata's `pcap_cnt` under a filter).
/// The frames left out are counted in [`CaptureStats::filtered`].
pub struct FilteredSource {
    inner: Box<dyn Source>,
    filter: CaptureFilter,
    next: u64,
    filtered: u64,
}

impl FilteredSource {
    /// Filters `inner` with `filter`.
    pub fn new(inner: Box<dyn Source>, filter: CaptureFilter) -> FilteredSource {
        FilteredSource {
            inner,
            filter,
            next: 0,
            filtered: 0,
        }
    }
}

impl Source for FilteredSource {
    fn next_batch(&mut self, batch: &mut Batch, max: usize) -> Result<usize, CaptureError> {
        // Refill until something passes or the input ends: an empty batch means the end.
        loop {
            if self.inner.next_batch(batch, max)? == 0 {
                return Ok(0);
            }
            self.filtered += self.filter.apply(batch, &mut self.next)? as u64;
            if !batch.is_empty() {
                return Ok(batch.len());
            }
        }
    }

    fn stats(&self) -> CaptureStats {
        let mut stats = self.inner.stats();
        stats.filtered += self.filtered;
        stats
    }

    fn stop_on(&mut self, flag: Arc<AtomicBool>) {
        self.inner.stop_on(flag);
    }

    fn may_wait(&self) -> bool {
        self.inner.may_wait()
    }

    fn position(&self) -> u64 {
        self.inner.position()
    }

    fn release_by_caller(&mut self) {
        self.inner.release_by_caller();
    }

    fn shares_frames(&self) -> bool {
        self.inner.shares_frames()
    }

    fn release_before(&mut self, pos: u64) {
        self.inner.release_before(pos);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{drain, pcap};
    use crate::FileSource;
    use std::path::Path;

    /// An Ethernet/IPv4 frame with protocol `proto` (6 TCP, 17 UDP) and 8 bytes of
    /// transport header.
    fn eth_ipv4(proto: u8) -> Vec<u8> {
        let mut f = vec![0u8; 12];
        f.extend_from_slice(&[0x08, 0x00]);
        f.extend_from_slice(&[0x45, 0, 0, 28, 0, 0, 0, 0, 64, proto, 0, 0]);
        f.extend_from_slice(&[10, 0, 0, 1, 10, 0, 0, 2]);
        f.extend_from_slice(&[0, 53, 0, 53, 0, 8, 0, 0]);
        f
    }

    fn mixed() -> Vec<u8> {
        let (u, t) = (eth_ipv4(17), eth_ipv4(6));
        let recs: Vec<(u32, u32, &[u8], u32)> = vec![
            (1, 0, &t, 42),
            (2, 0, &u, 42),
            (3, 0, &t, 42),
            (4, 0, &u, 42),
            (5, 0, &u, 42),
        ];
        pcap(false, false, 65535, 1, &recs)
    }

    #[test]
    fn keeps_accepted_frames_numbered_among_themselves() {
        let file = FileSource::from_bytes(Path::new("m.pcap"), mixed()).unwrap();
        let filter = CaptureFilter::new("udp").unwrap();
        let mut src = FilteredSource::new(Box::new(file), filter);
        // Batches of one frame: rejected frames must not end the input early.
        let (got, stats) = drain(&mut src, 1);
        let seen: Vec<(u64, i64)> = got
            .iter()
            .map(|g| (g.index, g.ts.as_micros() / 1_000_000))
            .collect();
        assert_eq!(seen, vec![(1, 2), (2, 4), (3, 5)]);
        assert_eq!(stats.packets, 5);
        assert_eq!(stats.filtered, 2);

        let file = FileSource::from_bytes(Path::new("m.pcap"), mixed()).unwrap();
        let mut src = FilteredSource::new(Box::new(file), CaptureFilter::new("icmp").unwrap());
        let (got, stats) = drain(&mut src, 128);
        assert!(got.is_empty());
        assert_eq!(stats.filtered, 5);
    }

    #[test]
    fn bad_expression_names_it_and_libpcap_message() {
        let e = CaptureFilter::new("udp and and").err().unwrap().to_string();
        assert!(e.contains("`udp and and`"), "{e}");
        assert!(e.contains("syntax error"), "{e}");
        assert!(CaptureFilter::new("port 99999").is_err());
    }

    #[test]
    fn other_link_types_get_their_own_program() {
        // Raw IPv4 (LINKTYPE_RAW): the same expression compiles for it.
        let raw = eth_ipv4(17)[14..].to_vec();
        let tcp = eth_ipv4(6)[14..].to_vec();
        let recs: Vec<(u32, u32, &[u8], u32)> = vec![(1, 0, &raw, 28), (2, 0, &tcp, 28)];
        let bytes = pcap(false, false, 65535, 101, &recs);
        let file = FileSource::from_bytes(Path::new("r.pcap"), bytes.clone()).unwrap();
        let mut src = FilteredSource::new(Box::new(file), CaptureFilter::new("udp").unwrap());
        let (got, _) = drain(&mut src, 8);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].ts.as_micros() / 1_000_000, 1);
        // An expression that has no meaning for the link type is an error, not a silent
        // pass or drop.
        let file = FileSource::from_bytes(Path::new("r.pcap"), bytes).unwrap();
        let filter = CaptureFilter::new("ether host 1:2:3:4:5:6").unwrap();
        let mut src = FilteredSource::new(Box::new(file), filter);
        let e = src.next_batch(&mut Batch::new(), 8).err().unwrap();
        assert!(e.to_string().contains("ether host"), "{e}");
    }

    #[test]
    fn live_programs_accept_whole_frames() {
        let prog = compile_filter("udp", LinkType::ETHERNET).unwrap();
        assert!(prog.len() > 2);
        let rets: Vec<u32> = prog
            .iter()
            .filter(|i| i.code == BPF_RET_K)
            .map(|i| i.k)
            .collect();
        assert!(rets.contains(&0) && rets.contains(&MAX_CAPLEN), "{rets:?}");
        // Ethertype load first, as `tcpdump -d udp` shows: `ldh [12]`.
        assert_eq!((prog[0].code, prog[0].k), (0x28, 12));
        assert!(compile_filter("nonsense(", LinkType::ETHERNET).is_err());
    }
}
