//! pprof → proftab → pprof fidelity, judged by `go tool pprof`.
//!
//! For every pprof file of the shared corpus and every fixture recorded with Go's
//! `runtime/pprof` (tests/fixtures/pprof), the file is read, written back with proftab's pprof
//! writer, and `go tool pprof` must print the same `-top` table for every sample index and the
//! same `-traces` for the original and the rewritten file. Also checks that proftab's own
//! function table agrees with the flat/cum columns of `-top -raw`-free output.
//!
//! Skips (with `SKIP:` on stderr) when `go` is not installed.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod pprof_common;

use pprof_common::*;

#[test]
fn corpus_round_trip_prints_the_same() {
    let Some(go) = GoPprof::find() else { return };
    let mut files = corpus_files("pprof");
    files.extend(fixture_files());
    assert!(
        files.len() >= 20,
        "expected the corpus and fixtures, found {files:?}"
    );
    let mut failures = Vec::new();
    for path in &files {
        if let Err(e) = go.check_round_trip(path) {
            failures.push(format!("{}: {e}", path.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// proftab's function table (self/total per function name) against `go tool pprof -top` with
/// every node shown, for each sample type of every symbolized file. Files whose locations are
/// not all symbolized are skipped (pprof groups address-only frames by binary, proftab by
/// address), and so are files with `drop_frames`/`keep_frames` (pprof prunes frames with them).
#[test]
fn function_table_matches_go_top() {
    use proftab::analysis::functions::function_table;
    use proftab::model::ValueTypeIndex;
    let Some(go) = GoPprof::find() else { return };
    let mut files = corpus_files("pprof");
    files.extend(fixture_files());
    let mut compared = 0;
    let mut failures = Vec::new();
    for path in &files {
        let p = read_pprof(path);
        let symbolized = p
            .locations
            .function
            .iter()
            .all(|&f| f != proftab::model::NO_INDEX);
        let pruned = p.meta_value("pprof.profile.drop_frames").is_some()
            || p.meta_value("pprof.profile.keep_frames").is_some();
        if !symbolized || pruned {
            eprintln!(
                "note: {} not compared (unsymbolized or pruned)",
                path.display()
            );
            continue;
        }
        for vt in 0..p.values.len() {
            let (_, unit) = p.value_type_names(ValueTypeIndex(vt as u32));
            if unit.is_empty() {
                continue;
            }
            let args = [
                "-top".to_owned(),
                "-nodefraction=0".to_owned(),
                "-nodecount=1000000".to_owned(),
                format!("-sample_index={vt}"),
                format!("-unit={unit}"),
            ];
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let report = go.run(&args, path).unwrap();
            let (total, go_rows) = parse_top(&report);
            let ours = function_table(&p, ValueTypeIndex(vt as u32), None);
            compared += 1;
            if let Err(e) = same_table(total, &go_rows, &ours) {
                failures.push(format!("{} type {vt}: {e}", path.display()));
            }
        }
    }
    assert!(compared >= 20, "only {compared} tables compared");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn same_table(
    go_total: f64,
    go_rows: &[TopRow],
    ours: &proftab::analysis::functions::FunctionTable,
) -> Result<(), String> {
    if go_total != ours.total && !(go_total == 0.0 && go_rows.is_empty()) {
        return Err(format!("total: go {go_total}, proftab {}", ours.total));
    }
    let shown: Vec<_> = ours
        .rows
        .iter()
        .filter(|r| r.self_value != 0.0 || r.total_value != 0.0)
        .collect();
    if shown.len() != go_rows.len() {
        return Err(format!(
            "{} rows from go, {} from proftab",
            go_rows.len(),
            shown.len()
        ));
    }
    for g in go_rows {
        let Some(r) = shown.iter().find(|r| r.name == g.name) else {
            return Err(format!("go row {:?} missing in proftab", g.name));
        };
        if (r.self_value, r.total_value) != (g.flat, g.cum) {
            return Err(format!(
                "{}: go flat {} cum {}, proftab self {} total {}",
                g.name, g.flat, g.cum, r.self_value, r.total_value
            ));
        }
    }
    Ok(())
}
