//! Any bytes through the KttJsonReader reader alone, then through detection and validation.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pcsearch::data::{parse, DatasetReader, ReadOptions, KttJsonReader};
use std::path::Path;

fuzz_target!(|bytes: &[u8]| {
    let path = Path::new("fuzz");
    let _ = KttJsonReader.read(path, bytes, &ReadOptions::default());
    let _ = parse(path, bytes, &ReadOptions::default());
});
