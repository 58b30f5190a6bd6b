//! `analysis::diff` on two Go CPU profiles recorded with runtime/pprof
//! (tests/fixtures/diff/src/main.go): the second run calls one extra hot function, `main.hotNew`.
//! Absolute deltas are judged by `go tool pprof -top -diff_base`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use proftab::analysis::diff::{diff_functions, diff_tree, Comparison, Normalization};
use proftab::formats::{read_any, ReadOptions};
use proftab::model::combine::combine;
use proftab::model::{Profile, SourceIndex};

fn fixture(name: &str) -> PathBuf {
    support::corpus::fixture("diff").join(name)
}

fn read(name: &str) -> Profile {
    let path = fixture(name);
    let bytes = std::fs::read(&path).unwrap();
    let options = ReadOptions {
        source_uri: Some(name.to_owned()),
        ..ReadOptions::default()
    };
    read_any(&bytes, &options).unwrap().profile
}

/// `base.pb.gz` (source 0) and `new.pb.gz` (source 1) in one profile, compared on the default
/// value type (`cpu`).
fn base_and_new(normalization: Normalization) -> (Profile, Comparison) {
    let p = combine(&[read("base.pb.gz"), read("new.pb.gz")]).unwrap();
    let c = Comparison {
        value_type: p.value_type_index("cpu").unwrap(),
        base: vec![SourceIndex(0)],
        new: vec![SourceIndex(1)],
        normalization,
    };
    (p, c)
}

#[test]
fn the_extra_hot_function_is_the_top_regression() {
    for normalization in [Normalization::Scaled, Normalization::Absolute] {
        let (p, c) = base_and_new(normalization);
        let d = diff_functions(&p, &c).unwrap();
        let top = &d.rows[0];
        assert_eq!(top.name, "main.hotNew", "{normalization:?}");
        assert_eq!((top.base_self, top.base_total), (0.0, 0.0));
        assert!(top.new_self > 0.0);
        assert_eq!(top.self_relative(), None);
        // The program gives hotNew one third of the second run's CPU time.
        let share = top.new_self / d.summary.new_total();
        assert!((0.25..0.42).contains(&share), "hotNew share {share}");
    }
}

#[test]
fn scaled_totals_are_equal() {
    let (p, c) = base_and_new(Normalization::Scaled);
    let (t, _) = diff_tree(&p, &c).unwrap();
    let s = &t.summary;
    assert!(s.new_total_raw > s.base_total);
    assert!((s.new_total() - s.base_total).abs() < 1e-6 * s.base_total);
    assert!((t.new_total[0] - t.base_total[0]).abs() < 1e-6 * s.base_total);
}

#[test]
fn a_profile_compared_with_itself_shows_no_change() {
    let p = combine(&[read("new.pb.gz"), read("new.pb.gz")]).unwrap();
    for normalization in [Normalization::Scaled, Normalization::Absolute] {
        let c = Comparison {
            value_type: p.default_value_type().unwrap(),
            base: vec![SourceIndex(0)],
            new: vec![SourceIndex(1)],
            normalization,
        };
        let d = diff_functions(&p, &c).unwrap();
        assert!(d.rows.len() > 10);
        assert!(d
            .rows
            .iter()
            .all(|r| r.self_delta() == 0.0 && r.total_delta() == 0.0));
        let (t, _) = diff_tree(&p, &c).unwrap();
        assert!(t.len() > 10);
        assert!(t.delta.iter().all(|&d| d == 0.0));
    }
}

/// `(flat, cum)` per function from `go tool pprof -top -diff_base=BASE NEW`, in nanoseconds.
fn go_pprof_diff(base: &Path, new: &Path) -> Option<BTreeMap<String, (f64, f64)>> {
    let out = Command::new("go")
        .args(["tool", "pprof", "-symbolize=none", "-top", "-unit=ns"])
        .args(["-nodecount=1000000", "-nodefraction=0", "-edgefraction=0"])
        .arg(format!("-diff_base={}", base.display()))
        .arg(new)
        .env("PPROF_TMPDIR", std::env::temp_dir())
        .output();
    let out = match out {
        Ok(o) if o.status.success() => o,
        Ok(o) => panic!(
            "go tool pprof failed: {}",
            String::from_utf8_lossy(&o.stderr)
        ),
        Err(e) => {
            eprintln!("SKIP: cannot run `go tool pprof` ({e}); diff not judged by pprof");
            return None;
        }
    };
    let text = String::from_utf8(out.stdout).unwrap();
    let mut rows: BTreeMap<String, (f64, f64)> = BTreeMap::new();
    let body = text
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("flat"));
    for line in body.skip(1) {
        let cols: Vec<&str> = line.split_whitespace().collect();
        let name = cols[5..].join(" ");
        let name = name.strip_suffix(" (inline)").unwrap_or(&name).to_owned();
        let e = rows.entry(name).or_default();
        e.0 += nanos(cols[0]);
        e.1 += nanos(cols[3]);
    }
    Some(rows)
}

fn nanos(cell: &str) -> f64 {
    cell.strip_suffix("ns").unwrap_or(cell).parse().unwrap()
}

#[test]
fn absolute_deltas_match_go_tool_pprof_diff_base() {
    let Some(expected) = go_pprof_diff(&fixture("base.pb.gz"), &fixture("new.pb.gz")) else {
        return;
    };
    assert!(expected.len() > 5);
    let (p, c) = base_and_new(Normalization::Absolute);
    let got: BTreeMap<String, (f64, f64)> = diff_functions(&p, &c)
        .unwrap()
        .rows
        .iter()
        .map(|r| (r.name.clone(), (r.self_delta(), r.total_delta())))
        .filter(|(_, (s, t))| *s != 0.0 || *t != 0.0)
        .collect();
    assert_eq!(got, expected);
}

#[test]
fn cli_names_the_extra_hot_function_first() {
    let (base, new) = (fixture("base.pb.gz"), fixture("new.pb.gz"));
    for extra in [&["--absolute"][..], &[]] {
        let (base, new) = (base.to_str().unwrap(), new.to_str().unwrap());
        let args = [&["diff", base, new, "--json"][..], extra].concat();
        let v = support::cli::run_json(env!("CARGO_BIN_EXE_proftab"), &args);
        assert_eq!(
            (v["type"].as_str(), v["unit"].as_str()),
            (Some("cpu"), Some("nanoseconds"))
        );
        let top = &v["functions"][0];
        assert_eq!(top["name"], "main.hotNew");
        assert_eq!(top["base"].as_f64(), Some(0.0));
        assert!(top["relative"].is_null());
        let deltas: Vec<f64> = v["functions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["delta"].as_f64().unwrap())
            .collect();
        assert!(deltas.windows(2).all(|w| w[0] >= w[1]), "sorted by delta");
    }
}
