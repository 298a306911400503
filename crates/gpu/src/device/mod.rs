//! The CUDA side: device probe, kernels loaded from NVRTC's PTX, device copies of the
//! tables, and a dispatcher thread per GPU that merges the batches several workers have
//! queued into one device batch ([`crate::feeder`]) and runs it with page-locked staging
//! buffers, double buffering and two streams, so the copies of one batch overlap the
//! kernel of the other (Gnort §3.1, MIDeA §4, Kargus §4.5). The context synchronises by
//! blocking (`CU_CTX_SCHED_BLOCKING_SYNC`): a dispatcher waiting for the device sleeps
//! instead of spinning on a core the workers need. The counters come back first, then
//! only the report slots the fullest row used (one pitched copy).
//!
//! Everything here needs a GPU; the layouts it copies are the ones [`crate::cpu`] runs on,
//! which is what the tests check without one.

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{
    CudaContext, CudaEvent, CudaFunction, CudaSlice, CudaStream, DevicePtr, LaunchConfig,
    PinnedHostSlice, PushKernelArg,
};
use cudarc::nvrtc::Ptx;

use crate::batch::{Batch, ALIGN};
use crate::cache::{compiled_ptx, DiskCache};
use crate::cpu::{AcLayout, DfaJob};
pub use crate::feeder::AcReply;
use crate::feeder::{DispatchStats, Group};
use crate::nvrtc::{self, guarded, KERNELS};
use crate::reports::RawReport;
use crate::staging::{HostMem, PinnedAlloc, StagedMem, StagingPool};
use crate::tables::{AcTables, DfaSet, HotWindows, Width};

/// Why no GPU is used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NoGpu(pub String);

impl fmt::Display for NoGpu {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "no GPU: {}", self.0)
    }
}

impl std::error::Error for NoGpu {}

/// The CUDA version the bindings and the PTX target (the device machines' driver).
pub const CUDA_VERSION: i32 = 13_000;

/// What the probe found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceInfo {
    /// Device ordinal.
    pub ordinal: usize,
    /// Device name.
    pub name: String,
    /// Compute capability (major, minor).
    pub compute_capability: (i32, i32),
    /// Device memory in bytes.
    pub total_mem: usize,
    /// Driver's CUDA version (e.g. 13000).
    pub driver_version: i32,
}

fn gpu_err(what: &str) -> impl Fn(cudarc::driver::DriverError) -> String + '_ {
    move |e| format!("{what}: {e}")
}

/// Look for GPU `ordinal` without ever panicking: no libcuda, no device, an old driver or no
/// libnvrtc each give a [`NoGpu`] with the reason.
pub fn probe(ordinal: usize) -> Result<DeviceInfo, NoGpu> {
    guarded("CUDA", || {
        // SAFETY: only tries to dlopen libcuda by name.
        if !unsafe { cudarc::driver::sys::is_culib_present() } {
            return Err("libcuda not found (no NVIDIA driver)".into());
        }
        cudarc::driver::result::init().map_err(gpu_err("cuInit"))?;
        let mut version = 0;
        // SAFETY: cuDriverGetVersion writes one int through a valid pointer.
        unsafe { cudarc::driver::sys::cuDriverGetVersion(&mut version) }
            .result()
            .map_err(gpu_err("cuDriverGetVersion"))?;
        if version < CUDA_VERSION {
            return Err(format!(
                "driver supports CUDA {}.{}, Osprey's kernels need {}.{}",
                version / 1000,
                version % 1000 / 10,
                CUDA_VERSION / 1000,
                CUDA_VERSION % 1000 / 10
            ));
        }
        let count = cudarc::driver::result::device::get_count().map_err(gpu_err("device count"))?;
        if count <= 0 {
            return Err("no CUDA device".into());
        }
        if ordinal >= count as usize {
            return Err(format!("device {ordinal} asked, {count} present"));
        }
        nvrtc::nvrtc_available()?;
        let ctx = CudaContext::new(ordinal).map_err(gpu_err("context"))?;
        Ok(DeviceInfo {
            ordinal,
            name: ctx.name().map_err(gpu_err("name"))?,
            compute_capability: ctx
                .compute_capability()
                .map_err(gpu_err("compute capability"))?,
            total_mem: ctx.total_mem().map_err(gpu_err("memory"))?,
            driver_version: version,
        })
    })
    .map_err(NoGpu)
}

/// Settings of a [`GpuMatcher`].
#[derive(Clone, Copy, Debug)]
pub struct GpuConfig {
    /// Device ordinal.
    pub ordinal: usize,
    /// Kernel layout.
    pub layout: AcLayout,
    /// Report slots per packet.
    pub report_cap: u32,
    /// Largest batch (packets) the staging buffers take.
    pub max_packets: usize,
    /// Largest batch (padded payload bytes) the staging buffers take.
    pub max_bytes: usize,
    /// Threads per block of the packet-per-thread kernel.
    pub threads_per_block: u32,
    /// The CPU executor only (`--gpu cpu-sim`): how long each device batch stays "on the
    /// device" after the executor ran it, a simulated transfer and kernel round trip
    /// (testing that workers go on while their batch is away). Zero by default.
    pub sim_latency: Duration,
    /// Staged buffers the workers fill (page-locked on a GPU) at most, all workers
    /// together ([`crate::staging::StagingPool`]); past it a worker gets ordinary buffers.
    pub staging_buffers: usize,
    /// Payloads a staged buffer holds (at most `max_packets`); its bytes are in the same
    /// proportion as `max_bytes` to `max_packets`. A worker's buffer holds its RX batch's
    /// payloads (up to 128 frames); a full one is submitted and another taken.
    pub buffer_packets: usize,
}

impl GpuConfig {
    /// Payloads a staged buffer holds.
    pub fn staging_packets(&self) -> usize {
        self.buffer_packets.clamp(1, self.max_packets.max(1))
    }

    /// Padded bytes a staged buffer holds.
    pub fn staging_bytes(&self) -> usize {
        let per = self.max_bytes.div_ceil(self.max_packets.max(1)).max(ALIGN);
        (self.staging_packets() * per).next_multiple_of(ALIGN)
    }
}

impl Default for GpuConfig {
    fn default() -> GpuConfig {
        GpuConfig {
            ordinal: 0,
            layout: AcLayout::PacketPerThread,
            report_cap: 64,
            max_packets: 8192,
            max_bytes: 8192 * 1536,
            threads_per_block: 256,
            sim_latency: Duration::ZERO,
            staging_buffers: 64,
            buffer_packets: 1024,
        }
    }
}

/// One device-batch slot: the pinned entries and counters, device buffers and a stream.
/// Two slots give double buffering: one batch is copied in while the other's kernel runs.
/// The payload bytes and report slots have no host buffer here: they move by DMA between
/// the workers' staged buffers and `d_bytes`/`d_reports`.
struct Slot {
    stream: Arc<CudaStream>,
    h_meta: PinnedHostSlice<u32>,
    h_counts: PinnedHostSlice<u32>,
    d_bytes: CudaSlice<u8>,
    d_meta: CudaSlice<u32>,
    d_counts: CudaSlice<u32>,
    d_reports: CudaSlice<u32>,
    /// Recorded just before and just after the kernel launch: the kernel's device time.
    ev_start: CudaEvent,
    ev_end: CudaEvent,
    /// The events were recorded for the batch in flight (not for an empty batch).
    timed: bool,
    /// The merged requests in flight in this slot and where their results go.
    pending: Option<Group>,
}

/// Device copies of the [`AcTables`].
struct DeviceTables {
    trans16: Option<CudaSlice<u16>>,
    trans32: Option<CudaSlice<u32>>,
    groups: CudaSlice<u32>,
    out_offsets: CudaSlice<u32>,
    outputs: CudaSlice<u32>,
    ngroups: u32,
}

/// Aho-Corasick on one GPU: kernels, tables and two staging slots.
pub struct GpuMatcher {
    cfg: GpuConfig,
    info: DeviceInfo,
    stats: Arc<DispatchStats>,
    kernel: CudaFunction,
    tables: DeviceTables,
    slots: Vec<Slot>,
    next: usize,
    /// The shared rows of a hot-row layout (empty otherwise) and their bytes per block.
    hot: HotWindows,
    hot_bytes: u32,
    /// Streaming multiprocessors (a hot-row launch puts one block on each).
    sms: u32,
    /// The workers' staged buffers (page-locked in this context).
    pool: Arc<StagingPool>,
}

/// Page-locked memory of one staged buffer in `ctx` (cached, not write-combined: the
/// workers read their payloads back for the merge), zeroed.
fn pinned_staging(
    ctx: &Arc<CudaContext>,
    bytes: usize,
    packets: usize,
    slots: usize,
) -> Result<StagedMem, String> {
    fn block<T, U>(ctx: &Arc<CudaContext>, len: usize, per: usize) -> Result<HostMem<U>, String>
    where
        T: cudarc::driver::DeviceRepr + cudarc::driver::ValidAsZeroBits + Send + Sync + 'static,
        U: Copy + Default + Send + Sync + 'static,
    {
        // SAFETY: a page-locked allocation of `len * per` elements of `T`; zeroed below
        // before any read.
        let mut mem = unsafe { ctx.alloc_pinned_with_flags::<T>((len * per).max(1), 0) }
            .map_err(gpu_err("pinned staging"))?;
        let ptr = mem.as_mut_ptr().map_err(gpu_err("pinned staging"))?;
        // SAFETY: `ptr` is valid for `len * per` elements of `T` (just allocated, unused).
        unsafe { std::ptr::write_bytes(ptr, 0, (len * per).max(1)) };
        let ptr = std::ptr::NonNull::new(ptr.cast::<U>()).ok_or("pinned staging: null")?;
        // SAFETY: the block holds `len` elements of `U` (`per` elements of `T` each, `U`
        // no more aligned than `T`), all zero, which is valid for u8, u32 and RawReport;
        // `mem` keeps it alive and is reached only through the `HostMem`.
        Ok(unsafe { HostMem::pinned(ptr, len, Box::new(mem)) })
    }
    const { assert!(std::mem::size_of::<RawReport>() == 8 && std::mem::align_of::<RawReport>() == 4) };
    Ok(StagedMem {
        bytes: block::<u8, u8>(ctx, bytes, 1)?,
        counts: block::<u32, u32>(ctx, packets, 1)?,
        reports: block::<u32, RawReport>(ctx, slots, 2)?,
    })
}

/// An event that records time (cudarc's default disables timing).
fn timing_event(ctx: &Arc<CudaContext>) -> Result<CudaEvent, String> {
    ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
        .map_err(gpu_err("event"))
}

/// Device nanoseconds between two recorded events.
fn elapsed_ns(start: &CudaEvent, end: &CudaEvent) -> Option<u64> {
    start
        .elapsed_ms(end)
        .ok()
        .map(|ms| (f64::from(ms) * 1e6).max(0.0) as u64)
}

fn upload<T: cudarc::driver::DeviceRepr + Default + Clone>(
    stream: &Arc<CudaStream>,
    data: &[T],
) -> Result<CudaSlice<T>, String> {
    // A zero-length allocation is not allowed: keep one element.
    if data.is_empty() {
        return stream
            .clone_htod(&[T::default()])
            .map_err(gpu_err("upload"));
    }
    stream.clone_htod(data).map_err(gpu_err("upload"))
}

impl GpuMatcher {
    /// Probe the device, compile the kernels for it, upload `tables` and allocate the
    /// staging slots.
    pub fn new(tables: &AcTables, cfg: GpuConfig) -> Result<GpuMatcher, String> {
        Self::with_cache(tables, cfg, None)
    }

    /// [`GpuMatcher::new`] with the kernels' PTX taken from (or stored in) `cache`.
    pub fn with_cache(
        tables: &AcTables,
        cfg: GpuConfig,
        cache: Option<&DiskCache>,
    ) -> Result<GpuMatcher, String> {
        let info = probe(cfg.ordinal).map_err(|e| e.to_string())?;
        guarded("CUDA", || Self::build(tables, cfg, info, cache))
    }

    fn build(
        tables: &AcTables,
        cfg: GpuConfig,
        info: DeviceInfo,
        cache: Option<&DiskCache>,
    ) -> Result<GpuMatcher, String> {
        let ctx = CudaContext::new(cfg.ordinal).map_err(gpu_err("context"))?;
        // Waits block the thread (no spinning on a core the workers need).
        ctx.set_blocking_synchronize()
            .map_err(gpu_err("blocking synchronisation"))?;
        let (major, minor) = info.compute_capability;
        let arch = format!("compute_{major}{minor}");
        let ptx = compiled_ptx(cache, &KERNELS[0], &arch)?;
        let module = ctx
            .load_module(Ptx::from_src(ptx))
            .map_err(gpu_err("load module"))?;
        let entry = match (cfg.layout, tables.width()) {
            (AcLayout::PacketPerThread, Width::U16) => "ac_thread_u16",
            (AcLayout::PacketPerThread, Width::U32) => "ac_thread_u32",
            (AcLayout::PacketPerBlock { .. }, Width::U16) => "ac_block_u16",
            (AcLayout::PacketPerBlock { .. }, Width::U32) => "ac_block_u32",
            (AcLayout::SharedHot { .. }, Width::U16) => "ac_hot_u16",
            (AcLayout::SharedHot { .. }, Width::U32) => "ac_hot_u32",
            (AcLayout::SharedHot16 { .. }, Width::U16) => "ac_hot16_u16",
            (AcLayout::SharedHot16 { .. }, Width::U32) => "ac_hot16_u32",
        };
        let kernel = module.load_function(entry).map_err(gpu_err(entry))?;
        let hot = tables.hot_windows(cfg.layout.hot_rows(tables.width()));
        let hot_bytes = hot.rows() * 256 * cfg.layout.shared_entry_bytes(tables.width());
        use cudarc::driver::sys::{CUdevice_attribute as A, CUfunction_attribute as F};
        let sms = ctx
            .attribute(A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
            .map_err(gpu_err("SM count"))?
            .max(1) as u32;
        if hot_bytes > 0 {
            let most = ctx
                .attribute(A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)
                .map_err(gpu_err("shared memory limit"))?;
            if hot_bytes as i64 > most as i64 {
                return Err(format!(
                    "{}: {hot_bytes} bytes of shared memory asked, the device allows {most}",
                    cfg.layout.name()
                ));
            }
            kernel
                .set_attribute(
                    F::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    hot_bytes as i32,
                )
                .map_err(gpu_err("shared memory size"))?;
        }
        let s0 = ctx.default_stream();
        let groups: Vec<u32> = tables
            .groups()
            .iter()
            .flat_map(|g| [g.trans_base, g.match_min, g.outoff_base, g.max_len])
            .collect();
        let dt = DeviceTables {
            trans16: match tables.width() {
                Width::U16 => Some(upload(&s0, tables.trans16())?),
                Width::U32 => None,
            },
            trans32: match tables.width() {
                Width::U32 => Some(upload(&s0, tables.trans32())?),
                Width::U16 => None,
            },
            groups: upload(&s0, &groups)?,
            out_offsets: upload(&s0, tables.out_offsets())?,
            outputs: upload(&s0, tables.outputs())?,
            ngroups: tables.num_groups() as u32,
        };
        s0.synchronize().map_err(gpu_err("upload"))?;
        let n = cfg.max_packets.max(1);
        let bytes = cfg.max_bytes.max(ALIGN).div_ceil(ALIGN) * ALIGN;
        let rows = n * cfg.report_cap.max(1) as usize * 2;
        let mut slots = Vec::with_capacity(2);
        for _ in 0..2 {
            let stream = ctx.new_stream().map_err(gpu_err("stream"))?;
            // SAFETY: page-locked allocations; every element is written before it is read
            // (the entries are written for the used prefix, the device writes the
            // counters). The counters are read by the host: cached, not write-combined.
            let pinned = unsafe {
                (
                    ctx.alloc_pinned::<u32>(3 * n),
                    ctx.alloc_pinned_with_flags::<u32>(n, 0),
                )
            };
            slots.push(Slot {
                h_meta: pinned.0.map_err(gpu_err("pinned"))?,
                h_counts: pinned.1.map_err(gpu_err("pinned"))?,
                d_bytes: stream.alloc_zeros::<u8>(bytes).map_err(gpu_err("alloc"))?,
                d_meta: stream.alloc_zeros::<u32>(3 * n).map_err(gpu_err("alloc"))?,
                d_counts: stream.alloc_zeros::<u32>(n).map_err(gpu_err("alloc"))?,
                d_reports: stream.alloc_zeros::<u32>(rows).map_err(gpu_err("alloc"))?,
                ev_start: timing_event(&ctx)?,
                ev_end: timing_event(&ctx)?,
                timed: false,
                stream,
                pending: None,
            });
        }
        let stats = Arc::new(DispatchStats::default());
        let pctx = ctx.clone();
        let alloc: Box<PinnedAlloc> = Box::new(move |bytes, packets, slots| {
            guarded("CUDA", || pinned_staging(&pctx, bytes, packets, slots))
        });
        let pool = StagingPool::new(
            cfg.staging_buffers,
            cfg.staging_packets(),
            cfg.staging_bytes(),
            cfg.report_cap,
            Some(alloc),
            stats.clone(),
        );
        Ok(GpuMatcher {
            cfg,
            info,
            stats,
            pool,
            kernel,
            tables: dt,
            slots,
            next: 0,
            hot,
            hot_bytes,
            sms,
        })
    }

    /// The device.
    pub fn info(&self) -> &DeviceInfo {
        &self.info
    }

    /// The pool of staged buffers (page-locked in this device's context) the workers fill.
    pub(crate) fn staging_pool(&self) -> Arc<StagingPool> {
        self.pool.clone()
    }

    /// Stage the merged requests `group` in the next slot and launch them; the slot's
    /// previous batch (if any) is finished first and its replies sent.
    fn submit(&mut self, group: Group) {
        let i = self.next;
        self.next = (self.next + 1) % self.slots.len();
        self.finish(i);
        if group.packets() > self.cfg.max_packets || group.bytes() > self.slots[i].d_bytes.len() {
            let why = format!(
                "batch of {} packets / {} bytes exceeds the staging buffers",
                group.packets(),
                group.bytes()
            );
            group.fail(&why);
            return;
        }
        let host = Instant::now();
        match self.launch(i, &group) {
            Ok(()) => {
                self.stats.launched(&group);
                self.stats.host(host, 12 * group.packets());
                self.slots[i].pending = Some(group);
            }
            Err(e) => group.fail(&e),
        }
    }

    /// Padded payload bytes a device batch holds.
    fn staging_bytes(&self) -> usize {
        self.slots.first().map_or(0, |s| s.d_bytes.len())
    }

    fn launch(&mut self, i: usize, group: &Group) -> Result<(), String> {
        let n = group.packets();
        let nb = group.bytes();
        debug_assert_eq!(
            group
                .parts
                .last()
                .map_or(0, |p| p.base + p.batch.bytes().len()),
            nb
        );
        let cap = self.cfg.report_cap.max(1);
        let t = &self.tables;
        let slot = &mut self.slots[i];
        slot.timed = false;
        if n == 0 {
            return Ok(());
        }
        if nb > slot.d_bytes.len() {
            return Err("batch larger than the device buffer".into());
        }
        // The entries on the host (the slot's previous copies are finished); each
        // worker's payload bytes by one DMA from its staged buffer (page-locked: an
        // asynchronous copy, the buffer untouched until `finish` synchronised the stream;
        // an ordinary buffer is staged by the driver before the call returns).
        {
            let hm = slot.h_meta.as_mut_slice().map_err(gpu_err("pinned"))?;
            group.entries(&mut hm[..3 * n]);
        }
        let s = slot.stream.clone();
        for part in &group.parts {
            let b = part.batch.bytes();
            if b.is_empty() {
                continue;
            }
            s.memcpy_htod(
                b,
                &mut slot.d_bytes.slice_mut(part.base..part.base + b.len()),
            )
            .map_err(gpu_err("copy in"))?;
        }
        let hm = slot.h_meta.as_mut_slice().map_err(gpu_err("pinned"))?;
        s.memcpy_htod(&hm[..3 * n], &mut slot.d_meta.slice_mut(..3 * n))
            .map_err(gpu_err("copy in"))?;
        s.memset_zeros(&mut slot.d_counts.slice_mut(..n))
            .map_err(gpu_err("memset"))?;
        let off = slot.d_meta.slice(..n);
        let len = slot.d_meta.slice(n..2 * n);
        let grp = slot.d_meta.slice(2 * n..3 * n);
        let npkts = n as u32;
        let cfg = match self.cfg.layout {
            AcLayout::PacketPerThread => {
                let tpb = self.cfg.threads_per_block.clamp(32, 1024);
                LaunchConfig {
                    grid_dim: (npkts.div_ceil(tpb), 1, 1),
                    block_dim: (tpb, 1, 1),
                    shared_mem_bytes: 0,
                }
            }
            AcLayout::PacketPerBlock { threads } => LaunchConfig {
                grid_dim: (npkts, 1, 1),
                block_dim: (threads.clamp(1, 1024), 1, 1),
                shared_mem_bytes: 0,
            },
            // One block per SM (each copies the hot rows once), as many waves as needed
            // beyond 1,024 threads each.
            AcLayout::SharedHot { .. } | AcLayout::SharedHot16 { .. } => {
                let tpb = npkts
                    .div_ceil(self.sms)
                    .next_multiple_of(32)
                    .clamp(64, 1024);
                LaunchConfig {
                    grid_dim: (npkts.div_ceil(tpb), 1, 1),
                    block_dim: (tpb, 1, 1),
                    shared_mem_bytes: self.hot_bytes,
                }
            }
        };
        let mut b = s.launch_builder(&self.kernel);
        b.arg(&slot.d_bytes)
            .arg(&off)
            .arg(&len)
            .arg(&grp)
            .arg(&npkts);
        match (&t.trans16, &t.trans32) {
            (Some(t16), _) => b.arg(t16),
            (None, Some(t32)) => b.arg(t32),
            (None, None) => return Err("no transition table".into()),
        };
        b.arg(&t.groups)
            .arg(&t.ngroups)
            .arg(&t.out_offsets)
            .arg(&t.outputs)
            .arg(&mut slot.d_counts)
            .arg(&mut slot.d_reports)
            .arg(&cap);
        let hot = (self.hot.group, self.hot.lo, self.hot.hi);
        if self.cfg.layout.is_hot() {
            b.arg(&hot.0).arg(&hot.1).arg(&hot.2);
        }
        slot.ev_start.record(&s).map_err(gpu_err("event"))?;
        // SAFETY: the argument list matches the kernel signature in kernels/ac.cu (payload,
        // offsets, lengths, groups, count, transitions, group table, group count, output
        // offsets, outputs, counters, report rows, row capacity, and for ac_hot* the hot
        // group and its two windows); every index the kernel forms is bounded by the table
        // layout checked in AcTables and the batch layout, and the shared rows by the
        // windows `hot_windows` cut to the group's states and `hot_bytes` of shared memory.
        unsafe { b.launch(cfg) }.map_err(gpu_err("launch"))?;
        slot.ev_end.record(&s).map_err(gpu_err("event"))?;
        slot.timed = true;
        // The counters first: the report slots to copy back depend on them (`finish`).
        let hc = slot.h_counts.as_mut_slice().map_err(gpu_err("pinned"))?;
        s.memcpy_dtoh(&slot.d_counts.slice(..n), &mut hc[..n])
            .map_err(gpu_err("copy out"))?;
        Ok(())
    }

    /// Copy the first `used` slots of rows `first..first + rows.packets()` of slot `i`'s
    /// device report buffer (rows of `cap` slots) straight into `rows` (a worker's, rows
    /// of `cap` slots too): one pitched copy.
    fn copy_rows(
        &self,
        i: usize,
        first: usize,
        used: usize,
        rows: &mut crate::reports::ReportBuffer,
    ) -> Result<(), String> {
        let cap = self.cfg.report_cap.max(1) as usize;
        let slot = &self.slots[i];
        let s = &slot.stream;
        let k = rows.packets();
        let slot_bytes = std::mem::size_of::<RawReport>();
        let (_, dst) = rows.raw_mut();
        if rows_cap_mismatch(dst.len(), k, cap) || slot.d_reports.len() < 2 * (first + k) * cap {
            return Err("report buffers smaller than the batch".into());
        }
        let (src, _record) = slot.d_reports.device_ptr(s);
        // SAFETY: a plain-old-data descriptor; every field the copy reads is set below
        // (the array fields stay null: neither side is an array).
        let mut copy: cudarc::driver::sys::CUDA_MEMCPY2D = unsafe { std::mem::zeroed() };
        copy.srcMemoryType = cudarc::driver::sys::CUmemorytype::CU_MEMORYTYPE_DEVICE;
        copy.srcDevice = src + (first * cap * slot_bytes) as u64;
        copy.srcPitch = cap * slot_bytes;
        copy.dstMemoryType = cudarc::driver::sys::CUmemorytype::CU_MEMORYTYPE_HOST;
        copy.dstHost = dst.as_mut_ptr().cast();
        copy.dstPitch = cap * slot_bytes;
        copy.WidthInBytes = used.min(cap) * slot_bytes;
        copy.Height = k;
        // SAFETY: the source rows lie inside the device report buffer (rows `first..first
        // + k` of `cap` slots, checked above), the destination inside the worker's rows
        // (k rows of `cap` slots, checked above); the copy is ordered on the slot's stream,
        // which `finish` synchronises before the rows are handed back, and nothing else
        // touches them meanwhile (the part is held by the slot's pending group).
        unsafe { cudarc::driver::sys::cuMemcpy2DAsync_v2(&copy, s.cu_stream()) }
            .result()
            .map_err(gpu_err("copy out"))
    }

    /// Wait (blocking, not spinning) for slot `i`'s batch, copy each worker's used report
    /// slots into its own rows and send the replies.
    fn finish(&mut self, i: usize) {
        let Some(mut group) = self.slots[i].pending.take() else {
            return;
        };
        let result: Result<Option<u64>, String> = (|| {
            let n = group.packets();
            let waited = Instant::now();
            self.slots[i]
                .stream
                .synchronize()
                .map_err(gpu_err("sync"))?;
            self.stats.waited(waited);
            let host = Instant::now();
            let copied = {
                let counts = &self.slots[i]
                    .h_counts
                    .as_slice()
                    .map_err(gpu_err("pinned"))?[..n];
                group.set_counts(counts)
            };
            let mut back = 4 * n;
            let mut any = false;
            for (part, &used) in group.parts.iter_mut().zip(&group.used) {
                if used > 0 {
                    self.copy_rows(i, part.first, used, &mut part.rows)?;
                    back += used * part.rows.packets() * std::mem::size_of::<RawReport>();
                    any = true;
                }
            }
            self.stats.host(host, copied);
            if any {
                let waited = Instant::now();
                self.slots[i]
                    .stream
                    .synchronize()
                    .map_err(gpu_err("sync"))?;
                self.stats.waited(waited);
            }
            self.stats.copied_back(back);
            let slot = &self.slots[i];
            Ok(if slot.timed {
                elapsed_ns(&slot.ev_start, &slot.ev_end)
            } else {
                None
            })
        })();
        match result {
            Ok(kernel_ns) => {
                let host = Instant::now();
                group.deliver((kernel_ns, self.cfg.layout.scan_order()));
                self.stats.host(host, 0);
            }
            Err(e) => group.fail(&e),
        }
    }

    fn finish_all(&mut self) {
        for i in 0..self.slots.len() {
            let i = (self.next + i) % self.slots.len();
            self.finish(i);
        }
    }
}

/// True when `len` report slots cannot hold `k` rows of `cap` slots.
fn rows_cap_mismatch(len: usize, k: usize, cap: usize) -> bool {
    len < k * cap
}

/// Regex DFAs on one GPU (Kargus §4.5): one thread per (packet, DFA) job, synchronous on
/// its own stream.
pub struct GpuDfaMatcher {
    stream: Arc<CudaStream>,
    kernel: CudaFunction,
    trans: CudaSlice<u16>,
    flags: CudaSlice<u8>,
    info: CudaSlice<u32>,
    ndfas: u32,
    /// Device buffers kept from one call to the next (grown when a call needs more): an
    /// allocation and a free per call cost more than the kernel (the H100 run's 1.7 ms
    /// GPU cycles).
    bufs: Option<DfaBuffers>,
    ev_start: CudaEvent,
    ev_end: CudaEvent,
    kernel_ns: Option<u64>,
}

/// The per-call device buffers of [`GpuDfaMatcher`].
struct DfaBuffers {
    bytes: CudaSlice<u8>,
    meta: CudaSlice<u32>,
    jobs: CudaSlice<u32>,
    result: CudaSlice<u32>,
}

impl DfaBuffers {
    /// Buffers holding at least the given sizes (each at least 1 element).
    fn alloc(
        s: &Arc<CudaStream>,
        bytes: usize,
        packets: usize,
        jobs: usize,
    ) -> Result<DfaBuffers, String> {
        Ok(DfaBuffers {
            bytes: s
                .alloc_zeros::<u8>(bytes.max(1))
                .map_err(gpu_err("alloc"))?,
            meta: s
                .alloc_zeros::<u32>(2 * packets.max(1))
                .map_err(gpu_err("alloc"))?,
            jobs: s
                .alloc_zeros::<u32>(2 * jobs.max(1))
                .map_err(gpu_err("alloc"))?,
            result: s
                .alloc_zeros::<u32>(jobs.max(1))
                .map_err(gpu_err("alloc"))?,
        })
    }

    fn fits(&self, bytes: usize, packets: usize, jobs: usize) -> bool {
        self.bytes.len() >= bytes && self.meta.len() >= 2 * packets && self.result.len() >= jobs
    }
}

impl GpuDfaMatcher {
    /// Compile the DFA kernel for GPU `ordinal` and upload `set`.
    pub fn new(set: &DfaSet, ordinal: usize) -> Result<GpuDfaMatcher, String> {
        Self::with_cache(set, ordinal, None)
    }

    /// [`GpuDfaMatcher::new`] with the kernel's PTX taken from (or stored in) `cache`.
    pub fn with_cache(
        set: &DfaSet,
        ordinal: usize,
        cache: Option<&DiskCache>,
    ) -> Result<GpuDfaMatcher, String> {
        let dev = probe(ordinal).map_err(|e| e.to_string())?;
        guarded("CUDA", || {
            let ctx = CudaContext::new(ordinal).map_err(gpu_err("context"))?;
            ctx.set_blocking_synchronize()
                .map_err(gpu_err("blocking synchronisation"))?;
            let (major, minor) = dev.compute_capability;
            let ptx = compiled_ptx(cache, &KERNELS[1], &format!("compute_{major}{minor}"))?;
            let module = ctx
                .load_module(Ptx::from_src(ptx))
                .map_err(gpu_err("load module"))?;
            let kernel = module
                .load_function("dfa_u16")
                .map_err(gpu_err("dfa_u16"))?;
            let stream = ctx.new_stream().map_err(gpu_err("stream"))?;
            let info: Vec<u32> = set
                .info()
                .iter()
                .flat_map(|d| [d.trans_base, d.flags_base, d.start, d.num_states])
                .collect();
            Ok(GpuDfaMatcher {
                trans: upload(&stream, set.trans())?,
                flags: upload(&stream, set.flags())?,
                info: upload(&stream, &info)?,
                ndfas: set.len() as u32,
                kernel,
                bufs: None,
                ev_start: timing_event(&ctx)?,
                ev_end: timing_event(&ctx)?,
                kernel_ns: None,
                stream,
            })
        })
    }

    /// Run `jobs` over `batch`; `out[j]` is job `j`'s earliest match end or
    /// [`crate::cpu::NO_MATCH`], exactly as [`crate::cpu::run_dfa`].
    pub fn run(
        &mut self,
        batch: &Batch,
        jobs: &[DfaJob],
        out: &mut Vec<u32>,
    ) -> Result<(), String> {
        out.clear();
        out.resize(jobs.len(), crate::cpu::NO_MATCH);
        self.kernel_ns = None;
        if jobs.is_empty() || batch.is_empty() {
            return Ok(());
        }
        guarded("CUDA", || {
            let s = self.stream.clone();
            let (nb, n, nj) = (batch.bytes().len(), batch.len(), jobs.len());
            if !self.bufs.as_ref().is_some_and(|b| b.fits(nb, n, nj)) {
                // Grow by half again, so a slowly growing load does not allocate each call.
                self.bufs = None;
                self.bufs = Some(DfaBuffers::alloc(&s, nb + nb / 2, n + n / 2, nj + nj / 2)?);
            }
            let Some(bufs) = self.bufs.as_mut() else {
                return Err("no DFA buffers".into());
            };
            let mut meta = Vec::with_capacity(2 * n);
            meta.extend_from_slice(batch.offsets());
            meta.extend_from_slice(batch.lens());
            let flat: Vec<u32> = jobs.iter().flat_map(|j| [j.packet, j.dfa]).collect();
            s.memcpy_htod(batch.bytes(), &mut bufs.bytes.slice_mut(..nb))
                .map_err(gpu_err("copy in"))?;
            s.memcpy_htod(&meta, &mut bufs.meta.slice_mut(..2 * n))
                .map_err(gpu_err("copy in"))?;
            s.memcpy_htod(&flat, &mut bufs.jobs.slice_mut(..2 * nj))
                .map_err(gpu_err("copy in"))?;
            let off = bufs.meta.slice(..n);
            let len = bufs.meta.slice(n..2 * n);
            let (npkts, njobs) = (n as u32, nj as u32);
            let mut b = s.launch_builder(&self.kernel);
            b.arg(&bufs.bytes)
                .arg(&off)
                .arg(&len)
                .arg(&npkts)
                .arg(&bufs.jobs)
                .arg(&njobs)
                .arg(&self.trans)
                .arg(&self.flags)
                .arg(&self.info)
                .arg(&self.ndfas)
                .arg(&mut bufs.result);
            self.ev_start.record(&s).map_err(gpu_err("event"))?;
            // SAFETY: the arguments match dfa_u16 in kernels/dfa.cu; the kernel checks every
            // job index against npkts and ndfas, and DfaSet checked the tables; the buffers
            // hold at least the batch's bytes, 2 x its packets and its jobs (`fits`).
            unsafe {
                b.launch(LaunchConfig {
                    grid_dim: (njobs.div_ceil(256), 1, 1),
                    block_dim: (256, 1, 1),
                    shared_mem_bytes: 0,
                })
            }
            .map_err(gpu_err("launch"))?;
            self.ev_end.record(&s).map_err(gpu_err("event"))?;
            s.memcpy_dtoh(&bufs.result.slice(..nj), out.as_mut_slice())
                .map_err(gpu_err("copy out"))?;
            s.synchronize().map_err(gpu_err("sync"))?;
            self.kernel_ns = elapsed_ns(&self.ev_start, &self.ev_end);
            Ok(())
        })
    }

    /// Device time of the last [`GpuDfaMatcher::run`]'s kernel (nanoseconds; CUDA events
    /// around the launch).
    pub fn kernel_ns(&self) -> Option<u64> {
        self.kernel_ns
    }
}

mod dispatch;
pub use dispatch::{DfaReply, DispatchHandle, Dispatcher};
