//! Live capture on Linux: an AF_PACKET socket with a TPACKET_V3 memory-mapped ring,
//! optionally in a `PACKET_FANOUT` group (see [`Fanout`](crate::Fanout)) so several
//! workers, of one process or of several, each get whole flows.

use std::cell::Cell;
use std::ffi::CString;
use std::io;
use std::mem::size_of;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;

use wire::LinkType;

use crate::batch::{Meta, OWNED_BATCH_BYTES};
use crate::{Batch, BpfInstruction, CaptureError, CaptureStats, Source, Timestamp};

/// Settings of a live capture socket.
#[derive(Clone, Debug)]
pub struct LiveOptions {
    /// Join this `PACKET_FANOUT` group (Suricata's `cluster-id`), in the mode `fanout`
    /// says: every socket opened with the same group id on the same interface receives
    /// a share of the traffic (in `cluster_flow` mode each flow, both directions, going
    /// to one socket).
    pub fanout_group: Option<u16>,
    /// The group's mode and flags (`cluster-type`, `defrag`); every socket of a group,
    /// in any process, must give the same.
    pub fanout: crate::Fanout,
    /// Ring block size in bytes (a power of two, multiple of the page size).
    pub block_size: u32,
    /// Number of ring blocks (the ring holds `block_size * block_count` bytes).
    pub block_count: u32,
    /// Milliseconds after which the kernel hands over a partly filled block.
    pub block_timeout_ms: u32,
    /// Keep only the frames this classic BPF program accepts (filtered in the kernel,
    /// before the ring); see [`parse_bpf_program`](crate::parse_bpf_program).
    pub filter: Option<Vec<BpfInstruction>>,
    /// Put the interface in promiscuous mode while the socket is open.
    pub promiscuous: bool,
    /// Milliseconds one `poll` waits before `next_batch` re-checks `stop`.
    pub poll_timeout_ms: u16,
    /// Raise to end the capture: `next_batch` delivers what the ring already holds, then
    /// returns 0.
    pub stop: Arc<AtomicBool>,
    /// A counter (the engine's statistics requests): when it has changed while the ring
    /// is empty, `next_batch` returns 0 early (within a poll timeout), with
    /// [`Source::ended`](crate::Source::ended) false, so the caller can answer.
    pub wake: Option<Arc<AtomicU64>>,
}

impl Default for LiveOptions {
    fn default() -> LiveOptions {
        LiveOptions {
            fanout_group: None,
            fanout: crate::Fanout::default(),
            block_size: 1 << 20,
            block_count: 32,
            block_timeout_ms: 10,
            filter: None,
            promiscuous: true,
            poll_timeout_ms: 100,
            stop: Arc::new(AtomicBool::new(false)),
            wake: None,
        }
    }
}

/// Frame slot size declared to the kernel (TPACKET_V3 packs frames of any size; the value
/// only has to divide the block size).
const FRAME_SIZE: u32 = 2048;

/// The mapped ring; unmapped on drop.
struct Ring {
    base: *mut u8,
    len: usize,
    block_size: usize,
    blocks: usize,
}

impl Drop for Ring {
    fn drop(&mut self) {
        // SAFETY: `base`/`len` are exactly what mmap returned, and no reference into the
        // ring outlives the source that owns this value.
        unsafe { libc::munmap(self.base.cast(), self.len) };
    }
}

/// Where reading stands inside the current block.
#[derive(Clone, Copy, Debug)]
struct InBlock {
    left: u32,
    offset: usize,
}

/// A [`Source`] reading one AF_PACKET TPACKET_V3 ring. Frames are copied out of the ring
/// into the batch, so every block goes back to the kernel as soon as it has been read.
pub struct LiveSource {
    // Field order: the ring is unmapped before the socket is closed.
    ring: Ring,
    fd: OwnedFd,
    iface: String,
    link: LinkType,
    cur: usize,
    in_block: Option<InBlock>,
    stop: Arc<AtomicBool>,
    /// Blocks still to drain once `stop` was seen.
    drain_left: Option<usize>,
    /// [`LiveOptions::wake`] and its value when last looked at.
    wake: Option<(Arc<AtomicU64>, u64)>,
    poll_timeout_ms: i32,
    stats: CaptureStats,
    /// Kernel counters, accumulated (the kernel resets them on every read).
    kernel: Cell<(u64, u64)>,
    index: u64,
    /// `Frame::interface` of the frames (the side of an inline bridge).
    interface: u32,
    /// TPACKET_V2 ring (inline): every "block" of the ring is one frame slot, handed
    /// over as soon as the frame is in, instead of a V3 block that waits to fill or to
    /// time out (Suricata's IPS mode uses V2 for the same reason: latency).
    v2: bool,
}

/// What a live source does when its ring holds nothing more.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Idle {
    /// Wait for the kernel (poll the socket).
    Wait,
    /// Stop was just seen: read what the ring holds once more.
    Retry,
    /// Stopped and drained.
    Ended,
}

/// How a live socket is opened besides [`LiveOptions`].
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct OpenMode {
    /// `Frame::interface` of the frames.
    pub(crate) interface: u32,
    /// Inline (IPS) use: frames are forwarded as received, so the kernel must not
    /// defragment them in the fanout group, and frames this host sends on the interface
    /// (the bridge's own forwards included) must not be read back; the ring is
    /// TPACKET_V2, whose frames reach user space one by one, without a block timeout.
    pub(crate) inline: bool,
}

// SAFETY: the ring pointer refers to a mapping owned by this value alone, and it is only
// accessed through `&mut self` (or read-only socket calls through `&self`); moving the
// source to another thread moves that exclusive ownership with it.
unsafe impl Send for LiveSource {}

fn os_err(iface: &str, what: &'static str) -> CaptureError {
    CaptureError::Live {
        iface: iface.to_string(),
        what,
        source: io::Error::last_os_error(),
    }
}

fn setsockopt<T>(fd: RawFd, level: libc::c_int, name: libc::c_int, val: &T) -> io::Result<()> {
    // SAFETY: `val` points to a live `T` of `size_of::<T>()` bytes for the whole call.
    let r = unsafe {
        libc::setsockopt(
            fd,
            level,
            name,
            (val as *const T).cast(),
            size_of::<T>() as libc::socklen_t,
        )
    };
    if r == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Attaches a classic BPF program to the socket.
fn attach_filter(sock: RawFd, prog: &[BpfInstruction]) -> io::Result<()> {
    if prog.is_empty() || prog.len() > crate::MAX_BPF_INSTRUCTIONS {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "program length outside 1..=4096",
        ));
    }
    let mut insns: Vec<libc::sock_filter> = prog
        .iter()
        .map(|i| libc::sock_filter {
            code: i.code,
            jt: i.jt,
            jf: i.jf,
            k: i.k,
        })
        .collect();
    let fprog = libc::sock_fprog {
        len: insns.len() as u16,
        filter: insns.as_mut_ptr(),
    };
    // The kernel copies and validates the program during the call; `insns` outlives it.
    setsockopt(sock, libc::SOL_SOCKET, libc::SO_ATTACH_FILTER, &fprog)
}

/// Link type of frames read with `SOCK_RAW` on an interface of this ARPHRD type.
fn link_for_arphrd(arphrd: u16) -> LinkType {
    match arphrd {
        // Ethernet and loopback carry an Ethernet header.
        1 | 772 => LinkType::ETHERNET,
        // PPP, IPIP, SIT, "none" (tun): the frame starts at the IP header.
        512 | 768 | 776 | 65534 => LinkType::RAW,
        _ => LinkType::ETHERNET,
    }
}

/// TPACKET_V2 frame slot for `iface`: its MTU plus an Ethernet header, a VLAN tag and
/// the ring header the kernel puts first (80 bytes), rounded up to a power of two; at
/// least [`FRAME_SIZE`]. Longer frames (GRO/LRO left on) arrive truncated.
fn v2_frame_size(iface: &str) -> u32 {
    let mtu = std::fs::read_to_string(format!("/sys/class/net/{iface}/mtu"))
        .ok()
        .and_then(|s| s.trim().parse::<u32>().ok())
        .unwrap_or(1500)
        .min(65536);
    (mtu + 14 + 4 + 80).next_power_of_two().max(FRAME_SIZE)
}

/// The link type of the frames live capture on `iface` yields (from its device type;
/// Ethernet when it cannot be read), e.g. to compile a capture filter for it.
pub fn interface_link(iface: &str) -> LinkType {
    std::fs::read_to_string(format!("/sys/class/net/{iface}/type"))
        .ok()
        .and_then(|s| s.trim().parse::<u16>().ok())
        .map_or(LinkType::ETHERNET, link_for_arphrd)
}

/// The fields of a TPACKET_V2/V3 frame header that [`LiveSource`] keeps.
#[derive(Clone, Copy)]
struct RingHdr {
    len: u32,
    sec: u32,
    nsec: u32,
    status: u32,
    tpid: u16,
    tci: u16,
}

impl LiveSource {
    /// Opens `iface` with the given options.
    pub fn open(iface: &str, opts: &LiveOptions) -> Result<LiveSource, CaptureError> {
        Self::open_mode(iface, opts, OpenMode::default())
    }

    /// Opens `iface` with the given options, for passive or inline use.
    pub(crate) fn open_mode(
        iface: &str,
        opts: &LiveOptions,
        mode: OpenMode,
    ) -> Result<LiveSource, CaptureError> {
        let bad_arg = |what: &'static str, msg: &str| CaptureError::Live {
            iface: iface.to_string(),
            what,
            source: io::Error::new(io::ErrorKind::InvalidInput, msg.to_string()),
        };
        let name = CString::new(iface).map_err(|_| bad_arg("interface name", "contains NUL"))?;
        // SAFETY: `name` is a valid NUL-terminated string.
        let ifindex = unsafe { libc::if_nametoindex(name.as_ptr()) };
        if ifindex == 0 {
            return Err(os_err(iface, "no such interface"));
        }
        if opts.block_size < FRAME_SIZE
            || !opts.block_size.is_power_of_two()
            || opts.block_count == 0
            || opts.block_size.checked_mul(opts.block_count).is_none()
        {
            return Err(bad_arg(
                "ring size",
                "block size must be a power of two ≥ 2048 and the ring below 4 GiB",
            ));
        }
        let proto = (libc::ETH_P_ALL as u16).to_be();
        // Protocol 0: the socket receives nothing until `bind` below names the interface
        // and protocol, so no frame of another interface slips into the ring meanwhile.
        // SAFETY: plain socket(2) call.
        let raw = unsafe { libc::socket(libc::AF_PACKET, libc::SOCK_RAW, 0) };
        if raw < 0 {
            return Err(os_err(iface, "AF_PACKET socket (needs CAP_NET_RAW)"));
        }
        // SAFETY: `raw` is a fresh descriptor that nothing else owns.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        let sock = fd.as_raw_fd();
        if mode.inline {
            // Linux ≥ 4.20: frames sent on the interface by this host never reach the
            // ring, so nothing the bridge forwards is read back and forwarded again.
            let on: libc::c_int = 1;
            setsockopt(sock, libc::SOL_PACKET, libc::PACKET_IGNORE_OUTGOING, &on)
                .map_err(|source| live(iface, "PACKET_IGNORE_OUTGOING", source))?;
        }
        if let Some(prog) = &opts.filter {
            attach_filter(sock, prog).map_err(|source| live(iface, "BPF filter", source))?;
        }
        let v2 = mode.inline;
        let (slot_size, slots) = if v2 {
            let frame_size = v2_frame_size(iface).min(opts.block_size);
            let version = libc::tpacket_versions::TPACKET_V2 as libc::c_int;
            setsockopt(sock, libc::SOL_PACKET, libc::PACKET_VERSION, &version)
                .map_err(|source| live(iface, "TPACKET_V2", source))?;
            let req = libc::tpacket_req {
                tp_block_size: opts.block_size,
                tp_block_nr: opts.block_count,
                tp_frame_size: frame_size,
                tp_frame_nr: opts.block_size / frame_size * opts.block_count,
            };
            setsockopt(sock, libc::SOL_PACKET, libc::PACKET_RX_RING, &req)
                .map_err(|source| live(iface, "PACKET_RX_RING", source))?;
            // Frame slots divide the blocks exactly, so they lie back to back.
            (frame_size as usize, req.tp_frame_nr as usize)
        } else {
            let version = libc::tpacket_versions::TPACKET_V3 as libc::c_int;
            setsockopt(sock, libc::SOL_PACKET, libc::PACKET_VERSION, &version)
                .map_err(|source| live(iface, "TPACKET_V3", source))?;
            let req = libc::tpacket_req3 {
                tp_block_size: opts.block_size,
                tp_block_nr: opts.block_count,
                tp_frame_size: FRAME_SIZE,
                tp_frame_nr: opts.block_size / FRAME_SIZE * opts.block_count,
                tp_retire_blk_tov: opts.block_timeout_ms,
                tp_sizeof_priv: 0,
                tp_feature_req_word: 0,
            };
            setsockopt(sock, libc::SOL_PACKET, libc::PACKET_RX_RING, &req)
                .map_err(|source| live(iface, "PACKET_RX_RING", source))?;
            (opts.block_size as usize, opts.block_count as usize)
        };
        let len = opts.block_size as usize * opts.block_count as usize;
        // SAFETY: maps the ring the kernel just allocated for this socket; the result is
        // checked against MAP_FAILED and owned by `Ring`, which unmaps it.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                sock,
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return Err(os_err(iface, "mmap of the ring"));
        }
        let ring = Ring {
            base: base.cast(),
            len,
            block_size: slot_size,
            blocks: slots,
        };
        // SAFETY: sockaddr_ll is plain old data; all-zero is a valid value.
        let mut addr: libc::sockaddr_ll = unsafe { std::mem::zeroed() };
        addr.sll_family = libc::AF_PACKET as u16;
        addr.sll_protocol = proto;
        addr.sll_ifindex = ifindex as i32;
        // SAFETY: `addr` is a valid sockaddr_ll and the length matches it.
        let r = unsafe {
            libc::bind(
                sock,
                (&addr as *const libc::sockaddr_ll).cast(),
                size_of::<libc::sockaddr_ll>() as libc::socklen_t,
            )
        };
        if r != 0 {
            return Err(os_err(iface, "bind"));
        }
        if opts.promiscuous {
            let mreq = libc::packet_mreq {
                mr_ifindex: ifindex as i32,
                mr_type: libc::PACKET_MR_PROMISC as u16,
                mr_alen: 0,
                mr_address: [0; 8],
            };
            setsockopt(sock, libc::SOL_PACKET, libc::PACKET_ADD_MEMBERSHIP, &mreq)
                .map_err(|source| live(iface, "promiscuous mode", source))?;
        }
        if let Some(group) = opts.fanout_group {
            // Inline, fragments must be forwarded as they came: no defragmentation.
            let arg = opts.fanout.sockopt(group, mode.inline);
            setsockopt(sock, libc::SOL_PACKET, libc::PACKET_FANOUT, &arg).map_err(|source| {
                let what = if source.raw_os_error() == Some(libc::EINVAL) {
                    "PACKET_FANOUT (is the group already used with another cluster-type or \
                     defrag setting?)"
                } else {
                    "PACKET_FANOUT"
                };
                live(iface, what, source)
            })?;
        }
        Ok(LiveSource {
            ring,
            fd,
            iface: iface.to_string(),
            link: interface_link(iface),
            cur: 0,
            in_block: None,
            stop: Arc::clone(&opts.stop),
            drain_left: None,
            wake: opts
                .wake
                .as_ref()
                .map(|w| (Arc::clone(w), w.load(Ordering::Relaxed))),
            poll_timeout_ms: i32::from(opts.poll_timeout_ms),
            stats: CaptureStats::default(),
            kernel: Cell::new((0, 0)),
            index: 0,
            interface: mode.interface,
            v2,
        })
    }

    /// The link type of the frames.
    pub fn link(&self) -> LinkType {
        self.link
    }

    fn block_ptr(&self, block: usize) -> *mut u8 {
        // `block < blocks`, so the offset stays inside the mapping.
        self.ring.base.wrapping_add(block * self.ring.block_size)
    }

    fn block_status(&self, block: usize) -> &AtomicU32 {
        if self.v2 {
            let hdr = self.block_ptr(block).cast::<libc::tpacket2_hdr>();
            // SAFETY: `hdr` is the 16-aligned start of a frame slot inside the live
            // mapping; `tp_status` is its first u32, the hand-over flag the kernel
            // accesses atomically. The reference lives no longer than `&self`.
            return unsafe { AtomicU32::from_ptr(std::ptr::addr_of_mut!((*hdr).tp_status)) };
        }
        let desc = self.block_ptr(block).cast::<libc::tpacket_block_desc>();
        // SAFETY: `desc` is the 8-aligned start of a block inside the live mapping;
        // `block_status` is the first u32 of `hdr` and the kernel accesses it atomically
        // (it is the hand-over flag between kernel and user space). The reference lives no
        // longer than `&self`, which keeps the mapping alive.
        unsafe {
            let status = std::ptr::addr_of_mut!((*desc).hdr.bh1.block_status);
            AtomicU32::from_ptr(status)
        }
    }

    /// Starts reading the current block if the kernel has handed it over.
    fn open_block(&mut self) -> Option<InBlock> {
        if self.block_status(self.cur).load(Ordering::Acquire) & libc::TP_STATUS_USER == 0 {
            return None;
        }
        if self.v2 {
            return Some(InBlock { left: 1, offset: 0 });
        }
        let desc = self.block_ptr(self.cur).cast::<libc::tpacket_block_desc>();
        // SAFETY: the block belongs to user space (status checked with Acquire above) and
        // its descriptor lies at the start of the block, inside the mapping.
        let hdr = unsafe { std::ptr::read(std::ptr::addr_of!((*desc).hdr.bh1)) };
        let offset = hdr.offset_to_first_pkt as usize;
        let left = if offset < self.ring.block_size {
            hdr.num_pkts
        } else {
            0
        };
        if left == 0 && hdr.num_pkts != 0 {
            self.stats.bad_blocks += 1;
        }
        Some(InBlock { left, offset })
    }

    /// Hands the current block back to the kernel and moves to the next.
    fn release_block(&mut self) {
        self.block_status(self.cur)
            .store(libc::TP_STATUS_KERNEL, Ordering::Release);
        self.cur = (self.cur + 1) % self.ring.blocks;
        self.in_block = None;
        if let Some(left) = &mut self.drain_left {
            *left = left.saturating_sub(1);
        }
    }

    /// Copies the next frame of the current block into `batch`.
    fn take_frame(&mut self, pos: &mut InBlock, batch: &mut Batch) {
        if self.v2 {
            self.take_frame_v2(batch);
            pos.left = 0;
            return;
        }
        let bs = self.ring.block_size;
        let hdr_len = size_of::<libc::tpacket3_hdr>();
        if pos.offset.checked_add(hdr_len).is_none_or(|end| end > bs) {
            self.stats.bad_blocks += 1;
            pos.left = 0;
            return;
        }
        let block = self.block_ptr(self.cur);
        // SAFETY: the header lies inside the block (checked above), which user space owns
        // until it is released.
        let h =
            unsafe { std::ptr::read_unaligned(block.add(pos.offset).cast::<libc::tpacket3_hdr>()) };
        let start = pos.offset + usize::from(h.tp_mac);
        let snap = h.tp_snaplen as usize;
        if start.checked_add(snap).is_none_or(|end| end > bs) {
            self.stats.bad_blocks += 1;
            pos.left = 0;
            return;
        }
        // SAFETY: `start..start + snap` lies inside the block (checked above).
        let data = unsafe { std::slice::from_raw_parts(block.add(start), snap) };
        let hdr = RingHdr {
            len: h.tp_len,
            sec: h.tp_sec,
            nsec: h.tp_nsec,
            status: h.tp_status,
            tpid: h.hv1.tp_vlan_tpid,
            tci: h.hv1.tp_vlan_tci as u16,
        };
        self.push(batch, data, hdr);
        pos.left -= 1;
        if pos.left > 0 {
            if h.tp_next_offset == 0 {
                self.stats.bad_blocks += 1;
                pos.left = 0;
            } else {
                pos.offset += h.tp_next_offset as usize;
            }
        }
    }

    /// Copies `data` into `batch` with the ring header's metadata; a VLAN tag the kernel
    /// stripped into the header goes back in, so the frame is what was on the wire.
    fn push(&mut self, batch: &mut Batch, data: &[u8], hdr: RingHdr) {
        self.index += 1;
        let mut meta = Meta {
            wire_len: hdr.len,
            ts: Timestamp::new(i64::from(hdr.sec), hdr.nsec),
            link: self.link,
            interface: self.interface,
            index: self.index,
        };
        let vlan = (hdr.status & libc::TP_STATUS_VLAN_VALID != 0).then(|| {
            let tpid = (hdr.status & libc::TP_STATUS_VLAN_TPID_VALID != 0).then_some(hdr.tpid);
            (tpid, hdr.tci)
        });
        let meta = &mut meta;
        match vlan {
            Some((tpid, tci)) if self.link == LinkType::ETHERNET && data.len() >= 12 => {
                let mut tag = [0u8; 4];
                tag[..2].copy_from_slice(&tpid.unwrap_or(0x8100).to_be_bytes());
                tag[2..].copy_from_slice(&tci.to_be_bytes());
                meta.wire_len = meta.wire_len.saturating_add(4);
                batch.push_parts(&[&data[..12], &tag, &data[12..]], *meta);
            }
            _ => batch.push_parts(&[data], *meta),
        }
        self.stats.packets += 1;
        self.stats.bytes += batch
            .get(batch.len() - 1)
            .map_or(0, |f| f.data.len() as u64);
    }

    /// Copies the frame of the current TPACKET_V2 slot into `batch`.
    fn take_frame_v2(&mut self, batch: &mut Batch) {
        let slot = self.ring.block_size;
        let base = self.block_ptr(self.cur);
        // SAFETY: the slot (at least a header long: frame sizes are ≥ 2048) belongs to
        // user space until it is released; the header lies at its start.
        let h = unsafe { std::ptr::read_unaligned(base.cast::<libc::tpacket2_hdr>()) };
        let start = usize::from(h.tp_mac);
        let snap = h.tp_snaplen as usize;
        if start.checked_add(snap).is_none_or(|end| end > slot) {
            self.stats.bad_blocks += 1;
            return;
        }
        // SAFETY: `start..start + snap` lies inside the slot (checked above).
        let data = unsafe { std::slice::from_raw_parts(base.add(start), snap) };
        let hdr = RingHdr {
            len: h.tp_len,
            sec: h.tp_sec,
            nsec: h.tp_nsec,
            status: h.tp_status,
            tpid: h.tp_vlan_tpid,
            tci: h.tp_vlan_tci,
        };
        self.push(batch, data, hdr);
    }

    /// Reads the kernel counters (which resets them) into the running totals.
    fn refresh_kernel_stats(&self) {
        // SAFETY: all-zero is a valid tpacket_stats_v3.
        let mut st: libc::tpacket_stats_v3 = unsafe { std::mem::zeroed() };
        let mut len = size_of::<libc::tpacket_stats_v3>() as libc::socklen_t;
        // SAFETY: `st` and `len` are valid for writes of the sizes given.
        let r = unsafe {
            libc::getsockopt(
                self.fd.as_raw_fd(),
                libc::SOL_PACKET,
                libc::PACKET_STATISTICS,
                (&mut st as *mut libc::tpacket_stats_v3).cast(),
                &mut len,
            )
        };
        if r == 0 {
            let (p, d) = self.kernel.get();
            self.kernel
                .set((p + u64::from(st.tp_packets), d + u64::from(st.tp_drops)));
        }
    }

    /// Appends the frames the ring already holds to `batch` (up to `max` frames in
    /// all, and the batch's byte bound), without waiting.
    pub(crate) fn take_ready(&mut self, batch: &mut Batch, max: usize) {
        while batch.len() < max && batch.owned_bytes() < OWNED_BATCH_BYTES {
            if self.drain_left == Some(0) {
                break;
            }
            let mut pos = match self.in_block {
                Some(pos) => pos,
                None => match self.open_block() {
                    Some(pos) => pos,
                    None => break,
                },
            };
            if pos.left == 0 {
                self.release_block();
                continue;
            }
            self.take_frame(&mut pos, batch);
            self.in_block = Some(pos);
        }
    }

    /// What to do after [`take_ready`](Self::take_ready) found nothing: wait, read once
    /// more (stop was just raised: at most one more lap of the ring is delivered), or
    /// end.
    pub(crate) fn idle(&mut self) -> Idle {
        if self.drain_left.is_some() {
            Idle::Ended
        } else if self.stop.load(Ordering::Relaxed) {
            self.drain_left = Some(self.ring.blocks);
            Idle::Retry
        } else {
            Idle::Wait
        }
    }

    /// Whether the [`LiveOptions::wake`] counter changed since the last look.
    fn woken(&mut self) -> bool {
        let Some((counter, seen)) = &mut self.wake else {
            return false;
        };
        let now = counter.load(Ordering::Relaxed);
        std::mem::replace(seen, now) != now
    }

    /// The socket's descriptor, for polling.
    pub(crate) fn raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }

    /// The poll timeout in milliseconds.
    pub(crate) fn poll_timeout_ms(&self) -> i32 {
        self.poll_timeout_ms
    }

    /// The interface name.
    pub(crate) fn iface(&self) -> &str {
        &self.iface
    }

    /// Sends `frame` (link-layer header included) out of this socket's interface.
    pub(crate) fn send(&self, frame: &[u8]) -> io::Result<()> {
        // SAFETY: `frame` is valid for reads of `frame.len()` bytes during the call; the
        // socket is bound to the interface, so no address is needed.
        let n = unsafe { libc::send(self.fd.as_raw_fd(), frame.as_ptr().cast(), frame.len(), 0) };
        if n < 0 {
            Err(io::Error::last_os_error())
        } else if n as usize != frame.len() {
            Err(io::Error::new(io::ErrorKind::WriteZero, "short send"))
        } else {
            Ok(())
        }
    }

    /// Waits for the kernel to hand over a block (or the poll timeout).
    fn wait(&mut self) -> Result<(), CaptureError> {
        let mut pfd = libc::pollfd {
            fd: self.fd.as_raw_fd(),
            events: libc::POLLIN | libc::POLLERR,
            revents: 0,
        };
        // SAFETY: `pfd` is one valid pollfd.
        let r = unsafe { libc::poll(&mut pfd, 1, self.poll_timeout_ms) };
        if r < 0 {
            let e = io::Error::last_os_error();
            if e.kind() != io::ErrorKind::Interrupted {
                return Err(live(&self.iface, "poll", e));
            }
        } else if r > 0 && pfd.revents & libc::POLLERR != 0 {
            self.take_socket_error();
        }
        Ok(())
    }

    /// Reads (and so clears) the error the kernel left on the socket: after the link
    /// went down, `poll` reports `POLLERR` until it is read, and would otherwise return
    /// at once for ever (a worker spinning on an idle link).
    pub(crate) fn take_socket_error(&mut self) {
        let mut err: libc::c_int = 0;
        let mut len = size_of::<libc::c_int>() as libc::socklen_t;
        // SAFETY: `err` and `len` are valid for writes of the sizes given.
        let r = unsafe {
            libc::getsockopt(
                self.fd.as_raw_fd(),
                libc::SOL_SOCKET,
                libc::SO_ERROR,
                (&mut err as *mut libc::c_int).cast(),
                &mut len,
            )
        };
        if r == 0 && err != 0 {
            self.stats.link_errors += 1;
            tracing::warn!(
                "{}: capture socket error: {} (capture goes on)",
                self.iface,
                io::Error::from_raw_os_error(err)
            );
        }
    }
}

pub(crate) fn live(iface: &str, what: &'static str, source: io::Error) -> CaptureError {
    CaptureError::Live {
        iface: iface.to_string(),
        what,
        source,
    }
}

impl Source for LiveSource {
    fn next_batch(&mut self, batch: &mut Batch, max: usize) -> Result<usize, CaptureError> {
        let max = max.max(1);
        batch.reset_owned();
        loop {
            self.take_ready(batch, max);
            if !batch.is_empty() {
                return Ok(batch.len());
            }
            match self.idle() {
                Idle::Ended => return Ok(0),
                Idle::Retry => continue,
                Idle::Wait if self.woken() => return Ok(0),
                Idle::Wait => self.wait()?,
            }
        }
    }

    fn ended(&self) -> bool {
        self.drain_left.is_some()
    }

    fn stats(&self) -> CaptureStats {
        self.refresh_kernel_stats();
        let (kernel_packets, kernel_drops) = self.kernel.get();
        CaptureStats {
            kernel_packets,
            kernel_drops,
            ..self.stats
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_types_by_device_type() {
        assert_eq!(link_for_arphrd(1), LinkType::ETHERNET);
        assert_eq!(link_for_arphrd(65534), LinkType::RAW);
    }

    #[test]
    fn bad_arguments_are_errors() {
        let err = LiveSource::open("osprey-no-such-if0", &LiveOptions::default());
        let msg = err.err().expect("must fail").to_string();
        assert!(
            msg.starts_with("live capture on osprey-no-such-if0: no such interface"),
            "{msg}"
        );
        let opts = LiveOptions {
            block_size: 3000,
            ..LiveOptions::default()
        };
        assert!(LiveSource::open("lo", &opts).is_err());
        assert!(LiveSource::open("l\0o", &LiveOptions::default()).is_err());
    }
}
