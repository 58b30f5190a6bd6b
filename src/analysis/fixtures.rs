//! Small profiles for the unit tests of `analysis`, built from call paths written as function
//! names. Every function has no file, every location line 0, and the one value type is
//! `samples`/`count`; the same name is the same function and location wherever it appears.

use crate::model::{Profile, ProfileBuilder, StackIndex};

/// A profile with one `manual` source per URI of `sources` and one sample per
/// `(source row, root-first path, value)` of `samples`; an empty path is a sample without
/// frames.
pub(crate) fn paths_profile(sources: &[&str], samples: &[(usize, &[&str], f64)]) -> Profile {
    let mut b = ProfileBuilder::new();
    let vt = b.value_type("samples", "count");
    let sources: Vec<_> = sources
        .iter()
        .map(|&uri| b.add_source("manual", Some(uri), None))
        .collect();
    for &(source, path, v) in samples {
        let stack = path_stack(&mut b, path);
        b.add_sample_with_values(sources[source], stack, &[(vt, v)]);
    }
    b.build().unwrap()
}

/// The stack of a root-first path of function names (`None` for an empty path).
pub(crate) fn path_stack(b: &mut ProfileBuilder, path: &[&str]) -> Option<StackIndex> {
    let locations: Vec<_> = path
        .iter()
        .map(|name| {
            let f = b.function_named(name, None);
            b.location(Some(f), 0)
        })
        .collect();
    b.stack_root_first(&locations)
}

/// The profile of an Rprof text (the tests of line and source tables count its ticks by hand).
pub(crate) fn rprof_profile(text: &str) -> Profile {
    use crate::formats::{rprof, ReadOptions};
    rprof::read(text.as_bytes(), &ReadOptions::default())
        .expect("a valid Rprof text")
        .profile
}
