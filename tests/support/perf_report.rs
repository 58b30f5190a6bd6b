//! `perf report --stdio --no-children --sort dso,sym -n` as a judge of the perf-data tests:
//! its rows, and the comparison of proftab's self samples per name with them.

use std::collections::BTreeMap;

/// Self samples per symbol of a `perf report --sort dso,sym -n` text (summed over events),
/// with the DSO of each symbol.
pub fn report_rows(text: &str) -> BTreeMap<String, (String, f64)> {
    let mut rows = BTreeMap::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.len() < 5 || !words[0].ends_with('%') {
            continue;
        }
        let name = words[4..].join(" ");
        let n: f64 = words[1].parse().unwrap();
        rows.entry(name).or_insert((words[2].to_owned(), 0.0)).1 += n;
    }
    rows
}

/// proftab's self samples per name (`got`) against perf's `want`: every symbol both name has
/// the same count, the symbols of the DSOs in `named` are all named, and what proftab leaves
/// unsymbolised (`x+0x…`, `[unknown]`) adds up to perf's rows it does not name.
pub fn assert_matches(
    want: &BTreeMap<String, (String, f64)>,
    mut got: BTreeMap<String, f64>,
    named: &[&str],
    what: &str,
) {
    let mut unmatched = 0.0;
    for (name, (dso, n)) in want {
        match got.remove(name) {
            Some(mine) => assert_eq!(mine, *n, "{what}: {name}"),
            None if named.contains(&dso.as_str()) => {
                panic!("{what}: {name} of {dso} not symbolised")
            }
            None => unmatched += n,
        }
    }
    for (name, n) in &got {
        assert!(
            name.contains("+0x") || name == "[unknown]",
            "{what}: {name} ({n}) is not in perf report"
        );
        unmatched -= n;
    }
    assert_eq!(unmatched, 0.0, "{what}: unsymbolised samples differ");
}
