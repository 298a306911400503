//! Intel Hyperscan (libhs, from `libhyperscan-dev`) as a benchmark engine, through a small
//! FFI over its literal API (`hs_compile_lit_multi`). For comparison only.

use crate::engines::Engine;
use mpm::Pattern;
use std::cell::Cell;
use std::ffi::{c_char, c_int, c_uint, c_ulonglong, c_void, CStr};
use std::ptr;

#[repr(C)]
struct HsDatabase {
    _private: [u8; 0],
}

#[repr(C)]
struct HsScratch {
    _private: [u8; 0],
}

#[repr(C)]
struct HsCompileError {
    message: *const c_char,
    expression: c_int,
}

type MatchHandler =
    unsafe extern "C" fn(c_uint, c_ulonglong, c_ulonglong, c_uint, *mut c_void) -> c_int;

const HS_SUCCESS: c_int = 0;
const HS_FLAG_CASELESS: c_uint = 1;
const HS_MODE_BLOCK: c_uint = 1;

#[link(name = "hs")]
extern "C" {
    fn hs_compile_lit_multi(
        expressions: *const *const c_char,
        flags: *const c_uint,
        ids: *const c_uint,
        lens: *const usize,
        elements: c_uint,
        mode: c_uint,
        platform: *const c_void,
        db: *mut *mut HsDatabase,
        error: *mut *mut HsCompileError,
    ) -> c_int;
    fn hs_free_compile_error(error: *mut HsCompileError) -> c_int;
    fn hs_free_database(db: *mut HsDatabase) -> c_int;
    fn hs_alloc_scratch(db: *const HsDatabase, scratch: *mut *mut HsScratch) -> c_int;
    fn hs_free_scratch(scratch: *mut HsScratch) -> c_int;
    fn hs_database_size(db: *const HsDatabase, size: *mut usize) -> c_int;
    fn hs_scratch_size(scratch: *const HsScratch, size: *mut usize) -> c_int;
    fn hs_scan(
        db: *const HsDatabase,
        data: *const c_char,
        length: c_uint,
        flags: c_uint,
        scratch: *mut HsScratch,
        on_event: MatchHandler,
        context: *mut c_void,
    ) -> c_int;
}

/// A compiled literal database and its scratch space (single-threaded use).
pub(crate) struct Hyperscan {
    db: *mut HsDatabase,
    scratch: Cell<*mut HsScratch>,
}

impl Hyperscan {
    pub fn new(patterns: &[Pattern]) -> Result<Self, String> {
        if patterns.is_empty() {
            return Err("hyperscan needs at least one pattern".into());
        }
        let exprs: Vec<*const c_char> = patterns.iter().map(|p| p.bytes.as_ptr().cast()).collect();
        let lens: Vec<usize> = patterns.iter().map(|p| p.bytes.len()).collect();
        let flags: Vec<c_uint> = patterns
            .iter()
            .map(|p| if p.nocase { HS_FLAG_CASELESS } else { 0 })
            .collect();
        let ids: Vec<c_uint> = (0..patterns.len() as c_uint).collect();
        let mut db = ptr::null_mut();
        let mut err = ptr::null_mut();
        // SAFETY: the four arrays have `patterns.len()` elements and outlive the call; the
        // literal pointers point at `lens[i]` readable bytes; db and err are out-pointers.
        let rc = unsafe {
            hs_compile_lit_multi(
                exprs.as_ptr(),
                flags.as_ptr(),
                ids.as_ptr(),
                lens.as_ptr(),
                patterns.len() as c_uint,
                HS_MODE_BLOCK,
                ptr::null(),
                &mut db,
                &mut err,
            )
        };
        if rc != HS_SUCCESS {
            let message = if err.is_null() {
                format!("hs_compile_lit_multi failed ({rc})")
            } else {
                // SAFETY: on failure libhs sets `err` to a valid error whose message is a
                // NUL-terminated string; we free it once, after copying the message.
                unsafe {
                    let m = CStr::from_ptr((*err).message)
                        .to_string_lossy()
                        .into_owned();
                    hs_free_compile_error(err);
                    m
                }
            };
            return Err(message);
        }
        let mut scratch = ptr::null_mut();
        // SAFETY: `db` is the valid database just compiled; `scratch` is an out-pointer.
        let rc = unsafe { hs_alloc_scratch(db, &mut scratch) };
        if rc != HS_SUCCESS {
            // SAFETY: `db` is valid and freed once.
            unsafe { hs_free_database(db) };
            return Err(format!("hs_alloc_scratch failed ({rc})"));
        }
        Ok(Hyperscan {
            db,
            scratch: Cell::new(scratch),
        })
    }
}

unsafe extern "C" fn count_match(
    _: c_uint,
    _: c_ulonglong,
    _: c_ulonglong,
    _: c_uint,
    ctx: *mut c_void,
) -> c_int {
    // SAFETY: `ctx` is the `&mut u64` passed to `hs_scan` below, alive for the scan.
    unsafe { *ctx.cast::<u64>() += 1 };
    0
}

impl Engine for Hyperscan {
    fn count(&self, haystacks: &[&[u8]]) -> u64 {
        let mut n = 0u64;
        for h in haystacks {
            let Ok(len) = c_uint::try_from(h.len()) else {
                continue;
            };
            // SAFETY: db and scratch are valid for `self`'s life; `Hyperscan` is neither
            // Send nor Sync (raw pointers), so the scratch is used by one scan at a time;
            // the data pointer covers `len` bytes; the context is a live `u64`.
            unsafe {
                hs_scan(
                    self.db,
                    h.as_ptr().cast(),
                    len,
                    0,
                    self.scratch.get(),
                    count_match,
                    (&mut n as *mut u64).cast(),
                );
            }
        }
        n
    }

    fn memory_bytes(&self) -> usize {
        let (mut db, mut scratch) = (0usize, 0usize);
        // SAFETY: both handles are valid; the sizes are out-parameters.
        unsafe {
            hs_database_size(self.db, &mut db);
            hs_scratch_size(self.scratch.get(), &mut scratch);
        }
        db + scratch
    }
}

impl Drop for Hyperscan {
    fn drop(&mut self) {
        // SAFETY: both were allocated by libhs in `new` and are freed exactly once here.
        unsafe {
            hs_free_scratch(self.scratch.get());
            hs_free_database(self.db);
        }
    }
}
