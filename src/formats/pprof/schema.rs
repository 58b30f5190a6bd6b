//! The prost messages of the pprof schema (`perftools.profiles`), generated from
//! `proto/profile.proto` by `tools/codegen` and checked in as
//! `src/formats/proto/perftools.profiles.rs`.

#![allow(missing_docs, clippy::all, clippy::pedantic)]

include!("../proto/perftools.profiles.rs");
