//! Scratch: print what reading each file gives, in the `.expected` format.
use proftab::formats::{rprof, ReadOptions};
fn main() {
    for path in std::env::args().skip(1) {
        let bytes = std::fs::read(&path).unwrap();
        println!("== {path}");
        match rprof::read(&bytes, &ReadOptions::default()) {
            Ok(p) => {
                for w in &p.warnings { println!("warning: {w}"); }
                println!("samples: {}", p.profile.num_samples());
            }
            Err(e) => println!("error: {e}"),
        }
    }
}
