//! proftab: profiles from pprof, Rprof, OpenTelemetry, Firefox, collapsed stacks, Chrome
//! `.cpuprofile` and speedscope, read into the v2 relational profile tables (docs/model.md),
//! analysed, and written back out in any of those formats. docs/ARCHITECTURE.md is the map.
//!
//! ```
//! use proftab::model::ProfileBuilder;
//! let mut b = ProfileBuilder::new();
//! let src = b.add_source("manual", None, None);
//! let samples = b.value_type("samples", "count");
//! let f = b.function_named("main", Some("main.go"));
//! let loc = b.location(Some(f), 12);
//! let stack = b.stack_leaf_first(&[loc]);
//! b.add_sample_with_values(src, stack, &[(samples, 1.0)]);
//! let profile = b.build().unwrap();
//! assert_eq!(profile.num_samples(), 1);
//! ```

pub mod analysis;
pub mod chunks;
pub mod cli;
pub mod formats;
pub mod hash;
pub mod memory;
pub mod model;
#[cfg(target_arch = "wasm32")]
pub mod wasm;
#[cfg(target_arch = "wasm32")]
pub mod wasm_cli;
#[cfg(all(target_arch = "wasm32", feature = "columnar"))]
pub mod wasm_columnar;
#[cfg(target_arch = "wasm32")]
pub mod wasm_export;
#[cfg(target_arch = "wasm32")]
pub mod wasm_fault;
#[cfg(target_arch = "wasm32")]
pub mod wasm_list;
#[cfg(target_arch = "wasm32")]
pub mod wasm_load;
#[cfg(target_arch = "wasm32")]
pub mod wasm_source;
#[cfg(target_arch = "wasm32")]
pub mod wasm_stream;
#[cfg(target_arch = "wasm32")]
pub mod wasm_symbols;
#[cfg(target_arch = "wasm32")]
pub mod wasm_tree;
#[cfg(target_arch = "wasm32")]
pub mod wasm_view;
