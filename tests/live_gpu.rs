//! Tests that need an NVIDIA GPU with its driver, NVRTC and (for counters) CUPTI 12.6+.
//!
//! They are ignored by default because no machine of this project's CI has a GPU. On a GPU machine:
//! `cargo test --test live_gpu -- --ignored` (or `scripts/gpu-check`, which runs them from a
//! prebuilt binary). They take one lock each: tests run in parallel threads of one process, and the
//! range profiler's automatic ranges would catch another test's kernel.

use pcsearch::backend::cuda::CudaBackend;
use pcsearch::backend::Backend;
use pcsearch::counters::Counter;
use pcsearch::kernel::KernelDescription;
use pcsearch::rules::Rules;
use std::path::Path;
use std::sync::{Mutex, MutexGuard};

static GPU: Mutex<()> = Mutex::new(());

/// The GPU, for one test at a time (a failed test must not poison the others).
fn gpu() -> MutexGuard<'static, ()> {
    GPU.lock().unwrap_or_else(|e| e.into_inner())
}

fn open(example: &str) -> CudaBackend {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(example);
    let desc = KernelDescription::load(&path).unwrap();
    let space = desc.enumerate().unwrap();
    CudaBackend::open(desc, space, 0, Rules::builtin().unwrap()).unwrap()
}

/// A backend for a one-file kernel written into `dir`.
fn open_source(dir: &Path, source: &str, toml: &str) -> CudaBackend {
    std::fs::write(dir.join("k.cu"), source).unwrap();
    std::fs::write(dir.join("k.toml"), toml).unwrap();
    let desc = KernelDescription::load(&dir.join("k.toml")).unwrap();
    let space = desc.enumerate().unwrap();
    CudaBackend::open(desc, space, 0, Rules::builtin().unwrap()).unwrap()
}

#[test]
#[ignore = "needs an NVIDIA GPU, its driver and NVRTC"]
fn transpose_configurations_run_and_pass_the_exact_check() {
    let _gpu = gpu();
    let mut b = open("transpose/transpose.toml");
    for id in [0, 50, 100, 191] {
        let m = b.measure(id, false).unwrap();
        assert!(
            m.runtime_us.is_some_and(|t| t > 0.0),
            "{}: {:?}",
            b.space().describe(id),
            m.failure
        );
        let details = b.details().borrow_mut().take().unwrap();
        // Machine code for the GPU itself, so that no PTX is left to a possibly older driver.
        assert!(
            details
                .target
                .as_deref()
                .is_some_and(|t| t.starts_with("sm_")),
            "{:?}",
            details.target
        );
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU, its driver and NVRTC"]
fn coulomb_layouts_agree_with_the_reference() {
    let _gpu = gpu();
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
    let _gpu = gpu();
    let mut b = open("transpose/transpose.toml");
    b.enable_profiling().expect("counters on this GPU");
    let m = b.measure(0, true).unwrap();
    assert!(m.failure.is_none(), "{:?}", m.failure);
    let details = b.details().borrow_mut().take().unwrap();
    let c = m.counters.unwrap_or_else(|| {
        panic!(
            "counters of a profiled test: {:?}",
            details.counters_unavailable
        )
    });
    // A 4096 x 4096 float transpose writes 64 MiB: at least that many 32-byte sectors pass through
    // L2 (DRAM writes may stay below it, since a 50 MB write-back L2 holds much of the output).
    let sectors = (4096.0 * 4096.0 * 4.0) / 32.0;
    assert!(c[Counter::L2Wt] >= sectors * 0.9, "{}", c[Counter::L2Wt]);
    assert!(c[Counter::L2Rt] >= sectors * 0.9, "{}", c[Counter::L2Rt]);
    assert!(c[Counter::InstExe] > 0.0);
    // Instruction classes come from separate pipes, not one SASS-patched value for all: a transpose
    // loads and stores but has no FP64 work.
    assert!(c[Counter::InstLdst] > 0.0);
    assert_eq!(c[Counter::InstF64], 0.0);
    assert_eq!(c[Counter::LocalSize], 8.0 * 8.0);
    assert!(details.phases.profile_s > 0.0);
    // A second profiled test reuses the profiler.
    let m = b.measure(1, true).unwrap();
    assert!(m.counters.is_some(), "{:?}", m.failure);
}

#[test]
#[ignore = "needs an NVIDIA GPU, its driver and NVRTC"]
fn a_compile_error_is_an_invalid_configuration_with_its_log() {
    let _gpu = gpu();
    let dir = tempfile::tempdir().unwrap();
    let toml = "[kernel]\nname = \"k\"\nsource = \"k.cu\"\n[parameters]\nX = [1]\n[launch]\ngrid = [\"1\"]\nblock = [\"1\"]\n[[argument]]\nname = \"a\"\nkind = \"buffer\"\ntype = \"f32\"\nlength = \"1\"\n";
    let mut b = open_source(
        dir.path(),
        "extern \"C\" __global__ void k(float* a) { a[0] = UNDEFINED; }",
        toml,
    );
    let m = b.measure(0, false).unwrap();
    assert!(m.failure.unwrap().contains("compilation failed"));
    let details = b.details().borrow_mut().take().unwrap();
    assert!(details.compiler_log.unwrap().contains("UNDEFINED"));
}

#[test]
#[ignore = "needs an NVIDIA GPU of compute capability 7.0+ (over 48 KiB of shared memory per block)"]
fn dynamic_shared_memory_above_48_kib_opts_in() {
    let _gpu = gpu();
    let dir = tempfile::tempdir().unwrap();
    let source = r#"
extern "C" __global__ void k(float* out) {
    extern __shared__ float s[];
    int n = WORDS;
    for (int i = threadIdx.x; i < n; i += blockDim.x) s[i] = (float)i;
    __syncthreads();
    if (threadIdx.x == 0) out[0] = s[n - 1];
}"#;
    let toml = "[kernel]\nname = \"k\"\nsource = \"k.cu\"\n[parameters]\nWORDS = [1024, 24576]\n[launch]\ngrid = [\"1\"]\nblock = [\"256\"]\nshared_memory = \"WORDS * 4\"\n[[argument]]\nname = \"out\"\nkind = \"buffer\"\ntype = \"f32\"\nlength = \"1\"\n";
    let mut b = open_source(dir.path(), source, toml);
    // 24576 floats = 96 KiB: beyond the default 48 KiB, within every Volta+ opt-in limit.
    for id in 0..2 {
        let m = b.measure(id, false).unwrap();
        assert!(
            m.runtime_us.is_some(),
            "{}: {:?}",
            b.space().describe(id),
            m.failure
        );
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU, its driver and NVRTC; keeps the GPU busy for about 2 s"]
fn a_runaway_kernel_is_abandoned_at_its_deadline() {
    let _gpu = gpu();
    let dir = tempfile::tempdir().unwrap();
    // Spins about 2 s by the SM clock, so the GPU is free again soon after the test.
    let source = r#"
extern "C" __global__ void k(float* out) {
    long long start = clock64();
    while (clock64() - start < 2000000000LL * SPIN) {}
    out[0] = 1.0f;
}"#;
    let toml = "[kernel]\nname = \"k\"\nsource = \"k.cu\"\ntimeout_s = 0.2\nrepetitions = 1\nwarmup = 0\n[parameters]\nSPIN = [2]\n[launch]\ngrid = [\"1\"]\nblock = [\"1\"]\n[[argument]]\nname = \"out\"\nkind = \"buffer\"\ntype = \"f32\"\nlength = \"1\"\n";
    let mut b = open_source(dir.path(), source, toml);
    let start = std::time::Instant::now();
    let m = b.measure(0, false).unwrap();
    let failure = m.failure.unwrap_or_default();
    assert!(failure.contains("still running after"), "{failure}");
    assert!(start.elapsed().as_secs_f64() < 1.5, "{:?}", start.elapsed());
    // The context is given up: the next test says so instead of queueing behind the runaway.
    let err = b.measure(0, false).unwrap_err().to_string();
    assert!(err.contains("--resume"), "{err}");
    drop(b);
    std::thread::sleep(std::time::Duration::from_secs(3));
}
