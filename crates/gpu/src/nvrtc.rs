//! The kernel sources and their run-time compilation to PTX with NVRTC (loaded dynamically:
//! a machine without libnvrtc gets an error, never a panic or a link failure).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::OnceLock;

use cudarc::nvrtc::{compile_ptx_with_opts, CompileOptions};

/// Source of the Aho-Corasick kernels.
pub const AC_SOURCE: &str = include_str!("../kernels/ac.cu");
/// Source of the regex DFA kernel.
pub const DFA_SOURCE: &str = include_str!("../kernels/dfa.cu");

/// A kernel source file and the entry points it must export.
#[derive(Clone, Copy, Debug)]
pub struct KernelSource {
    /// File name (used as the NVRTC program name).
    pub name: &'static str,
    /// CUDA C++ source.
    pub source: &'static str,
    /// `extern "C"` entry points.
    pub entries: &'static [&'static str],
}

/// Every kernel the backend launches.
pub const KERNELS: [KernelSource; 2] = [
    KernelSource {
        name: "ac.cu",
        source: AC_SOURCE,
        entries: &[
            "ac_thread_u16",
            "ac_block_u16",
            "ac_thread_u32",
            "ac_block_u32",
            "ac_hot_u16",
            "ac_hot16_u16",
            "ac_hot_u32",
            "ac_hot16_u32",
        ],
    },
    KernelSource {
        name: "dfa.cu",
        source: DFA_SOURCE,
        entries: &["dfa_u16"],
    },
];

/// The oldest architecture CUDA 13 compiles for (Turing): PTX for it loads on every newer
/// device through the driver's JIT.
pub const BASELINE_ARCH: &str = "compute_75";

thread_local! {
    /// How many [`guarded`] calls this thread is inside.
    static GUARDED: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// Whether this thread is inside a call whose panics are caught and turned into errors
/// (cudarc panics when a CUDA library or symbol is missing): a process-wide panic hook
/// that ends the process must let those through.
pub fn panic_is_caught() -> bool {
    GUARDED.with(|g| g.get() > 0)
}

/// Run `f`, turning a panic inside cudarc (it panics when a library or symbol is missing)
/// into an error.
pub(crate) fn guarded<T>(what: &str, f: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
    GUARDED.with(|g| g.set(g.get() + 1));
    let caught = catch_unwind(AssertUnwindSafe(f));
    GUARDED.with(|g| g.set(g.get() - 1));
    match caught {
        Ok(r) => r,
        Err(e) => {
            let msg = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown panic".into());
            Err(format!("{what}: {msg}"))
        }
    }
}

static PRELOADED: OnceLock<Vec<libloading::os::unix::Library>> = OnceLock::new();

/// Open the NVRTC library at `path` (e.g. the `nvidia-cuda-nvrtc` wheel's
/// `nvidia/cu13/lib/libnvrtc.so.13`) and the `libnvrtc-builtins.so.*` next to it for the
/// rest of the process, with global symbols, so that the dynamic loader resolves the later
/// lookups by name (`libnvrtc.so.13`, and NVRTC's own of its builtins) to them without
/// `LD_LIBRARY_PATH`.
pub fn preload_nvrtc(path: &Path) -> Result<(), String> {
    let open = |p: &Path| {
        // SAFETY: loading NVRTC runs its initialisers only (no user code); the handle is
        // kept in a static for the life of the process.
        unsafe {
            libloading::os::unix::Library::open(
                Some(p),
                libloading::os::unix::RTLD_NOW | libloading::os::unix::RTLD_GLOBAL,
            )
        }
        .map_err(|e| format!("cannot load {}: {e}", p.display()))
    };
    let mut libs = Vec::new();
    // The builtins first: NVRTC opens them by name when it compiles.
    if let Some(dir) = path.parent() {
        let mut builtins: Vec<_> = std::fs::read_dir(dir)
            .map(|d| {
                d.flatten()
                    .map(|e| e.path())
                    .filter(|p| {
                        p.file_name()
                            .and_then(|n| n.to_str())
                            .is_some_and(|n| n.starts_with("libnvrtc-builtins.so"))
                    })
                    .collect()
            })
            .unwrap_or_default();
        builtins.sort();
        for b in builtins {
            libs.push(open(&b)?);
        }
    }
    libs.push(open(path)?);
    // A second preload keeps the first handles; the new ones are closed again.
    let _ = PRELOADED.set(libs);
    Ok(())
}

/// Whether libnvrtc can be opened; the reason when not.
pub fn nvrtc_available() -> Result<(), String> {
    // SAFETY: only tries to dlopen the library by name.
    let present = guarded("nvrtc", || {
        Ok(unsafe { cudarc::nvrtc::sys::is_culib_present() })
    })?;
    if present || PRELOADED.get().is_some() {
        Ok(())
    } else {
        Err(
            "libnvrtc not found (kernels are compiled at run time; install the CUDA runtime \
             compiler or set LD_LIBRARY_PATH)"
                .into(),
        )
    }
}

/// NVRTC's version (major, minor).
pub fn nvrtc_version() -> Result<(i32, i32), String> {
    nvrtc_available()?;
    guarded("nvrtc", || {
        let (mut major, mut minor) = (0, 0);
        // SAFETY: nvrtcVersion writes two ints through valid pointers.
        let r = unsafe { cudarc::nvrtc::sys::nvrtcVersion(&mut major, &mut minor) };
        if r == cudarc::nvrtc::sys::nvrtcResult::NVRTC_SUCCESS {
            Ok((major, minor))
        } else {
            Err(format!("nvrtcVersion: {r:?}"))
        }
    })
}

/// Compile one source to PTX for `arch` (`compute_XY`).
pub fn compile(kernel: &KernelSource, arch: &str) -> Result<String, String> {
    nvrtc_available()?;
    let opts = CompileOptions {
        name: Some(kernel.name.to_string()),
        options: vec![format!("--gpu-architecture={arch}"), "--std=c++17".into()],
        ..Default::default()
    };
    guarded("nvrtc", || {
        let ptx = compile_ptx_with_opts(kernel.source, opts)
            .map_err(|e| format!("{}: {e}", kernel.name))?;
        Ok(ptx.to_src())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_guarded_panic_is_an_error_and_marked_caught_while_it_runs() {
        assert!(!panic_is_caught());
        let r: Result<(), String> = guarded("test", || {
            assert!(panic_is_caught());
            panic!("no such symbol")
        });
        assert_eq!(r, Err("test: no such symbol".to_string()));
        assert!(!panic_is_caught());
    }

    #[test]
    fn every_entry_point_is_in_its_source() {
        for k in KERNELS {
            for e in k.entries {
                let decl = format!("void {e}(");
                assert!(k.source.contains(&decl), "{} lacks {e}", k.name);
            }
        }
    }

    #[test]
    fn a_missing_library_is_an_error_not_a_panic() {
        assert!(preload_nvrtc(Path::new("/nonexistent/libnvrtc.so.13")).is_err());
    }
}
