//! Any text as a counter map and as a device table.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pcsearch::counters::CounterMap;
use pcsearch::device::DeviceTable;
use std::path::Path;

fuzz_target!(|bytes: &[u8]| {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    let path = Path::new("fuzz.toml");
    if let Ok(map) = CounterMap::parse(text, path) {
        let _ = map.resolve(&map.metric_names());
    }
    let _ = DeviceTable::parse(text, path);
});
