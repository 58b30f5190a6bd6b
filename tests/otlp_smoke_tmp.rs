use proftab::formats::*;
#[test]
fn smoke() {
    for f in ["sig-profiling-otlp-bench-profile.otlp", "sig-profiling-otlp-bench-k8s.otlp"] {
        let b = std::fs::read(format!("../shared/corpus/otlp/{f}")).unwrap();
        println!("{f}: detect {:?}", detect(&b));
        let p = otlp::read(&b, &ReadOptions::default()).unwrap();
        let pr = &p.profile;
        println!("samples {} sources {} locs {} funcs {} stacks {} warnings {:?}", pr.num_samples(), pr.sources.source_type.len(), pr.locations.line.len(), pr.functions.name.len(), pr.stacks.prefix.len(), p.warnings);
        for c in &pr.values { println!("  vt {} {} total {}", pr.str(c.value_type), pr.str(c.unit), c.total()); }
        for t in &pr.ext_tables { println!("  ext {} rows {} cols {:?}", t.name, t.len(), t.columns.columns.iter().map(|c| c.name.clone()).collect::<Vec<_>>()); }
        println!("  loc ext {:?}", pr.locations.ext.columns.iter().map(|c| c.name.clone()).collect::<Vec<_>>());
        println!("  src ext {:?}", pr.sources.ext.columns.iter().map(|c| c.name.clone()).collect::<Vec<_>>());
        let w = otlp::write(pr, &WriteOptions::default()).unwrap();
        let p2 = otlp::read(&w.bytes, &ReadOptions::default()).unwrap();
        println!("  rewritten {} bytes (orig {}), samples {} warnings {:?} {:?}", w.bytes.len(), b.len(), p2.profile.num_samples(), w.warnings, p2.warnings);
    }
}
