//! The npm package's `Profile.pruned()` (`proftab::wasm`): the stacks `go tool pprof`, the CLI's
//! views and the viewer show, the parsed profile keeping the raw ones. Runs in Node by
//! wasm-bindgen-test-runner (`cargo test --target wasm32-unknown-unknown --test 'wasm*'`).
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod pprof_prune_fixture;

use proftab::formats::pprof::prune::prune;
use proftab::wasm::Profile;
use wasm_bindgen_test::wasm_bindgen_test;

#[wasm_bindgen_test]
fn pruned_has_the_stacks_of_prune_and_the_parsed_profile_keeps_raw_ones() {
    let bytes = pprof_prune_fixture::build(r"runtime\..*|bar", r"runtime\.keepme");
    let p = Profile::parse(&bytes, None).unwrap();
    let raw_stacks = p.model().samples.stack.clone();
    let want = prune(p.model()).unwrap().unwrap();
    let pruned = p.pruned();
    assert_eq!(pruned.model().samples.stack, want.samples.stack);
    assert_ne!(pruned.model().samples.stack, raw_stacks);
    assert_eq!(p.model().samples.stack, raw_stacks);
    assert_eq!(pruned.model().stacks.prefix, want.stacks.prefix);
    assert_eq!(pruned.format(), "pprof");
    assert!(pruned.validate().is_empty());
}

#[wasm_bindgen_test]
fn an_invalid_expression_prunes_nothing_and_warns() {
    let bytes = pprof_prune_fixture::build("(", "");
    let p = Profile::parse(&bytes, None).unwrap();
    let pruned = p.pruned();
    assert_eq!(pruned.model().samples.stack, p.model().samples.stack);
    let warnings: Vec<String> = js_sys::JSON::stringify(&pruned.warnings().unwrap())
        .unwrap()
        .as_string()
        .into_iter()
        .collect();
    assert!(warnings[0].contains("drop_frames"), "{warnings:?}");
    assert!(warnings[0].contains("frames not pruned"), "{warnings:?}");
}
