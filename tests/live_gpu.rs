//! Tests that need an NVIDIA GPU with its driver, NVRTC and (for counters) CUPTI 12.6+.
//!
//! They are ignored by default because no machine of this project has a GPU. On a GPU machine:
//! `LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64 cargo test --test live_gpu -- --ignored`

use pcsearch::backend::cuda::CudaBackend;
use pcsearch::backend::Backend;
use pcsearch::counters::Counter;
use pcsearch::kernel::KernelDescription;
use pcsearch::rules::Rules;
use std::path::Path;

fn open(example: &str) -> CudaBackend {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(example);
    let desc = KernelDescription::load(&path).unwrap();
    let space = desc.enumerate().unwrap();
    CudaBackend::open(desc, space, 0, Rules::builtin().unwrap()).unwrap()
}

#[test]
#[ignore = "needs an NVIDIA GPU, its driver and NVRTC"]
fn transpose_configurations_run_and_pass_the_exact_check() {
    let mut b = open("transpose/transpose.toml");
    for id in [0, 50, 100, 191] {
        let m = b.measure(id, false).unwrap();
        assert!(
            m.runtime_us.is_some_and(|t| t > 0.0),
            "{}: {:?}",
            b.space().describe(id),
            m.failure
        );
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU, its driver and NVRTC"]
fn coulomb_layouts_agree_with_the_reference() {
    let mut b = open("coulomb/coulomb.toml");
    let n = b.space().len();
    for id in [0, n / 3, n / 2, n - 1] {
        let m = b.measure(id, false).unwrap();
        assert!(
            m.failure.is_none(),
            "{}: {:?}",
            b.space().describe(id),
            m.failure
        );
    }
}

#[test]
#[ignore = "needs a GPU of compute capability 7.0+ and CUPTI 12.6+"]
fn profiled_tests_return_volta_counters() {
    let mut b = open("transpose/transpose.toml");
    let m = b.measure(0, true).unwrap();
    assert!(m.failure.is_none(), "{:?}", m.failure);
    let c = m.counters.expect("counters of a profiled test");
    // A 4096 x 4096 float transpose moves at least 64 MiB each way through DRAM (32-byte sectors).
    assert!(
        c[Counter::DramWt] >= (4096.0 * 4096.0 * 4.0) / 32.0 * 0.9,
        "{}",
        c[Counter::DramWt]
    );
    assert!(c[Counter::InstExe] > 0.0);
    assert_eq!(c[Counter::LocalSize], 8.0 * 8.0);
}

#[test]
#[ignore = "needs an NVIDIA GPU, its driver and NVRTC"]
fn a_compile_error_is_an_invalid_configuration_with_its_log() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("bad.cu"),
        "extern \"C\" __global__ void k(float* a) { a[0] = UNDEFINED; }",
    )
    .unwrap();
    let toml = "[kernel]\nname = \"k\"\nsource = \"bad.cu\"\n[parameters]\nX = [1]\n[launch]\ngrid = [\"1\"]\nblock = [\"1\"]\n[[argument]]\nname = \"a\"\nkind = \"buffer\"\ntype = \"f32\"\nlength = \"1\"\n";
    std::fs::write(dir.path().join("bad.toml"), toml).unwrap();
    let desc = KernelDescription::load(&dir.path().join("bad.toml")).unwrap();
    let space = desc.enumerate().unwrap();
    let mut b = CudaBackend::open(desc, space, 0, Rules::builtin().unwrap()).unwrap();
    let m = b.measure(0, false).unwrap();
    assert!(m.failure.unwrap().contains("compilation failed"));
    let details = b.details().borrow_mut().take().unwrap();
    assert!(details.compiler_log.unwrap().contains("UNDEFINED"));
}
