//! The builder's whole-stack cache must return exactly the node per-frame interning gives, for
//! stacks given innermost-first or outermost-first, including stacks that are prefixes or
//! extensions of each other.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use proftab::model::{LocationIndex, ProfileBuilder};

mod support;
use support::rng::Rng;

#[test]
fn cached_stacks_equal_per_frame_interning() {
    let mut rng = Rng(7);
    let mut b = ProfileBuilder::new();
    let f = b.function_named("f", None);
    let locs: Vec<LocationIndex> = (0..4).map(|l| b.location(Some(f), l)).collect();
    let mut seen: Vec<Vec<LocationIndex>> = Vec::new();
    for _ in 0..5_000 {
        let stack: Vec<LocationIndex> = if !seen.is_empty() && rng.below(2) == 0 {
            let old = &seen[rng.below(seen.len())];
            old[..rng.below(old.len() + 1)].to_vec()
        } else {
            (0..rng.below(6))
                .map(|_| locs[rng.below(locs.len())])
                .collect()
        };
        let leaf_first = b.stack_leaf_first(&stack);
        let root_first: Vec<_> = stack.iter().rev().copied().collect();
        assert_eq!(b.stack_root_first(&root_first), leaf_first);
        let walked: Vec<_> = b.profile().frames_leaf_first(leaf_first).collect();
        assert_eq!(walked, stack);
        let per_frame = stack
            .iter()
            .rev()
            .fold(None, |prefix, &loc| Some(b.stack_node(prefix, loc)));
        assert_eq!(per_frame, leaf_first);
        seen.push(stack);
    }
}
