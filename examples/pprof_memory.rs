//! Where a pprof parse's memory goes: the sizes (length and capacity, in MiB) of the model's
//! columns after `read_any`, beside the input and its inflated size, then the call tree the
//! viewer builds from them, with the process's RSS and peak RSS after each.
//! Issue #12's memory target (wasm memory ≤ 2× the raw input) is checked against these counts.
//!
//! `cargo run --release --example pprof_memory -- FILE`

use std::process::ExitCode;

use proftab::analysis::view::View;
use proftab::formats::{gzip, read_any, ReadOptions};

const MIB: f64 = 1048576.0;

fn mib<T>(v: &Vec<T>) -> String {
    let size = std::mem::size_of::<T>() as f64;
    format!(
        "{:8.1} MiB len, {:8.1} MiB capacity ({} rows)",
        v.len() as f64 * size / MIB,
        v.capacity() as f64 * size / MIB,
        v.len()
    )
}

/// A line of /proc/self/status in MiB (Linux), NaN elsewhere.
fn status_mib(key: &str) -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(key))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

fn main() -> ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: pprof_memory FILE");
        return ExitCode::from(2);
    };
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("pprof_memory: {path}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let raw = if gzip::is_gzip(&bytes) {
        gzip::gunzip_capped(&bytes, 8 << 30, "pprof").map_or(0, |r| r.len())
    } else {
        bytes.len()
    };
    println!(
        "input {:.1} MiB, raw (inflated) {:.1} MiB",
        bytes.len() as f64 / MIB,
        raw as f64 / MIB
    );
    let parsed = match read_any(&bytes, &ReadOptions::default()) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("pprof_memory: {path}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let p = &parsed.profile;
    let prefix = &p.stacks.prefix;
    println!(
        "stacks.prefix    {:8.1} MiB ({} rows, {} listed)",
        prefix.bytes() as f64 / MIB,
        prefix.len(),
        prefix.listed_len()
    );
    let location = &p.stacks.location;
    println!(
        "stacks.location  {:8.1} MiB ({} rows of {} bytes)",
        (location.len() * location.cell_bytes()) as f64 / MIB,
        location.len(),
        location.cell_bytes()
    );
    println!("samples.source   {}", mib(&p.samples.source));
    println!("samples.stack    {}", mib(&p.samples.stack));
    for (i, v) in p.values.iter().enumerate() {
        println!("values[{i}]        {}", mib(&v.values));
        if let Some(pr) = &v.present {
            println!("values[{i}].present {}", mib(pr));
        }
    }
    println!("locations        {} rows", p.locations.function.len());
    println!(
        "after parse: RSS {:.1} MiB, peak RSS {:.1} MiB",
        status_mib("VmRSS"),
        status_mib("VmHWM")
    );
    // What the viewer builds next (wasm_view.rs `Viewer.analyse`): the call tree and the
    // view of the default value type.
    let view = View::new(parsed.profile);
    let t = view.tree();
    println!(
        "view tree        {} nodes ({})",
        t.len(),
        if t.shares_stacks() {
            "parent and frame shared with the stack table"
        } else {
            "parent and frame its own: 8 bytes a node"
        }
    );
    println!(
        "after view: RSS {:.1} MiB, peak RSS {:.1} MiB",
        status_mib("VmRSS"),
        status_mib("VmHWM")
    );
    ExitCode::SUCCESS
}
