//! Any text as a constraint or launch-size expression, compiled and evaluated.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pcsearch::kernel::expr::{scope, Expr};
use std::path::Path;

fuzz_target!(|bytes: &[u8]| {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    let known = vec!["N".to_string(), "TILE".to_string()];
    if let Ok(e) = Expr::compile(text, "constraint `fuzz`", Path::new("fuzz.toml"), 1, &known) {
        let s = scope([("N", 4096.0), ("TILE", 0.0)]);
        let _ = e.number(&s);
        let _ = e.integer(&s);
        let _ = e.boolean(&s);
    }
});
