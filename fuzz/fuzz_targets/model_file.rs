//! Any bytes as a model file; a model that loads must predict a space without panicking.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pcsearch::model::CounterModel;
use pcsearch::space::TuningSpace;
use std::path::Path;

fuzz_target!(|bytes: &[u8]| {
    if let Ok(model) = CounterModel::parse(Path::new("fuzz.json"), bytes) {
        let mut space = TuningSpace::new(model.parameters().to_vec());
        let width = model.parameters().len();
        for v in [0.0, 1.0, 1e9] {
            let _ = space.push(&vec![v; width]);
        }
        let _ = model.predict(&space);
        let _ = model.to_file_bytes();
    }
});
