//! GPU offload for Osprey: Aho-Corasick over the AC-Full DFAs of `mpm` and regexes as DFAs
//! (Kargus §4.5, Gnort §3-4, MIDeA §3.2 and §4), with the CPU/GPU load balancing of Kargus
//! §5. Never required: CUDA (libcuda, libnvrtc) is loaded at run time, and [`probe`] says
//! why there is no GPU instead of failing.
//!
//! - [`Batch`]: one buffer per worker for every signature group, a group id per packet,
//!   16-byte aligned payloads for vector loads — the exact bytes copied to the device.
//! - [`AcTables`] / [`DfaSet`]: the matchers' tables in device layout (16-bit entries when
//!   the states fit).
//! - `kernels/ac.cu` (packet per thread; packet per block with chunk overlap) and
//!   `kernels/dfa.cu`, compiled to PTX by NVRTC at run time ([`nvrtc`]).
//! - [`cpu`]: the same kernels run on the CPU over the same buffers into the same
//!   [`ReportBuffer`] — how the host side is tested without a GPU, and the reference the GPU
//!   is checked against.
//! - [`merge_ac`]: report rows → confirmed matches (case check, overflowed packets
//!   rescanned on the CPU).
//! - [`GpuMatcher`] / [`Dispatcher`]: double buffering, two streams, one dispatcher thread
//!   per GPU that merges the batches of several workers into one device batch ([`feeder`])
//!   and sleeps while the device works; workers write their payloads straight into staged
//!   (page-locked) buffers of the dispatcher's pool ([`staging`], [`AcOffload::new_batch`]),
//!   submit and go on ([`AcOffload::submit`], [`PendingScan`]); the results come back into
//!   each worker's own rows, which the worker merges.
//! - [`balance`]: size threshold and the α/β/γ workload queue.
//! - [`cost`]: measured per-packet costs of CPU and GPU cycles ("CPU only" when the GPU
//!   does not pay).
//! - [`cache`]: compiled kernels and tables on disk, keyed by target and rule-set hash.
//!
//! ```
//! use gpu::{cpu, merge_ac, AcTables, Batch, ReportBuffer};
//! use mpm::{DfaTables, Limits, Pattern};
//! let group = DfaTables::build(&[Pattern::new(&b"attack"[..], 7)], &Limits::default()).unwrap();
//! let tables = AcTables::new(&[group]).unwrap();
//! let mut batch = Batch::new(128, 1 << 16);
//! batch.push(0, b"an attack here").unwrap();
//! let mut rows = ReportBuffer::new(16);
//! cpu::run_ac(&tables, &batch, cpu::AcLayout::PacketPerThread, &mut rows);
//! let mut found = Vec::new();
//! merge_ac(&tables, &batch, &rows, &mut found);
//! assert_eq!((found[0].packet, found[0].pattern, found[0].end), (0, 7, 9));
//! ```
#![deny(missing_docs)]

pub mod balance;
mod batch;
pub mod cache;
pub mod cost;
pub mod cpu;
mod device;
pub mod feeder;
pub mod nvrtc;
mod offload;
mod reports;
pub mod staging;
mod tables;

pub use batch::{Batch, PushError, ALIGN};
pub use cpu::{DfaJob, NO_MATCH};
pub use device::{
    probe, AcReply, DeviceInfo, DfaReply, DispatchHandle, Dispatcher, GpuConfig, GpuDfaMatcher,
    GpuMatcher, NoGpu, CUDA_VERSION,
};
pub use feeder::DispatchStats;
pub use offload::{
    device_nodes_present, AcOffload, Backend, GpuMode, Offload, OffloadError, PendingScan,
};
pub use reports::{merge_ac, AcMatch, MergeStats, RawReport, ReportBuffer};
pub use staging::StagingPool;
pub use tables::{
    hot_first, AcTables, DfaInfo, DfaSet, GroupInfo, HotFirst, HotWindows, TableError, Width,
};
