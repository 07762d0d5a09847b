//! Preprocessor defines: how problem sizes and tuning parameters reach the kernel source.

use crate::space::format_value;

/// `NAME=VALUE` pairs: problem sizes first, then tuning parameters, in file order.
pub fn defines<'a>(
    problem: impl IntoIterator<Item = (&'a str, f64)>,
    parameters: impl IntoIterator<Item = (&'a str, f64)>,
) -> Vec<(String, String)> {
    problem
        .into_iter()
        .chain(parameters)
        .map(|(n, v)| (n.to_string(), format_value(v)))
        .collect()
}

/// The defines as NVRTC options (`-DNAME=VALUE`).
pub fn define_options(defines: &[(String, String)]) -> Vec<String> {
    defines.iter().map(|(n, v)| format!("-D{n}={v}")).collect()
}

/// The defines as `#define` lines, for a source file that reproduces one configuration.
pub fn define_lines(defines: &[(String, String)]) -> String {
    defines
        .iter()
        .map(|(n, v)| format!("#define {n} {v}\n"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn problem_sizes_come_first_and_integers_have_no_fraction() {
        let d = defines([("N", 4096.0)], [("TILE", 32.0), ("SCALE", 0.5)]);
        assert_eq!(
            define_options(&d),
            vec!["-DN=4096", "-DTILE=32", "-DSCALE=0.5"]
        );
        assert_eq!(
            define_lines(&d),
            "#define N 4096\n#define TILE 32\n#define SCALE 0.5\n"
        );
    }
}
