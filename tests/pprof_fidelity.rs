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

mod support;

use support::corpus::*;
use support::go::*;

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

/// proftab's function table (self/total per function name), and the CLI's `top --json`,
/// against `go tool pprof -top` with every node shown, for each sample type of every
/// symbolized file. Files whose locations are
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
    let mut cli_compared = 0;
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
            let table = function_table(&p, ValueTypeIndex(vt as u32), None);
            let ours: Vec<TopRow> = table
                .rows
                .iter()
                .map(|r| TopRow {
                    name: r.name.clone(),
                    flat: r.self_value,
                    cum: r.total_value,
                })
                .collect();
            compared += 1;
            if let Err(e) = same_table((total, &go_rows), (table.total, &ours)) {
                failures.push(format!("{} type {vt}: {e}", path.display()));
            }
            let (type_name, _) = p.value_type_names(ValueTypeIndex(vt as u32));
            if let Some(cli) = cli_top(path, type_name) {
                cli_compared += 1;
                if let Err(e) = same_table((total, &go_rows), (cli.0, &cli.1)) {
                    failures.push(format!(
                        "{} type {vt}, proftab top --json: {e}",
                        path.display()
                    ));
                }
            }
        }
    }
    assert!(compared >= 20, "only {compared} tables compared");
    assert_eq!(
        cli_compared, compared,
        "the CLI (proftab top --json) was not compared"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `proftab top --json --type TYPE FILE` as (total, rows), when the CLI is built.
fn cli_top(path: &std::path::Path, value_type: &str) -> Option<(f64, Vec<TopRow>)> {
    let exe = option_env!("CARGO_BIN_EXE_proftab")?;
    let path = path.display().to_string();
    let v = support::cli::run_json(exe, &["top", "--json", "--type", value_type, &path]);
    let rows = v["functions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| TopRow {
            name: f["name"].as_str().unwrap().to_owned(),
            flat: f["self"].as_f64().unwrap(),
            cum: f["total"].as_f64().unwrap(),
        })
        .collect();
    Some((v["total"].as_f64().unwrap(), rows))
}

/// Compares go's `-top` (total, rows) with proftab's; proftab's rows whose self and total are
/// both 0 are left out, as pprof does not show such nodes.
fn same_table(go: (f64, &[TopRow]), ours: (f64, &[TopRow])) -> Result<(), String> {
    let ((go_total, go_rows), (our_total, our_rows)) = (go, ours);
    if go_total != our_total && !(go_total == 0.0 && go_rows.is_empty()) {
        return Err(format!("total: go {go_total}, proftab {our_total}"));
    }
    let shown: Vec<&TopRow> = our_rows
        .iter()
        .filter(|r| r.flat != 0.0 || r.cum != 0.0)
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
        if (r.flat, r.cum) != (g.flat, g.cum) {
            return Err(format!(
                "{}: go flat {} cum {}, proftab self {} total {}",
                g.name, g.flat, g.cum, r.flat, r.cum
            ));
        }
    }
    Ok(())
}
