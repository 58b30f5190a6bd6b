//! Support code shared by the integration tests, one submodule per subject. Each test crate
//! includes the whole tree with `mod support;` and uses the parts it needs (hence the
//! `dead_code` allowance below); nothing here is a test itself.
//!
//! * [`corpus`]: where inputs are (the shared corpus, `tests/fixtures`, scratch folders) and
//!   sorted listings of them.
//! * [`golden`]: comparing output with an expected file, with the `PROFTAB_BLESS=1` switch.
//! * [`profile`]: checks every profile a reader returns must pass, and reading a file as a
//!   format.
//! * [`cli`]: running the `proftab` binary and finding external tools.
//! * [`go`]: `go tool pprof` as a judge, and the pprof files recorded with Go.
//! * [`r`]: R's `summaryRprof()` as a judge, and the Rprof inputs; [`rprof_gen`] generates
//!   large Rprof files.
//! * [`tables`]: small hand-made tables documents (v1 and v2) for the model tests.
//! * [`json`]: sample-by-sample views of a profile for the OTLP and Firefox tests.
//! * [`otlp`]: OTLP messages built by hand.
//! * [`text`]: stack summaries, detection, round trips and sweeps for the text-like formats.
//! * [`reliability`]: outcome lines and whole-profile checks of the reliability suites.
//! * [`importers`]: the checks shared by the tests of the small read-only importers (dhat,
//!   instruments, stackprof, pmcstat, papyrus): golden views, corpus-new reads, `go tool pprof`.
//! * [`perf_report`]: `perf report` rows as the judge of the perf-data tests.
//! * [`rng`]: a deterministic generator for generated inputs (also used by the benches).
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

pub mod cli;
pub mod corpus;
pub mod go;
pub mod golden;
pub mod importers;
pub mod json;
pub mod otlp;
pub mod perf_report;
pub mod profile;
pub mod r;
pub mod reliability;
pub mod rng;
pub mod rprof_gen;
pub mod tables;
pub mod text;
