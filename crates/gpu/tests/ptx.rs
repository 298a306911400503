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
