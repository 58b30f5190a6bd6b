//! instruments (Xcode Instruments deep-copy text) reader: never a panic; a read profile is valid and writes as pprof with the same total
//! per value type (`support::check_reader`). Seeds: `tests/fixtures/instruments/`, the invalid ones, and
//! the shared corpus (`scripts/fuzz.sh` copies them at run time).
#![no_main]

mod support;

use proftab::formats::Format;

libfuzzer_sys::fuzz_target!(|data: &[u8]| support::check_reader(Format::Instruments, data));
