//! Regenerates the checked-in prost code of the pprof schema:
//! `proto/profile.proto` → `src/formats/proto/perftools.profiles.rs`.
//!
//! Run from anywhere: `cargo run --manifest-path tools/codegen/Cargo.toml`. protox compiles the
//! schema in pure Rust (no protoc), prost-build writes the Rust code.

use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let proto_dir = root.join("proto");
    let out_dir = root.join("src/formats/proto");
    let fds = protox::compile(["profile.proto"], [&proto_dir])?;
    prost_build::Config::new()
        .out_dir(&out_dir)
        .compile_fds(fds)?;
    println!("wrote {}", out_dir.join("perftools.profiles.rs").display());
    Ok(())
}
