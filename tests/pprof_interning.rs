//! The pprof reader's stack interning on generated profiles: each sample's stack spells its
//! location ids' lines (inline frames included), and no two stack nodes are the same
//! `(prefix, location)`, whatever the order of the samples (random, repeated, sharing the root
//! side of an earlier stack or extending it) and whichever way the file is read (whole or in
//! steps).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::collections::HashSet;

use proftab::formats::pprof::{self, schema};
use proftab::formats::ReadOptions;
use proftab::model::{Profile, NO_INDEX};
use prost::Message;
use support::rng::Rng;

const FUNCTIONS: usize = 12;
const LOCATIONS: u64 = 40;

/// The pprof id of location `i` (1-based): the first half one-byte varints, the others two
/// bytes whose last byte is one of the first half's (the packed ids of two samples can then
/// end alike inside a varint: sharing must be found on whole ids).
fn location_id(i: u64) -> u64 {
    match i {
        ..=20 => i,
        _ => 128 * (i - 20) + 5,
    }
}

/// A profile of `n` samples over [`LOCATIONS`] locations of one to three lines each.
fn generated(seed: u64, n: usize) -> schema::Profile {
    let mut rng = Rng(seed);
    let location = (1..=LOCATIONS)
        .map(|i| schema::Location {
            id: location_id(i),
            line: (0..1 + rng.below(3))
                .map(|_| schema::Line {
                    function_id: 1 + rng.below(FUNCTIONS) as u64,
                    line: rng.below(50) as i64,
                    column: 0,
                })
                .collect(),
            ..Default::default()
        })
        .collect();
    let function = (1..=FUNCTIONS as u64)
        .map(|id| schema::Function {
            id,
            name: 2 + id as i64,
            ..Default::default()
        })
        .collect();
    let mut stacks: Vec<Vec<u64>> = Vec::new();
    for _ in 0..n {
        let fresh = |rng: &mut Rng, most: usize| -> Vec<u64> {
            let k = rng.below(most);
            (0..k)
                .map(|_| location_id(1 + rng.below(LOCATIONS as usize) as u64))
                .collect()
        };
        let stack = match (stacks.last(), rng.below(4)) {
            // The same stack again, or the root side of an earlier one with a new leaf side.
            (Some(_), 0) => stacks[rng.below(stacks.len())].clone(),
            (Some(_), 1) => {
                let old = &stacks[rng.below(stacks.len())];
                let keep = rng.below(old.len() + 1);
                let mut s = fresh(&mut rng, 6);
                s.extend_from_slice(&old[old.len() - keep..]);
                s
            }
            _ => fresh(&mut rng, 12),
        };
        stacks.push(stack);
    }
    let names = (0..FUNCTIONS).map(|f| format!("f{f}").into_bytes());
    schema::Profile {
        sample_type: vec![schema::ValueType { r#type: 1, unit: 2 }],
        // Every eighth sample has a label, so that prost decodes it: the reader's walk passes
        // from samples read by prost to plain ones and back.
        sample: stacks
            .into_iter()
            .enumerate()
            .map(|(s, location_id)| schema::Sample {
                location_id,
                value: vec![1],
                label: match s % 8 {
                    3 => vec![schema::Label {
                        key: 1,
                        str: 2,
                        ..Default::default()
                    }],
                    _ => vec![],
                },
            })
            .collect(),
        location,
        function,
        string_table: [b"".to_vec(), b"samples".to_vec(), b"count".to_vec()]
            .into_iter()
            .chain(names)
            .collect(),
        ..Default::default()
    }
}

/// The frames of sample `s`, innermost first, as (function name, line).
fn frames_of(p: &Profile, s: usize) -> Vec<(String, i32)> {
    let stack = p.samples.stack[s];
    let stack = (stack != NO_INDEX).then_some(proftab::model::StackIndex(stack));
    p.frames_leaf_first(stack)
        .map(|l| {
            let f = p.locations.function[l.idx()] as usize;
            let name = p.strings.text(p.functions.name[f]).to_string();
            (name, p.locations.line[l.idx()])
        })
        .collect()
}

/// What sample `s` of `src` should read as: each location's lines, the first innermost.
fn expected(src: &schema::Profile, s: usize) -> Vec<(String, i32)> {
    let by_id = |id: u64| src.location.iter().find(|l| l.id == id).unwrap();
    src.sample[s]
        .location_id
        .iter()
        .flat_map(|&id| by_id(id).line.iter())
        .map(|line| (format!("f{}", line.function_id - 1), line.line as i32))
        .collect()
}

fn check(src: &schema::Profile, p: &Profile, what: &str) {
    assert_eq!(p.samples.stack.len(), src.sample.len(), "{what}");
    for s in 0..src.sample.len() {
        assert_eq!(frames_of(p, s), expected(src, s), "{what}: sample {s}");
    }
    let st = &p.stacks;
    let mut seen = HashSet::new();
    for n in 0..st.prefix.len() {
        assert!(
            st.prefix.at(n) == NO_INDEX || (st.prefix.at(n) as usize) < n,
            "{what}: node {n}"
        );
        let key = (st.prefix.at(n), st.location.at(n));
        assert!(seen.insert(key), "{what}: node {n} repeats {key:?}");
    }
}

#[test]
fn stacks_spell_their_locations_and_nodes_are_unique() {
    for seed in 1..=6 {
        let src = generated(seed, 3000);
        let bytes = src.encode_to_vec();
        let whole = pprof::read(&bytes, &ReadOptions::default())
            .unwrap()
            .profile;
        check(&src, &whole, &format!("seed {seed}, whole"));
        // Samples sorted by their stacks from the root: long shared prefixes, most nodes new
        // right below the previous sample's.
        let mut sorted = src.clone();
        sorted
            .sample
            .sort_by_key(|s| s.location_id.iter().rev().copied().collect::<Vec<_>>());
        let bytes = sorted.encode_to_vec();
        let p = pprof::read(&bytes, &ReadOptions::default())
            .unwrap()
            .profile;
        check(&sorted, &p, &format!("seed {seed}, sorted"));
        // In steps of a few samples each: the walk's state carries over between steps.
        let mut steps = pprof::SteppedRead::start(bytes, &ReadOptions::default()).unwrap();
        while !steps.step(1 + seed as usize * 7).unwrap() {}
        let p = steps.finish().unwrap().profile;
        check(&sorted, &p, &format!("seed {seed}, in steps"));
    }
}
