//! Bottlenecks and ΔPC of real recorded rows, one per counter generation, against values worked out
//! here by hand from the raw CSV cells (the formulas of the README's "How it works"), independently of the crate's code.

mod common;

use pcsearch::counters::{Counter, CounterValues, Generation};
use pcsearch::data::{load, ReadOptions};
use pcsearch::expert::{analyze, react, Bottlenecks, ExpertOptions, Formula};
use pcsearch::rules::Rules;
use std::path::PathBuf;

fn data(rel: &str) -> PathBuf {
    common::replay_file("ktt-paper").join(rel)
}

struct Row {
    counters: CounterValues,
    rules: Rules,
    device: pcsearch::device::DeviceInfo,
}

fn row(rel: &str, gpu: &str, config: &str) -> Row {
    let ds = load(&data(rel), &ReadOptions::default()).unwrap();
    let rules = Rules::builtin().unwrap();
    let device = rules.devices.by_key(gpu).unwrap();
    let generation = Generation::of_compute_capability(device.compute_capability);
    let mapped = rules.counter_map(generation).resolve(&ds.metric_names);
    let id = ds.space.parse_assignment(config).unwrap();
    Row {
        counters: ds.counters(&mapped, id),
        rules,
        device,
    }
}

fn close(a: f64, b: f64, what: &str) {
    assert!((a - b).abs() < 1e-6, "{what}: got {a}, expected {b}");
}

fn options(r: &Row, compute_bound: bool, formula: Formula) -> ExpertOptions {
    ExpertOptions::new(&r.rules.reaction, compute_bound, formula)
}

#[test]
fn kepler_gtx680_first_coulomb_row() {
    if common::skip_without_data() {
        return;
    }
    // Line 2 of 680-coulomb_output.csv.
    let r = row(
        "coulomb/680-coulomb_output.csv",
        "680",
        "WORK_GROUP_SIZE_X=16,WORK_GROUP_SIZE_Y=4,WORK_GROUP_SIZE_Z=1,Z_ITERATIONS=1,INNER_UNROLL_FACTOR=0,USE_SOA=0,USE_CONSTANT_MEMORY=0,VECTOR_SIZE=1",
    );
    let b: Bottlenecks = analyze(
        &r.counters,
        &r.device,
        &options(&r, false, Formula::Implementation),
    );
    close(
        b.dram_read,
        2542246.0 / (2542246.0 + 2097152.0) * 0.1,
        "DRAM read",
    );
    close(
        b.dram_write,
        2097152.0 / (2542246.0 + 2097152.0) * 0.1,
        "DRAM write",
    );
    close(
        b.l2_read,
        69206555.0 / (69206555.0 + 2097153.0) * 0.2,
        "L2 read",
    );
    // Kepler has no warp efficiencies: both are taken as 100 %.
    let fitted = 32.0 * 340787200.0;
    let util = 52.5478 / 100.0;
    close(b.f32, 8623489024.0 / fitted * util, "FP32");
    close(b.int, 654311424.0 / fitted * util, "INT");
    close(b.ldst, 1107296256.0 / fitted * util, "LDST");
    let util_max = 8623489024.0 / fitted; // 0.791 > 0.7
    close(
        b.issue,
        (100.0 - 52.5478) / 100.0 * (util_max - 0.7) / 0.3,
        "issue (implementation)",
    );
    close(b.sm, (100.0 - 99.9919) / 100.0, "idle SMs");
    close(b.parallelism, 0.0, "16.7 M threads saturate 8 x 192 cores");
    let d = react(
        &b,
        Generation::Kepler,
        &options(&r, false, Formula::Implementation),
    );
    close(d[Counter::L2Rt], -b.l2_read, "ΔL2_RT");
    close(d[Counter::InstF32], 0.0, "b_f32 = 0.416 is below 0.7");
    close(
        d[Counter::InstIssueU],
        b.issue,
        "implementation raises issue utilisation",
    );
    // The paper: b_issue = util_max x idle issue = 0.376, below the 0.7 threshold: no reaction.
    let paper = analyze(&r.counters, &r.device, &options(&r, false, Formula::Paper));
    close(
        paper.issue,
        util_max * (100.0 - 52.5478) / 100.0,
        "issue (paper)",
    );
    close(
        react(
            &paper,
            Generation::Kepler,
            &options(&r, false, Formula::Paper),
        )[Counter::InstIssueU],
        0.0,
        "paper ΔISSUE",
    );
}

#[test]
fn pascal_gtx1070_fp32_bound_row() {
    if common::skip_without_data() {
        return;
    }
    // Line 98 of 1070-coulomb_output.csv: the FP32 bottleneck exceeds the 0.7 threshold.
    let r = row(
        "coulomb/1070-coulomb_output.csv",
        "1070",
        "WORK_GROUP_SIZE_X=32,WORK_GROUP_SIZE_Y=2,WORK_GROUP_SIZE_Z=1,Z_ITERATIONS=8,INNER_UNROLL_FACTOR=0,USE_SOA=0,USE_CONSTANT_MEMORY=0,VECTOR_SIZE=1",
    );
    let opts = options(&r, false, Formula::Implementation);
    let b = analyze(&r.counters, &r.device, &opts);
    let fitted = 32.0 * 175177728.0 * (100.0 / 100.0) * (100.0 / 99.8129);
    let util = 84.3785 / 100.0;
    let b_f32 = 4848615424.0 / fitted * util;
    close(b.f32, b_f32, "FP32");
    close(b.tex, 0.9, "texture");
    close(b.sfu, 0.9, "special functions");
    close(
        b.dram_read,
        2097318.0 / (2097318.0 + 2064435.0) * 0.4,
        "DRAM read",
    );
    // Implementation: util_max includes the SFU (0.9 > FP32 share 0.863).
    close(
        b.issue,
        (100.0 - 84.3785) / 100.0 * (0.9 - 0.7) / 0.3,
        "issue",
    );
    let d = react(&b, Generation::MaxwellPascal, &opts);
    let above = (b_f32 - 0.7) / 0.3;
    close(d[Counter::InstF32], -above, "ΔINST_F32");
    close(
        d[Counter::Fp32Eff],
        above,
        "implementation also raises FP32 efficiency",
    );
    close(d[Counter::TexRwt], -0.9, "ΔTEX_RWT");
    let paper = react(
        &b,
        Generation::MaxwellPascal,
        &options(&r, false, Formula::Paper),
    );
    close(
        paper[Counter::Fp32Eff],
        0.0,
        "the paper has no FP32 efficiency reaction",
    );
    close(paper[Counter::InstF32], -above, "paper ΔINST_F32");
}

#[test]
fn turing_rtx2080_row_with_busy_special_function_units() {
    if common::skip_without_data() {
        return;
    }
    // Line 14 of 2080-coulomb_output.csv (Nsight metric names, Volta+ scales).
    let r = row(
        "coulomb/2080-coulomb_output.csv",
        "2080",
        "WORK_GROUP_SIZE_X=16,WORK_GROUP_SIZE_Y=4,WORK_GROUP_SIZE_Z=1,Z_ITERATIONS=8,INNER_UNROLL_FACTOR=0,USE_SOA=0,USE_CONSTANT_MEMORY=0,VECTOR_SIZE=1",
    );
    let opts = options(&r, false, Formula::Implementation);
    let b = analyze(&r.counters, &r.device, &opts);
    close(
        b.dram_read,
        2097230.0 / (2097230.0 + 2097010.0) * 0.384595,
        "DRAM read",
    );
    close(
        b.l2_write,
        2097180.0 / (2098760.0 + 2097180.0) * 0.0897711,
        "L2 write",
    );
    close(b.tex, 0.066994, "texture");
    // Dual issue: 50 % issue utilisation already saturates one instruction type.
    let fitted = 32.0 * 168755000.0;
    let util = (59.9725f64 / 50.0).min(1.0);
    let b_f32 = 3774870000.0 / fitted * util;
    close(b.f32, b_f32, "FP32");
    close(b.sfu, 0.959544, "XU pipe");
    close(
        b.issue,
        (100.0 - 59.9725) / 100.0 * (0.959544 - 0.7) / 0.3,
        "issue",
    );
    close(b.parallelism, 0.0, "2 M threads saturate 46 x 64 cores");
    let d = react(&b, Generation::Volta, &opts);
    close(d[Counter::InstF32], 0.0, "b_f32 = 0.699 is just below 0.7");
    // Compute-bound: threshold 0.5; the Volta implementation reacts with the full bottleneck.
    let cb = options(&r, true, Formula::Implementation);
    let d = react(
        &analyze(&r.counters, &r.device, &cb),
        Generation::Volta,
        &cb,
    );
    close(d[Counter::InstF32], -b_f32, "Volta ΔINST_F32 = -b_f32");
    let cbp = options(&r, true, Formula::Paper);
    let d = react(
        &analyze(&r.counters, &r.device, &cbp),
        Generation::Volta,
        &cbp,
    );
    close(
        d[Counter::InstF32],
        -(b_f32 - 0.5) / 0.5,
        "paper ΔINST_F32 rescaled",
    );
    // The same bottlenecks expressed for a Pascal-trained model use the rescaled rule.
    let d = react(&b, Generation::MaxwellPascal, &cb);
    close(
        d[Counter::InstF32],
        -(b_f32 - 0.5) / 0.5,
        "Pascal model: rescaled",
    );
}
