//! Any bytes as a recorded space, through format detection and every reader.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pcsearch::data::{parse, ReadOptions};
use std::path::Path;

fuzz_target!(|bytes: &[u8]| {
    let _ = parse(Path::new("fuzz"), bytes, &ReadOptions::default());
});
