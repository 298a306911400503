//! Every kernel compiles to PTX with NVRTC, without a GPU. NVRTC comes from the
//! `nvidia-cuda-nvrtc==13.0.*` pip wheel (CUDA 13.0, the device machines' driver: newer PTX
//! would not load there). The library is found through `OSPREY_NVRTC_LIB` (its path), else
//! by asking python3 where the wheel is, else by the dynamic loader's own search. Without
//! it the test prints why and passes, unless `OSPREY_REQUIRE_NVRTC=1`.

mod common;

use common::load_nvrtc as load;
use gpu::nvrtc::{self, BASELINE_ARCH, KERNELS};

fn required() -> bool {
    std::env::var("OSPREY_REQUIRE_NVRTC").as_deref() == Ok("1")
}

#[test]
fn every_kernel_compiles_to_ptx() {
    let from = match load() {
        Ok(from) => from,
        Err(why) if !required() => {
            eprintln!("skip: NVRTC not found ({why}); set OSPREY_NVRTC_LIB or pip install 'nvidia-cuda-nvrtc==13.0.*'");
            return;
        }
        Err(why) => panic!("OSPREY_REQUIRE_NVRTC=1 but NVRTC not found: {why}"),
    };
    let version = nvrtc::nvrtc_version().expect("nvrtcVersion");
    eprintln!("NVRTC {}.{} from {from}", version.0, version.1);
    assert_eq!(
        version.0, 13,
        "NVRTC must be CUDA 13.x (the device driver's major version)"
    );
    // The baseline and the device machines' architecture (H100/H200: sm_90).
    for arch in [BASELINE_ARCH, "compute_90"] {
        for k in KERNELS {
            let ptx =
                nvrtc::compile(&k, arch).unwrap_or_else(|e| panic!("{} for {arch}: {e}", k.name));
            assert!(ptx.contains(".version"), "{} is PTX", k.name);
            assert!(
                ptx.contains(&format!(".target sm_{}", &arch[8..])),
                "{}: target",
                k.name
            );
            for e in k.entries {
                assert!(
                    ptx.contains(&format!(".entry {e}(")),
                    "{} for {arch}: entry {e} missing",
                    k.name
                );
            }
            eprintln!("{} for {arch}: {} bytes of PTX", k.name, ptx.len());
        }
    }
    // A kernel that does not compile is an error with NVRTC's log, not a panic.
    let bad = nvrtc::KernelSource {
        name: "bad.cu",
        source: "extern \"C\" __global__ void k() { undeclared(); }",
        entries: &[],
    };
    let err = nvrtc::compile(&bad, BASELINE_ARCH).unwrap_err();
    assert!(err.contains("bad.cu"), "{err}");
}

#[test]
fn compiled_ptx_is_cached_on_disk_and_a_corrupt_file_is_recompiled() {
    use gpu::cache::{compiled_ptx, DiskCache};
    use std::sync::atomic::Ordering::Relaxed;
    match load() {
        Ok(_) => {}
        Err(why) if !required() => {
            eprintln!("skip: NVRTC not found ({why})");
            return;
        }
        Err(why) => panic!("OSPREY_REQUIRE_NVRTC=1 but NVRTC not found: {why}"),
    }
    let dir = std::env::temp_dir().join(format!("osprey-ptx-cache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let cache = DiskCache::new(&dir);
    let k = &KERNELS[1];
    let fresh = compiled_ptx(Some(&cache), k, BASELINE_ARCH).unwrap();
    assert_eq!(fresh, nvrtc::compile(k, BASELINE_ARCH).unwrap());
    let s = cache.stats();
    assert_eq!((s.misses.load(Relaxed), s.stored.load(Relaxed)), (1, 1));
    assert_eq!(compiled_ptx(Some(&cache), k, BASELINE_ARCH).unwrap(), fresh);
    assert_eq!(s.hits.load(Relaxed), 1);
    // Another architecture is another entry.
    compiled_ptx(Some(&cache), k, "compute_90").unwrap();
    assert_eq!(s.misses.load(Relaxed), 2);
    // Corrupt every file: rejected by the checksum, recompiled, the same PTX.
    for f in std::fs::read_dir(&dir).unwrap().flatten() {
        let mut d = std::fs::read(f.path()).unwrap();
        let at = d.len() - 10;
        d[at] ^= 0x20;
        std::fs::write(f.path(), d).unwrap();
    }
    assert_eq!(compiled_ptx(Some(&cache), k, BASELINE_ARCH).unwrap(), fresh);
    assert_eq!(s.rejected.load(Relaxed), 1);
    assert_eq!(s.stored.load(Relaxed), 3);
    let _ = std::fs::remove_dir_all(&dir);
}
