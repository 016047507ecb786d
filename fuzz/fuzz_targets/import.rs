//! Bytes → importer: any input must give `Ok` or a typed error, never a panic or a hang.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = anim::import::load_slice(data, None);
});
