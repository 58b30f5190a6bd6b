//! Scratch: read an Rprof file, print warnings, write it back to stdout.
use proftab::formats::{rprof, ReadOptions, WriteOptions};
fn main() {
    let path = std::env::args().nth(1).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    match rprof::read(&bytes, &ReadOptions::default()) {
        Ok(parsed) => {
            for w in &parsed.warnings { eprintln!("read warning: {w}"); }
            let out = rprof::write(&parsed.profile, &WriteOptions::default()).unwrap();
            for w in &out.warnings { eprintln!("write warning: {w}"); }
            use std::io::Write;
            std::io::stdout().write_all(&out.bytes).unwrap();
        }
        Err(e) => eprintln!("error: {e}"),
    }
}
