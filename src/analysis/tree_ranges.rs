//! Reading a range of a [`crate::analysis::tree::CallTree`]'s nodes at once (`CallTree::parents`,
//! `CallTree::frames`): one look at how the tree holds its columns for the whole range, so
//! that a pass over millions of nodes reads a mirrored stack table's compact columns in order
//! ([`crate::model::Prefixes`] by its flags, not by rank) rather than node by node.

use crate::model::{prefixes, stack_locations, NO_INDEX};

/// The parents of a range of a tree's nodes (`CallTree::parents`).
pub enum Parents<'a> {
    /// The tree's own column.
    Own(std::slice::Iter<'a, u32>),
    /// A mirrored stack table's prefixes, each plus one; `root`: the range begins at the root
    /// (whose parent, [`NO_INDEX`], comes first).
    Mirror {
        root: bool,
        prefixes: prefixes::Iter<'a>,
    },
}

impl Iterator for Parents<'_> {
    type Item = u32;

    #[inline]
    fn next(&mut self) -> Option<u32> {
        match self {
            Parents::Own(it) => it.next().copied(),
            Parents::Mirror { root, prefixes } => {
                if std::mem::take(root) {
                    return Some(NO_INDEX);
                }
                prefixes.next().map(|q| q.wrapping_add(1))
            }
        }
    }
}

impl DoubleEndedIterator for Parents<'_> {
    #[inline]
    fn next_back(&mut self) -> Option<u32> {
        match self {
            Parents::Own(it) => it.next_back().copied(),
            Parents::Mirror { root, prefixes } => prefixes
                .next_back()
                .map(|q| q.wrapping_add(1))
                .or_else(|| std::mem::take(root).then_some(NO_INDEX)),
        }
    }
}

/// The frame ids of a range of a tree's nodes (`CallTree::frames`).
pub enum FrameIds<'a> {
    /// The tree's own column.
    Own(std::slice::Iter<'a, u32>),
    /// A mirrored stack table's locations, each through `of_location`; `root` as in
    /// [`Parents::Mirror`].
    Mirror {
        root: bool,
        locations: stack_locations::Iter<'a>,
        of_location: &'a [u32],
    },
}

impl Iterator for FrameIds<'_> {
    type Item = u32;

    #[inline]
    fn next(&mut self) -> Option<u32> {
        match self {
            FrameIds::Own(it) => it.next().copied(),
            FrameIds::Mirror {
                root,
                locations,
                of_location,
            } => {
                if std::mem::take(root) {
                    return Some(NO_INDEX);
                }
                let l = locations.next()?;
                Some(of_location.get(l.idx()).copied().unwrap_or(NO_INDEX))
            }
        }
    }
}
