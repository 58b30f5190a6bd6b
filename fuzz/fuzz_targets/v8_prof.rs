//! v8-prof (preprocessed `node --prof` log) reader: never a panic; a read profile is valid and writes as pprof with the same total
//! per value type (`support::check_reader`). Seeds: `tests/fixtures/v8-prof/`, the invalid ones, and
//! the shared corpus (`scripts/fuzz.sh` copies them at run time).
#![no_main]

mod support;

use proftab::formats::Format;

libfuzzer_sys::fuzz_target!(|data: &[u8]| support::check_reader(Format::V8Prof, data));
