//! Tests of [`super`] (the diff summary, function table and tree).

use super::*;
use crate::analysis::fixtures::paths_profile;
use crate::model::NO_INDEX;

/// Two sources: baseline main->a (6), main->b (4); comparison main->a (6), main->b (14).
fn two_sources() -> Profile {
    paths_profile(
        &["base", "new"],
        &[
            (0, &["main", "a"], 6.0),
            (0, &["main", "b"], 4.0),
            (1, &["main", "a"], 6.0),
            (1, &["main", "b"], 14.0),
        ],
    )
}

fn cmp(normalization: Normalization) -> Comparison {
    Comparison {
        value_type: ValueTypeIndex(0),
        base: vec![SourceIndex(0)],
        new: vec![SourceIndex(1)],
        normalization,
    }
}

#[test]
fn scaled_halves_the_comparison() {
    let d = diff_functions(&two_sources(), &cmp(Normalization::Scaled)).unwrap();
    assert_eq!(d.summary.scale, 0.5);
    let names: Vec<&str> = d.rows.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["b", "main", "a"]);
    let b = &d.rows[0];
    assert_eq!((b.base_self, b.new_self, b.self_delta()), (4.0, 7.0, 3.0));
    assert_eq!(b.self_relative(), Some(0.75));
    assert_eq!(d.rows[2].self_delta(), -3.0);
}

#[test]
fn errors_name_the_problem() {
    let p = two_sources();
    let mut c = cmp(Normalization::Absolute);
    c.new = vec![SourceIndex(7)];
    assert_eq!(diff_summary(&p, &c), Err(DiffError::UnknownSource(7)));
    c.new.clear();
    assert_eq!(
        diff_summary(&p, &c).unwrap_err().to_string(),
        "diff: the comparison selection has no sources"
    );
    c.new = vec![SourceIndex(1)];
    c.value_type = ValueTypeIndex(3);
    assert_eq!(diff_summary(&p, &c), Err(DiffError::UnknownValueType(3)));
}

#[test]
fn scale_is_one_when_a_total_is_not_positive() {
    assert_eq!(scale_factor(Normalization::Scaled, 0.0, 5.0), 1.0);
    assert_eq!(scale_factor(Normalization::Scaled, 5.0, 0.0), 1.0);
    assert_eq!(scale_factor(Normalization::Scaled, -2.0, -4.0), 1.0);
    assert_eq!(scale_factor(Normalization::Scaled, 2.0, 8.0), 0.25);
    assert_eq!(scale_factor(Normalization::Absolute, 2.0, 8.0), 1.0);
}

#[test]
fn tree_paths_and_frames() {
    let p = two_sources();
    let (t, frames) = diff_tree(&p, &cmp(Normalization::Absolute)).unwrap();
    assert_eq!(t.len(), 4);
    assert_eq!(t.parent_column(), vec![NO_INDEX, 0, 1, 1]);
    assert_eq!(t.depths(), vec![0, 1, 2, 2]);
    let names: Vec<&str> = t
        .path(3)
        .iter()
        .map(|&f| frames.name[f as usize].as_str())
        .collect();
    assert_eq!(names, ["main", "b"]);
    assert_eq!(
        (t.base_total[3], t.new_total[3], t.delta[3]),
        (4.0, 14.0, 10.0)
    );
    assert_eq!(t.delta[0], 10.0);
}

#[test]
fn sample_counts_per_node_sum_to_the_selections() {
    let p = paths_profile(
        &["base", "new"],
        &[
            (0, &["main", "a"], 6.0),
            (0, &["main", "a"], 1.0),
            (0, &["main", "z"], 0.0),
            (1, &["main", "b"], 14.0),
        ],
    );
    let (t, frames) = diff_tree(&p, &cmp(Normalization::Scaled)).unwrap();
    let name = |n: usize| frames.name[t.frame(n) as usize].as_str();
    let at = |n: &str| (1..t.len()).find(|&i| name(i) == n).unwrap();
    // main->z carries no value on either side: pruned, its sample counts at main.
    assert!((1..t.len()).all(|i| name(i) != "z"));
    assert_eq!(t.base_samples[at("a")], 2.0);
    assert_eq!(t.base_samples[at("main")], 1.0);
    assert_eq!(t.new_samples[at("b")], 1.0, "counts are not scaled");
    let sum = |v: &[f64]| v.iter().sum::<f64>();
    assert_eq!(sum(&t.base_samples), t.summary.base_samples as f64);
    assert_eq!(sum(&t.new_samples), t.summary.new_samples as f64);
}
