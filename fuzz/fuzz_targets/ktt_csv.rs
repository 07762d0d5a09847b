//! Any bytes through the KttCsvReader reader alone, then through detection and validation.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pcsearch::data::{parse, DatasetReader, ReadOptions, KttCsvReader};
use std::path::Path;

fuzz_target!(|bytes: &[u8]| {
    let path = Path::new("fuzz");
    let _ = KttCsvReader.read(path, bytes, &ReadOptions::default());
    let _ = parse(path, bytes, &ReadOptions::default());
});
