//! Live tuning on an NVIDIA GPU through cudarc (NVRTC, driver, CUPTI) and NVML.
//!
//! [`CudaBackend`] implements the same [`Backend`] trait as replay: each test compiles the
//! configuration with NVRTC (tuning parameters as `-D` defines), launches it, optionally checks its
//! output against a reference configuration, times it with CUDA events (warm-up, repetitions,
//! median), and, when profiled, collects counters with CUPTI's range profiler. Every library is
//! loaded at run time; [`libs`] checks they exist before cudarc is touched.

mod compile;
pub mod device;
pub mod libs;
pub mod metrics;
mod profiler;
pub mod run;

pub use device::DeviceFacts;
pub use metrics::{MetricPlan, PRE_VOLTA};

use crate::backend::{Backend, Measurement};
use crate::error::{Error, Result};
use crate::kernel::{args, ArgumentKind, HostData, Init, KernelDescription, LaunchGeometry, Scope};
use crate::rules::Rules;
use crate::space::{ConfigId, TuningSpace};
use cudarc::driver::sys::CUfunction_attribute;
use cudarc::driver::{CudaContext, CudaFunction, CudaModule, CudaStream};
use profiler::RangeProfiler;
use run::{ArgRef, DeviceBuf, Fail};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;
use std::time::Instant;

/// What a test produced besides its [`Measurement`]: what the journal and `record` keep.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TestDetails {
    /// Raw profiler metric values by name (profiled tests).
    pub metrics: Vec<(String, f64)>,
    /// NVRTC's log, when compilation failed.
    pub compiler_log: Option<String>,
    /// The launch, when the geometry was valid.
    pub geometry: Option<LaunchGeometry>,
    /// Why a profiled test has no counters though it ran (no CUPTI, a CUPTI too old…).
    pub counters_unavailable: Option<String>,
    /// What NVRTC built: `sm_90` machine code, or `compute_90` PTX when this NVRTC lacks the GPU.
    pub target: Option<String>,
    /// Where the test's time went.
    pub phases: Phases,
}

/// Wall time of a test's phases, seconds (zero for a phase it did not reach or reused).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Phases {
    /// NVRTC compilation and module load.
    pub compile_s: f64,
    /// Buffer preparation, the checked first run, warm-up and timed runs.
    pub run_s: f64,
    /// Counter collection (all replay passes).
    pub profile_s: f64,
}

/// Shared slot through which the backend hands each test's details to whoever records them.
pub type DetailsSlot = Rc<RefCell<Option<TestDetails>>>;

/// A compiled kernel, or why it failed and NVRTC's log.
type CompileResult = std::result::Result<Rc<Compiled>, (String, Option<String>)>;

struct Compiled {
    module: Arc<CudaModule>,
    function: CudaFunction,
    target: compile::Target,
}

/// Dynamic shared memory a kernel may use without opting in, bytes.
const DEFAULT_DYNAMIC_SHARED_BYTES: u32 = 48 * 1024;

/// Compiled modules kept loaded without a profiler: the current configuration's and the one before.
/// `record` runs each configuration once, so keeping them all would fill GPU memory on huge spaces.
/// Once the range profiler is enabled, no module is unloaded: CUPTI keeps state about the kernels it
/// has seen, and a launch after an unload crashed inside CUPTI on an H100 (CUDA 13.0, driver 580).
const KEPT_MODULES: usize = 2;

/// What a buffer or `__constant__` was generated from: its length and, for `Init::Constant`, the
/// value's bits (the expression may depend on tuning parameters).
type DataKey = (usize, Option<u64>);

/// A device buffer, what it was generated from, and the host data to restore it from when kernels
/// may have overwritten it.
struct Loaded {
    key: DataKey,
    buf: DeviceBuf,
    host: Option<HostData>,
}

/// A backend that runs configurations of a kernel description on a GPU.
pub struct CudaBackend {
    desc: KernelDescription,
    space: TuningSpace,
    source: String,
    facts: DeviceFacts,
    rules: Rules,
    // Declared before the modules and buffers so that it drops first: CUPTI is disabled on the
    // context while everything it may refer to still exists.
    profiler: Option<std::result::Result<RangeProfiler, String>>,
    stream: Arc<CudaStream>,
    compiled: Vec<(ConfigId, Rc<Compiled>)>,
    failed: HashMap<ConfigId, (String, Option<String>)>,
    buffers: Vec<Option<Loaded>>,
    constants: HashMap<(usize, DataKey), HostData>,
    reference: Option<Vec<f64>>,
    plan: std::result::Result<MetricPlan, String>,
    broken: Option<String>,
    details: DetailsSlot,
}

impl CudaBackend {
    /// Opens GPU `ordinal` for `desc`, whose enumerated space is `space`.
    ///
    /// Fails with one sentence when the driver or NVRTC library is missing, before any cudarc call.
    pub fn open(
        desc: KernelDescription,
        space: TuningSpace,
        ordinal: usize,
        rules: Rules,
    ) -> Result<CudaBackend> {
        libs::require_driver()?;
        libs::require_nvrtc()?;
        let source = desc.read_source()?;
        let count = CudaContext::device_count().map_err(|e| {
            Error::Device(format!(
                "the CUDA driver found no usable GPU ({})",
                run::describe(e)
            ))
        })?;
        if ordinal >= count.max(0) as usize {
            return Err(Error::invalid(format!(
                "--gpu-index {ordinal} does not exist: the driver sees {count} GPU(s)"
            )));
        }
        let ctx = CudaContext::new(ordinal).map_err(|e| {
            Error::Device(format!("cannot open GPU {ordinal}: {}", run::describe(e)))
        })?;
        // One stream, one kernel at a time: cudarc's per-buffer events would only add work
        // between the timing events.
        // SAFETY: no other stream uses these buffers.
        unsafe { ctx.disable_event_tracking() };
        let facts = device::query(&ctx)?;
        let plan = MetricPlan::for_device(&rules, facts.compute_capability);
        let buffers = desc.arguments.iter().map(|_| None).collect();
        Ok(CudaBackend {
            profiler: None,
            stream: ctx.default_stream(),
            desc,
            space,
            source,
            facts,
            rules,
            compiled: Vec::new(),
            failed: HashMap::new(),
            buffers,
            constants: HashMap::new(),
            reference: None,
            plan,
            broken: None,
            details: Rc::new(RefCell::new(None)),
        })
    }

    /// The GPU's facts.
    pub fn facts(&self) -> &DeviceFacts {
        &self.facts
    }

    /// The slot where each test leaves its [`TestDetails`].
    pub fn details(&self) -> DetailsSlot {
        self.details.clone()
    }

    /// Metric names profiled tests report, in order; `Err` says why counters are unavailable.
    pub fn metric_names(&self) -> std::result::Result<&[String], &str> {
        self.plan
            .as_ref()
            .map(|p| p.names.as_slice())
            .map_err(String::as_str)
    }

    fn compile(&mut self, config: ConfigId) -> std::result::Result<Rc<Compiled>, Fail> {
        if let Some((_, done)) = self.compiled.iter().find(|(id, _)| *id == config) {
            return Ok(done.clone());
        }
        if let Some((reason, _)) = self.failed.get(&config) {
            return Err(Fail::Invalid(reason.clone()));
        }
        let values = self.space.config(config).to_vec();
        let options = self.desc.compile_options(&values);
        let name = self.desc.source_path.display().to_string();
        let result: CompileResult =
            match compile::compile(&self.source, &name, &options, self.facts.compute_capability) {
                Err(f) => Err((f.reason, f.log)),
                Ok((image, target)) => match self.stream.context().load_module(image) {
                    Err(e) => Err((
                        format!("loading the module failed: {}", run::describe(e)),
                        None,
                    )),
                    Ok(module) => match module.load_function(&self.desc.name) {
                        Err(e) => Err((
                            format!(
                                "kernel `{}` not found in the module ({}): is it declared extern \"C\"?",
                                self.desc.name,
                                run::describe(e)
                            ),
                            None,
                        )),
                        Ok(function) => Ok(Rc::new(Compiled {
                            module,
                            function,
                            target,
                        })),
                    },
                },
            };
        match result {
            Ok(compiled) => {
                let profiling = matches!(self.profiler, Some(Ok(_)));
                if !profiling && self.compiled.len() >= KEPT_MODULES {
                    self.compiled.remove(0);
                }
                self.compiled.push((config, compiled.clone()));
                Ok(compiled)
            }
            // Failures are cheap to keep and expensive to find again.
            Err((reason, log)) => {
                self.failed.insert(config, (reason.clone(), log));
                Err(Fail::Invalid(reason))
            }
        }
    }

    /// Allocates and initialises buffers whose length or constant value changed, restores kept
    /// inputs, and copies `__constant__` data.
    fn prepare(
        &mut self,
        scope: &Scope,
        compiled: &Compiled,
    ) -> std::result::Result<Vec<HostData>, Fail> {
        let mut scalars = Vec::new();
        for (i, arg) in self.desc.arguments.iter().enumerate() {
            match &arg.kind {
                ArgumentKind::Scalar { value } => {
                    let v = value.number(scope).map_err(Fail::Invalid)?;
                    scalars.push(args::scalar(&arg.name, arg.element, v).map_err(Fail::Invalid)?);
                }
                ArgumentKind::Buffer { length, init } => {
                    let n = length_of(length, scope)?;
                    let key = (n, constant_bits(init, scope)?);
                    if let Some(loaded) = self.buffers[i].as_mut().filter(|l| l.key == key) {
                        if let Some(host) = &loaded.host {
                            run::refill(&self.stream, &mut loaded.buf, host)
                                .map_err(run::classify)?;
                        }
                        continue;
                    }
                    self.buffers[i] = None;
                    let memory = self.facts.memory_bytes;
                    args::check_size(arg.element, length, n, memory, "device memory")
                        .map_err(Fail::Invalid)?;
                    let data = args::generate(&arg.name, arg.element, init, n, scope)
                        .map_err(Fail::Invalid)?;
                    let buf = run::upload(&self.stream, &data).map_err(run::classify)?;
                    // With an output check, a kernel that writes its inputs would feed the next
                    // configuration other data than the reference had: keep inputs to restore them.
                    let restore = self.desc.check.as_ref().is_some_and(|c| c.output != i);
                    self.buffers[i] = Some(Loaded {
                        key,
                        buf,
                        host: restore.then_some(data),
                    });
                }
                ArgumentKind::Constant { length, init, when } => {
                    if let Some(w) = when {
                        if !w.boolean(scope).map_err(Fail::Invalid)? {
                            continue;
                        }
                    }
                    let n = length_of(length, scope)?;
                    let key = (i, (n, constant_bits(init, scope)?));
                    let data = match self.constants.get(&key) {
                        Some(d) => d.clone(),
                        None => {
                            let limit = args::CONSTANT_BYTES;
                            args::check_size(arg.element, length, n, limit, "__constant__ memory")
                                .map_err(Fail::Invalid)?;
                            let d = args::generate(&arg.name, arg.element, init, n, scope)
                                .map_err(Fail::Invalid)?;
                            self.constants.insert(key, d.clone());
                            d
                        }
                    };
                    copy_constant(&self.stream, &compiled.module, &arg.name, &data)?;
                }
            }
        }
        Ok(scalars)
    }

    /// Compiles, prepares and launches `config` once with the checked output zeroed; returns the
    /// geometry, compiled kernel, scalars and that output (when there is a check).
    #[allow(clippy::type_complexity)]
    fn first_run(
        &mut self,
        config: ConfigId,
        details: &mut TestDetails,
    ) -> std::result::Result<
        (
            LaunchGeometry,
            Rc<Compiled>,
            Vec<HostData>,
            Option<Vec<f64>>,
        ),
        Fail,
    > {
        let values = self.space.config(config).to_vec();
        let scope = self.desc.scope(&values);
        let geometry = self
            .desc
            .launch
            .evaluate(&scope, &self.facts.limits)
            .map_err(Fail::Invalid)?;
        details.geometry = Some(geometry);
        let started = Instant::now();
        let compiled = self.compile(config);
        details.phases.compile_s = started.elapsed().as_secs_f64();
        let compiled = match compiled {
            Ok(c) => c,
            Err(f) => {
                if let Some((_, log)) = self.failed.get(&config) {
                    details.compiler_log = log.clone();
                }
                return Err(f);
            }
        };
        details.target = Some(match compiled.target {
            compile::Target::Cubin(a) => format!("sm_{a}"),
            compile::Target::Ptx(a) => format!("compute_{a}"),
        });
        if geometry.shared_memory_bytes > DEFAULT_DYNAMIC_SHARED_BYTES {
            // Above 48 KiB a kernel must opt in (Volta and newer allow up to the device's
            // opt-in limit, which the geometry was checked against).
            compiled
                .function
                .set_attribute(
                    CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    geometry.shared_memory_bytes as i32,
                )
                .map_err(run::classify)?;
        }
        let started = Instant::now();
        let scalars = self.prepare(&scope, &compiled)?;
        let output = self.desc.check.as_ref().map(|c| c.output);
        if let Some(o) = output {
            if let Some(l) = self.buffers[o].as_mut() {
                run::zero(&self.stream, &mut l.buf).map_err(run::classify)?;
            }
        }
        {
            let refs = arg_refs(&self.desc, &self.buffers, &scalars);
            run::launch(&self.stream, &compiled.function, &geometry, &refs)
                .map_err(run::classify)?;
        }
        run::wait(&self.stream, run::deadline(self.desc.timeout_s, 1))?;
        let result = match output.and_then(|o| self.buffers[o].as_ref()) {
            Some(l) => Some(run::download(&self.stream, &l.buf).map_err(run::classify)?),
            None => None,
        };
        details.phases.run_s = started.elapsed().as_secs_f64();
        Ok((geometry, compiled, scalars, result))
    }

    /// Runs the reference configuration once, when there is a check and it has not run yet.
    ///
    /// Called before the tested configuration is prepared, since the reference prepares buffers
    /// of its own. Its failure is no fault of the tested configuration: it stops tuning.
    fn ensure_reference(&mut self) -> Result<()> {
        if self.reference.is_some() {
            return Ok(());
        }
        let Some(check) = self.desc.check.clone() else {
            return Ok(());
        };
        let id = check.reference_config(&self.space, &self.desc.path)?;
        let mut details = TestDetails::default();
        match self.first_run(id, &mut details) {
            Ok((_, _, _, out)) => {
                self.reference = Some(out.unwrap_or_default());
                Ok(())
            }
            Err(Fail::Invalid(r) | Fail::Fatal(r)) => Err(Error::Device(format!(
                "the reference configuration {} failed, so outputs cannot be checked: {r}{}",
                self.space.describe(id),
                details
                    .compiler_log
                    .map(|l| format!("\n{l}"))
                    .unwrap_or_default()
            ))),
        }
    }

    /// Sets up counter collection now rather than at the first profiled test; returns the replay
    /// passes per profiled test, or why counters are unavailable.
    pub fn enable_profiling(&mut self) -> std::result::Result<usize, String> {
        if let Some(problem) = self.plan.as_ref().err() {
            return Err(problem.clone());
        }
        self.ensure_profiler();
        match &self.profiler {
            Some(Ok(p)) => Ok(p.passes),
            Some(Err(reason)) => Err(reason.clone()),
            None => Err("the profiler was not set up".into()),
        }
    }

    /// Sets up CUPTI on the first profiled test, narrowing the metric plan to what the chip accepts.
    fn ensure_profiler(&mut self) {
        let Ok(plan) = &self.plan else {
            return;
        };
        if self.profiler.is_some() {
            return;
        }
        if let Some(problem) = libs::cupti_problem() {
            self.profiler = Some(Err(problem));
            return;
        }
        match RangeProfiler::new(
            self.stream.context().cu_ctx(),
            self.facts.ordinal,
            &plan.names,
        ) {
            Ok((profiler, accepted)) => {
                let mut narrowed = plan.clone();
                narrowed.restrict(&self.rules, &accepted);
                self.plan = Ok(narrowed);
                self.profiler = Some(Ok(profiler));
            }
            Err(reason) => self.profiler = Some(Err(reason)),
        }
    }

    fn test(
        &mut self,
        config: ConfigId,
        profile: bool,
        details: &mut TestDetails,
    ) -> std::result::Result<(f64, Option<crate::counters::CounterValues>), Fail> {
        if profile {
            self.ensure_profiler();
        }
        let (geometry, compiled, scalars, output) = self.first_run(config, details)?;
        if let (Some(out), Some(check)) = (output, &self.desc.check) {
            let reference = self.reference.as_deref().unwrap_or_default();
            args::compare(&out, reference, check.tolerance).map_err(Fail::Invalid)?;
        }
        let started = Instant::now();
        let refs = arg_refs(&self.desc, &self.buffers, &scalars);
        let mut launch = || run::launch(&self.stream, &compiled.function, &geometry, &refs);
        for _ in 1..self.desc.warmup {
            launch().map_err(run::classify)?;
        }
        let launches = self.desc.warmup + self.desc.repetitions;
        let times = run::time_launches(
            &self.stream,
            self.desc.repetitions,
            &mut launch,
            run::deadline(self.desc.timeout_s, launches),
        )?;
        let runtime = run::median(&times);
        details.phases.run_s += started.elapsed().as_secs_f64();
        if !profile {
            return Ok((runtime, None));
        }
        // Missing counters are no fault of the configuration: its runtime stands, and the reason
        // goes to the journal.
        let (plan, profiler) = match (&self.plan, &mut self.profiler) {
            (Ok(plan), Some(Ok(profiler))) => (plan.clone(), profiler),
            (Err(reason), _) => {
                details.counters_unavailable = Some(reason.clone());
                return Ok((runtime, None));
            }
            (Ok(_), Some(Err(reason))) => {
                details.counters_unavailable = Some(reason.clone());
                return Ok((runtime, None));
            }
            (Ok(_), None) => {
                details.counters_unavailable = Some("the profiler was not set up".into());
                return Ok((runtime, None));
            }
        };
        let stream = &self.stream;
        let mut fault = None;
        let deadline = run::deadline(self.desc.timeout_s, profiler.passes + 1);
        let mut once = || {
            let outcome = run::launch(stream, &compiled.function, &geometry, &refs)
                .map_err(run::classify)
                .and_then(|_| run::wait(stream, deadline));
            outcome.map_err(|f| {
                let text = match &f {
                    Fail::Invalid(r) | Fail::Fatal(r) => r.clone(),
                };
                fault = Some(f);
                text
            })
        };
        let started = Instant::now();
        let profiled = profiler.profile(&mut once);
        details.phases.profile_s = started.elapsed().as_secs_f64();
        let raw = match (profiled, fault) {
            (Ok(raw), _) => raw,
            // The kernel's own fault is classified as in timing: a sticky error breaks the context.
            (Err(_), Some(f)) => return Err(f),
            // CUPTI's own failure is no fault of the configuration, whose runtime stands; the
            // profiler is not tried again, so one cause gives one message, not one per test.
            (Err(r), None) => {
                let reason = format!("profiling failed: {r}");
                self.profiler = Some(Err(reason.clone()));
                details.counters_unavailable = Some(reason);
                return Ok((runtime, None));
            }
        };
        details.metrics = plan
            .names
            .iter()
            .cloned()
            .zip(raw.iter().copied())
            .collect();
        let counters = plan.counters(
            &raw,
            geometry.global_size() as f64,
            geometry.local_size() as f64,
        );
        Ok((runtime, Some(counters)))
    }
}

/// A report of GPU `ordinal`: its facts, the CUDA libraries in use, and the counter metrics CUPTI
/// accepts on it (what `pcsearch device` prints).
pub fn describe_device(ordinal: usize, rules: &Rules) -> Result<String> {
    let ctx = CudaContext::new(ordinal)
        .map_err(|e| Error::Device(format!("cannot open GPU {ordinal}: {}", run::describe(e))))?;
    let facts = device::query(&ctx)?;
    let mut out = format!("GPU {ordinal}: {}\n", facts.summary());
    if let Some(uuid) = &facts.uuid {
        out.push_str(&format!("uuid: {uuid}\n"));
    }
    let limits = &facts.limits;
    out.push_str(&format!(
        "limits: {} threads per block, {} bytes of shared memory per block (opt-in)\n",
        limits.max_threads_per_block,
        limits.max_shared_memory_per_block.unwrap_or(0)
    ));
    let (nvrtc, cupti) = libs::loaded_paths();
    let place = |p: Option<&std::path::Path>| {
        p.map_or("the loader's search path".to_string(), |p| {
            p.display().to_string()
        })
    };
    match libs::require_nvrtc() {
        Ok(()) => out.push_str(&format!("NVRTC: loaded from {}\n", place(nvrtc))),
        Err(e) => out.push_str(&format!("NVRTC: {e}\n")),
    }
    let plan = match MetricPlan::for_device(rules, facts.compute_capability) {
        Ok(plan) => plan,
        Err(reason) => {
            out.push_str(&format!("counters: unavailable ({reason})\n"));
            return Ok(out);
        }
    };
    if let Some(problem) = libs::cupti_problem() {
        out.push_str(&format!("counters: unavailable ({problem})\n"));
        return Ok(out);
    }
    out.push_str(&format!("CUPTI: loaded from {}\n", place(cupti)));
    match RangeProfiler::new(ctx.cu_ctx(), ordinal, &plan.names) {
        Err(reason) => out.push_str(&format!("counters: unavailable ({reason})\n")),
        Ok((profiler, accepted)) => {
            let rejected: Vec<&String> = plan
                .names
                .iter()
                .filter(|n| !accepted.contains(n))
                .collect();
            out.push_str(&format!(
                "counters: {} of {} metrics accepted, {} replay passes per profiled test\n",
                accepted.len(),
                plan.names.len(),
                profiler.passes
            ));
            for name in rejected {
                out.push_str(&format!("  rejected: {name}\n"));
            }
            let mut narrowed = plan.clone();
            narrowed.restrict(rules, &accepted);
            for counter in narrowed.unmeasured() {
                out.push_str(&format!("  unmeasured counter: {counter}\n"));
            }
        }
    }
    Ok(out)
}

/// The launch arguments, in kernel parameter order (constants are not arguments).
fn arg_refs<'a>(
    desc: &KernelDescription,
    buffers: &'a [Option<Loaded>],
    scalars: &'a [HostData],
) -> Vec<ArgRef<'a>> {
    let mut s = scalars.iter();
    let mut out = Vec::new();
    for (arg, buf) in desc.arguments.iter().zip(buffers) {
        match arg.kind {
            ArgumentKind::Scalar { .. } => {
                if let Some(v) = s.next() {
                    out.push(ArgRef::Scalar(v));
                }
            }
            ArgumentKind::Buffer { .. } => {
                if let Some(l) = buf {
                    out.push(ArgRef::Buffer(&l.buf));
                }
            }
            ArgumentKind::Constant { .. } => {}
        }
    }
    out
}

/// The value of an `Init::Constant`, as bits for a reuse key; `None` for other initialisations.
fn constant_bits(init: &Init, scope: &Scope) -> std::result::Result<Option<u64>, Fail> {
    match init {
        Init::Constant(e) => Ok(Some(e.number(scope).map_err(Fail::Invalid)?.to_bits())),
        _ => Ok(None),
    }
}

fn length_of(length: &crate::kernel::Expr, scope: &Scope) -> std::result::Result<usize, Fail> {
    let n = length.integer(scope).map_err(Fail::Invalid)?;
    if n < 1 {
        return Err(Fail::Invalid(format!(
            "{} `{}` gives {n}; lengths must be positive",
            length.role, length.text
        )));
    }
    Ok(n as usize)
}

fn copy_constant(
    stream: &Arc<CudaStream>,
    module: &Arc<CudaModule>,
    name: &str,
    data: &HostData,
) -> std::result::Result<(), Fail> {
    let mut symbol = module.get_global(name, stream).map_err(|e| {
        Fail::Invalid(format!(
            "no __constant__ symbol `{name}` in the module ({})",
            run::describe(e)
        ))
    })?;
    let bytes = data.len()
        * match data {
            HostData::F64(_) => 8,
            _ => 4,
        };
    if bytes > symbol.len() {
        return Err(Fail::Invalid(format!(
            "__constant__ `{name}` holds {} bytes, the argument has {bytes}",
            symbol.len()
        )));
    }
    // SAFETY: the view is at least `bytes` long (checked above) and reinterpreted as the element
    // type the description declares for the symbol.
    let copied = unsafe {
        match data {
            HostData::F32(v) => symbol
                .transmute_mut::<f32>(v.len())
                .map(|mut d| stream.memcpy_htod(v, &mut d)),
            HostData::F64(v) => symbol
                .transmute_mut::<f64>(v.len())
                .map(|mut d| stream.memcpy_htod(v, &mut d)),
            HostData::I32(v) => symbol
                .transmute_mut::<i32>(v.len())
                .map(|mut d| stream.memcpy_htod(v, &mut d)),
            HostData::U32(v) => symbol
                .transmute_mut::<u32>(v.len())
                .map(|mut d| stream.memcpy_htod(v, &mut d)),
        }
    };
    match copied {
        None => Err(Fail::Invalid(format!("__constant__ `{name}` is too small"))),
        Some(r) => r.map_err(run::classify),
    }
}

impl Backend for CudaBackend {
    fn space(&self) -> &TuningSpace {
        &self.space
    }

    fn measure(&mut self, config: ConfigId, profile: bool) -> Result<Measurement> {
        if let Some(cause) = &self.broken {
            return Err(Error::Device(format!(
                "the GPU context is unusable after {cause}; run again with --resume to continue past that configuration"
            )));
        }
        let start = Instant::now();
        // Before `config` is prepared (the reference prepares its own buffers); an error stops
        // tuning with nothing journaled for `config`.
        self.ensure_reference()?;
        let mut details = TestDetails::default();
        let outcome = self.test(config, profile, &mut details);
        *self.details.borrow_mut() = Some(details);
        let cost_s = start.elapsed().as_secs_f64();
        Ok(match outcome {
            Ok((runtime, counters)) => Measurement {
                runtime_us: Some(runtime),
                counters,
                failure: None,
                cost_s,
            },
            Err(Fail::Invalid(reason)) => Measurement::failed(reason, cost_s),
            Err(Fail::Fatal(reason)) => {
                self.broken = Some(format!(
                    "{} faulted ({reason})",
                    self.space.describe(config)
                ));
                Measurement::failed(reason, cost_s)
            }
        })
    }
}
