//! Search over frame names: which frames match, and what share of the total weight passes
//! through a matching frame (flamegraph.pl's "Matched: x%").
//!
//! A query is a case-insensitive substring, or, written `/pattern/`, a case-insensitive
//! regular expression in `regex-lite` syntax.

use crate::analysis::tree::{CallTree, Weights, ROOT};

/// Longest query accepted, in bytes (a regex is compiled from it).
pub const MAX_QUERY_BYTES: usize = 1000;

/// A compiled search query.
#[derive(Clone, Debug)]
pub enum Matcher {
    /// Lower-cased needle.
    Substring(String),
    /// Compiled case-insensitive pattern.
    Regex(regex_lite::Regex),
}

impl Matcher {
    /// Parses a query; `/…/` is a regular expression. Fails on an invalid pattern or an
    /// over-long query, with a message for the user.
    pub fn parse(query: &str) -> Result<Matcher, String> {
        if query.len() > MAX_QUERY_BYTES {
            return Err(format!("search is longer than {MAX_QUERY_BYTES} bytes"));
        }
        match query
            .strip_prefix('/')
            .and_then(|q| q.strip_suffix('/'))
            .filter(|q| !q.is_empty())
        {
            Some(pattern) => regex_lite::RegexBuilder::new(pattern)
                .case_insensitive(true)
                .build()
                .map(Matcher::Regex)
                .map_err(|e| format!("invalid regular expression: {e}")),
            None => Ok(Matcher::Substring(query.to_lowercase())),
        }
    }

    /// True when `name` matches.
    pub fn is_match(&self, name: &str) -> bool {
        match self {
            Matcher::Substring(needle) => name.to_lowercase().contains(needle.as_str()),
            Matcher::Regex(re) => re.is_match(name),
        }
    }

    /// One flag per frame name: 1 when it matches, else 0.
    pub fn frame_flags(&self, names: &[String]) -> Vec<u8> {
        names.iter().map(|n| u8::from(self.is_match(n))).collect()
    }
}

/// The weight of samples with at least one matching frame: the totals of matching nodes that
/// have no matching ancestor.
pub fn matched_total(tree: &CallTree, w: &Weights, frame_flags: &[u8]) -> f64 {
    let matches = |n: usize| {
        frame_flags
            .get(tree.frame(n) as usize)
            .is_some_and(|&f| f != 0)
    };
    // under[n]: n or an ancestor matches. Parents precede children.
    let mut under = vec![false; tree.len()];
    let mut sum = 0.0;
    for n in 1..tree.len() {
        let parent_under = tree.parent(n) != ROOT && under[tree.parent(n) as usize];
        let m = matches(n);
        under[n] = parent_under || m;
        if m && !parent_under {
            sum += w.total.at(n);
        }
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::tree::TreeBuilder;

    #[test]
    fn substring_is_case_insensitive() {
        let m = Matcher::parse("ALLOC").unwrap();
        assert!(m.is_match("runtime.mallocgc") && m.is_match("Alloc"));
        assert!(!m.is_match("free"));
    }

    #[test]
    fn slashes_make_a_regex() {
        let m = Matcher::parse("/^main\\./").unwrap();
        assert!(m.is_match("Main.run"));
        assert!(!m.is_match("x.main.run"));
        assert!(Matcher::parse("/(/").is_err());
    }

    #[test]
    fn matched_share_counts_nested_matches_once() {
        // root -> a(5) -> a(3); root -> b(2)
        let mut b = TreeBuilder::new();
        let a = b.child(ROOT, 0);
        let _aa = b.child(a, 0);
        let _b = b.child(ROOT, 1);
        let tree = b.finish();
        let w = Weights::from_self(&tree, vec![0.0, 2.0, 3.0, 2.0]);
        assert_eq!(matched_total(&tree, &w, &[1, 0]), 5.0);
        assert_eq!(matched_total(&tree, &w, &[1, 1]), 7.0);
    }
}
