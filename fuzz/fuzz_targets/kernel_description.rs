//! Any text as a kernel description; a small enough space is enumerated.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pcsearch::kernel::KernelDescription;
use std::path::Path;

fuzz_target!(|bytes: &[u8]| {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    if let Ok(desc) = KernelDescription::parse(text, Path::new("fuzz.toml")) {
        let combinations: f64 = desc.parameters.iter().map(|p| p.values.len() as f64).product();
        if combinations <= 10_000.0 {
            let _ = desc.enumerate();
        }
    }
});
