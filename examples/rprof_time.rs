//! Scratch: time reading a file N times.
use proftab::formats::{rprof, ReadOptions};
fn main() {
    let path = std::env::args().nth(1).unwrap();
    let n: usize = std::env::args().nth(2).unwrap().parse().unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let t = std::time::Instant::now();
    for _ in 0..n { let _ = rprof::read(&bytes, &ReadOptions::default()).unwrap(); }
    let s = t.elapsed().as_secs_f64();
    println!("{:.1} MB/s ({:.3} ms per read)", (bytes.len() * n) as f64 / s / 1e6, s * 1e3 / n as f64);
}
