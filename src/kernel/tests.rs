//! Tests of description parsing, errors, enumeration and the example kernels' spaces.

use super::*;

const SMALL: &str = r#"
[kernel]
name = "scale"
source = "scale.cu"
repetitions = 5

[problem]
N = 1024

[parameters]
BLOCK = [32, 64, 128, 256]
WPT = [1, 2, 4]

[constraints]
enough_blocks = "N / (BLOCK * WPT) >= 4"

[launch]
grid = ["N / (BLOCK * WPT)"]
block = ["BLOCK"]

[[argument]]
name = "data"
kind = "buffer"
type = "f32"
length = "N"
init = "index"

[[argument]]
name = "factor"
kind = "scalar"
type = "f32"
value = "2.5"
"#;

fn parse(text: &str) -> Result<KernelDescription> {
    KernelDescription::parse(text, Path::new("dir/k.toml"))
}

fn err(text: &str) -> String {
    parse(text).unwrap_err().to_string()
}

#[test]
fn a_small_description_parses_with_defaults() {
    let d = parse(SMALL).unwrap();
    assert_eq!(d.name, "scale");
    assert_eq!(d.source_path, Path::new("dir/scale.cu"));
    assert_eq!(d.repetitions, 5);
    assert_eq!(d.warmup, 1);
    assert_eq!(d.timeout_s, 10.0);
    assert_eq!(d.problem, vec![("N".to_string(), 1024.0)]);
    assert_eq!(d.parameter_names(), vec!["BLOCK", "WPT"]);
    assert_eq!(d.parameters[0].values, vec![32.0, 64.0, 128.0, 256.0]);
    assert_eq!(d.arguments.len(), 2);
    assert!(d.check.is_none());
}

#[test]
fn parameters_keep_file_order_not_alphabetical_order() {
    let text = SMALL.replace(
        "BLOCK = [32, 64, 128, 256]\nWPT = [1, 2, 4]",
        "WPT = [1, 2, 4]\nBLOCK = [32, 64, 128, 256]",
    );
    assert_eq!(
        parse(&text).unwrap().parameter_names(),
        vec!["WPT", "BLOCK"]
    );
}

#[test]
fn constraints_filter_the_cross_product_in_nested_loop_order() {
    let d = parse(SMALL).unwrap();
    let space = d.enumerate().unwrap();
    // N / (BLOCK * WPT) >= 4  <=>  BLOCK * WPT <= 256.
    let expected: Vec<[f64; 2]> = vec![
        [32.0, 1.0],
        [32.0, 2.0],
        [32.0, 4.0],
        [64.0, 1.0],
        [64.0, 2.0],
        [64.0, 4.0],
        [128.0, 1.0],
        [128.0, 2.0],
        [256.0, 1.0],
    ];
    assert_eq!(space.len(), expected.len());
    for (id, e) in expected.iter().enumerate() {
        assert_eq!(space.config(id), e);
    }
}

#[test]
fn defines_and_compile_options_of_a_configuration() {
    let mut text = SMALL.to_string();
    text = text.replace(
        "repetitions = 5",
        "repetitions = 5\ncompiler_options = [\"--use_fast_math\"]",
    );
    let d = parse(&text).unwrap();
    assert_eq!(
        d.compile_options(&[64.0, 2.0]),
        vec!["-DN=1024", "-DBLOCK=64", "-DWPT=2", "--use_fast_math"]
    );
}

#[test]
fn launch_geometry_of_a_configuration() {
    let d = parse(SMALL).unwrap();
    let g = d
        .launch
        .evaluate(&d.scope(&[128.0, 2.0]), &DeviceLimits::default())
        .unwrap();
    assert_eq!(g.grid, [4, 1, 1]);
    assert_eq!(g.block, [128, 1, 1]);
    assert_eq!(g.global_size(), 512);
    assert_eq!(g.local_size(), 128);
}

#[test]
fn syntax_errors_name_file_and_line() {
    let e = err("[kernel]\nname = \"k\"\nsource = \n");
    assert!(e.starts_with("dir/k.toml:3:"), "{e}");
}

#[test]
fn missing_and_unknown_keys_are_named() {
    let e = err(&SMALL.replace("name = \"scale\"\n", ""));
    assert!(e.contains("missing field `name`"), "{e}");
    let e = err(&SMALL.replace("repetitions = 5", "repetitions = 5\nrepetition = 3"));
    assert!(
        e.contains("unknown field `repetition`") && e.starts_with("dir/k.toml:"),
        "{e}"
    );
}

#[test]
fn bad_expressions_and_unknown_names_are_reported_at_their_line() {
    let e = err(&SMALL.replace("N / (BLOCK * WPT) >= 4", "N / (BLOCK * TILE) >= 4"));
    assert!(
        e.starts_with("dir/k.toml:15: constraint `enough_blocks`: unknown name `TILE`"),
        "{e}"
    );
    let e = err(&SMALL.replace(
        "grid = [\"N / (BLOCK * WPT)\"]",
        "grid = [\"N / (BLOCK *\"]",
    ));
    assert!(
        e.starts_with("dir/k.toml:18: launch.grid[0]: cannot parse"),
        "{e}"
    );
    let e = err(&SMALL.replace("grid = [\"N / (BLOCK * WPT)\"]", "grid = []"));
    assert!(e.contains("launch.grid needs 1 to 3 expressions"), "{e}");
}

#[test]
fn constraints_that_do_not_give_a_truth_value_fail_with_the_configuration() {
    let d = parse(&SMALL.replace("N / (BLOCK * WPT) >= 4", "N / BLOCK")).unwrap();
    let e = d.enumerate().unwrap_err().to_string();
    assert!(
        e.starts_with("dir/k.toml:15: constraint `enough_blocks` `N / BLOCK` gives 32, not true or false (at BLOCK=32,WPT=1)"),
        "{e}"
    );
}

#[test]
fn parameter_and_argument_errors_are_named() {
    let e = err(&SMALL.replace("WPT = [1, 2, 4]", "WPT = [1, 2, 2]"));
    assert!(
        e.contains("parameter `WPT`: value 2 is listed twice"),
        "{e}"
    );
    let e = err(&SMALL.replace("WPT = [1, 2, 4]", "WPT = []"));
    assert!(e.contains("parameter `WPT` has no values"), "{e}");
    let e = err(&SMALL.replace("WPT = [1, 2, 4]", "WPT = [1, \"two\"]"));
    assert!(e.contains("value `\"two\"` is not a number"), "{e}");
    let e = err(&SMALL.replace("WPT = [1, 2, 4]", "N = [1, 2]\nWPT = [1]"));
    assert!(
        e.contains("`N` is both a problem size and a tuning parameter"),
        "{e}"
    );
    let e = err(&SMALL.replace("type = \"f32\"\nlength", "type = \"half\"\nlength"));
    assert!(
        e.contains("argument `data`: type `half` is not one of"),
        "{e}"
    );
    let e = err(&SMALL.replace("init = \"index\"", "init = \"ones\""));
    assert!(e.contains("argument `data`: init `ones`"), "{e}");
    let e = err(&SMALL.replace("kind = \"scalar\"", "kind = \"texture\""));
    assert!(e.contains("argument `factor`: kind `texture`"), "{e}");
    let e = err(&SMALL.replace("length = \"N\"", "length = \"M\""));
    assert!(
        e.contains("argument `data` length: unknown name `M`"),
        "{e}"
    );
    let e = err(&SMALL.replace("length = \"N\"\n", ""));
    assert!(
        e.contains("argument `data`: a buffer needs `length`"),
        "{e}"
    );
    let e = err(&SMALL.replace("repetitions = 5", "repetitions = 0"));
    assert!(
        e.starts_with("dir/k.toml:5: kernel.repetitions must be between 1 and 100000"),
        "{e}"
    );
    let e = err(&SMALL.replace("repetitions = 5", "repetitions = 100001"));
    assert!(
        e.starts_with("dir/k.toml:5: kernel.repetitions must be between 1 and 100000"),
        "{e}"
    );
    let e = err(&SMALL.replace(
        "repetitions = 5",
        "repetitions = 5\nwarmup = 9223372036854775807",
    ));
    assert!(
        e.starts_with("dir/k.toml:6: kernel.warmup must be between 0 and 100000"),
        "{e}"
    );
    for bad in ["0.0", "-1.0", "1e9", "nan"] {
        let e = err(&SMALL.replace(
            "repetitions = 5",
            &format!("repetitions = 5\ntimeout_s = {bad}"),
        ));
        assert!(
            e.starts_with("dir/k.toml:6: kernel.timeout_s must be between 0.001 and 3600 seconds"),
            "{bad}: {e}"
        );
    }
    let d = parse(&SMALL.replace("repetitions = 5", "repetitions = 5\ntimeout_s = 0.5")).unwrap();
    assert_eq!(d.timeout_s, 0.5);
}

#[test]
fn check_section_is_validated() {
    let with = |c: &str| format!("{SMALL}\n[check]\n{c}\n");
    let d = parse(&with("output = \"data\"\ntolerance = 1e-4")).unwrap();
    let c = d.check.clone().unwrap();
    assert_eq!(
        (c.output, c.tolerance, c.reference.clone()),
        (0, 1e-4, None)
    );
    assert_eq!(
        c.reference_config(&d.enumerate().unwrap(), &d.path)
            .unwrap(),
        0
    );
    let d = parse(&with(
        "output = \"data\"\ntolerance = 0.0\nreference = { BLOCK = 64, WPT = 4 }",
    ))
    .unwrap();
    let space = d.enumerate().unwrap();
    let id = d
        .check
        .as_ref()
        .unwrap()
        .reference_config(&space, &d.path)
        .unwrap();
    assert_eq!(space.config(id), &[64.0, 4.0]);
    let d = parse(&with(
        "output = \"data\"\ntolerance = 0.0\nreference = { BLOCK = 256, WPT = 4 }",
    ))
    .unwrap();
    let e = d
        .check
        .as_ref()
        .unwrap()
        .reference_config(&d.enumerate().unwrap(), &d.path);
    assert!(e.unwrap_err().to_string().contains("violates a constraint"));
    let e = err(&with("output = \"factor\"\ntolerance = 0.1"));
    assert!(
        e.contains("check.output `factor` is not a buffer argument"),
        "{e}"
    );
    let e = err(&with(
        "output = \"data\"\ntolerance = 0.1\nreference = { BLOCK = 64 }",
    ));
    assert!(e.contains("must give every tuning parameter"), "{e}");
}

#[test]
fn an_unsatisfiable_space_is_an_error() {
    let d = parse(&SMALL.replace("N / (BLOCK * WPT) >= 4", "BLOCK > 1000")).unwrap();
    let e = d.enumerate().unwrap_err().to_string();
    assert_eq!(e, "dir/k.toml: no configuration satisfies every constraint");
}

fn example(name: &str) -> KernelDescription {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(name);
    KernelDescription::load(&path).unwrap()
}

#[test]
fn coulomb_example_space_has_423_configurations() {
    let d = example("coulomb/coulomb.toml");
    assert_eq!(
        d.parameter_names(),
        vec![
            "BLOCK_X",
            "BLOCK_Y",
            "Z_ITERATIONS",
            "INNER_UNROLL",
            "USE_SOA",
            "USE_CONSTANT_MEMORY",
            "VECTOR_SIZE"
        ]
    );
    let space = d.enumerate().unwrap();
    assert_eq!(space.len(), 423);
    // First configuration: the smallest block that fills whole warps.
    assert_eq!(space.config(0), &[16.0, 2.0, 1.0, 1.0, 0.0, 0.0, 1.0]);
    assert!(d.read_source().unwrap().contains("coulomb_sum"));
    let id = space
        .parse_assignment("BLOCK_X=32,BLOCK_Y=4,Z_ITERATIONS=8,INNER_UNROLL=4,USE_SOA=0,USE_CONSTANT_MEMORY=1,VECTOR_SIZE=1")
        .unwrap();
    let g = d
        .launch
        .evaluate(&d.scope(space.config(id)), &DeviceLimits::default())
        .unwrap();
    assert_eq!(g.grid, [3, 24, 12]);
    assert_eq!(g.block, [32, 4, 1]);
    assert_eq!(
        d.compile_options(space.config(id)),
        vec![
            "-DGRID_SIZE=96",
            "-DATOMS=4000",
            "-DBLOCK_X=32",
            "-DBLOCK_Y=4",
            "-DZ_ITERATIONS=8",
            "-DINNER_UNROLL=4",
            "-DUSE_SOA=0",
            "-DUSE_CONSTANT_MEMORY=1",
            "-DVECTOR_SIZE=1",
            "--use_fast_math"
        ]
    );
}

#[test]
fn coulomb_layouts_receive_the_same_atoms() {
    let d = example("coulomb/coulomb.toml");
    let scope = d.scope(&[16.0, 2.0, 1.0, 1.0, 0.0, 0.0, 1.0]);
    let data = |name: &str| {
        let a = d.arguments.iter().find(|a| a.name == name).unwrap();
        let (ArgumentKind::Buffer { length, init } | ArgumentKind::Constant { length, init, .. }) =
            &a.kind
        else {
            panic!("{name} is a scalar")
        };
        let n = length.integer(&scope).unwrap() as usize;
        args::generate(&a.name, a.element, init, n, &scope)
            .unwrap()
            .to_f64()
    };
    let aos = data("atoms");
    assert_eq!(aos.len(), 16_000);
    assert_eq!(data("atoms_const"), aos);
    for (k, name) in ["atom_x", "atom_y", "atom_z", "atom_q"].iter().enumerate() {
        let soa = data(name);
        assert_eq!(soa.len(), 4000);
        assert!(
            soa.iter().enumerate().all(|(i, &v)| v == aos[4 * i + k]),
            "{name}"
        );
    }
}

#[test]
fn transpose_example_space_has_192_configurations() {
    let d = example("transpose/transpose.toml");
    assert_eq!(
        d.parameter_names(),
        vec!["TILE", "WPT", "USE_SHARED", "PADDING", "DIAGONAL", "UNROLL"]
    );
    let space = d.enumerate().unwrap();
    assert_eq!(space.len(), 192);
    let id = space
        .parse_assignment("TILE=32,WPT=4,USE_SHARED=1,PADDING=1,DIAGONAL=0,UNROLL=1")
        .unwrap();
    let g = d
        .launch
        .evaluate(&d.scope(space.config(id)), &DeviceLimits::default())
        .unwrap();
    assert_eq!((g.grid, g.block), ([128, 128, 1], [32, 8, 1]));
    assert_eq!(g.global_size(), 4096 * 4096 / 4);
    assert!(space
        .parse_assignment("TILE=32,WPT=4,USE_SHARED=0,PADDING=1,DIAGONAL=0,UNROLL=1")
        .is_err());
    assert_eq!(d.check.as_ref().unwrap().tolerance, 0.0);
}

#[test]
fn fingerprint_changes_with_the_source() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("k.toml");
    std::fs::write(&path, SMALL).unwrap();
    std::fs::write(dir.path().join("scale.cu"), "// v1").unwrap();
    let d = KernelDescription::load(&path).unwrap();
    let a = d.fingerprint().unwrap();
    assert_eq!(a, d.fingerprint().unwrap());
    std::fs::write(dir.path().join("scale.cu"), "// v2").unwrap();
    assert_ne!(a, d.fingerprint().unwrap());
}
