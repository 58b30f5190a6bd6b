//! [`StackLocations`]: the stack table's `location` column, two bytes a node while every
//! location fits in them.
//!
//! Most profiles have far fewer than 65,536 locations (synth-500k: 5,000 for 8.1 M stack
//! nodes; the Go heap profile of `bench/go_heap.sh` a few thousand), so the column holds
//! `u16`s until a location past that is pushed, and then widens to `u32`s once (a copy).

use std::fmt;

use super::ids::{LocationIndex, NO_INDEX};
use super::shared::Shared;
use crate::chunks::cut_to;

/// The location of each stack node. Invariant: the column is `Wide` exactly when some
/// location is at least 2^16 (widening happens at the first such push), so equal columns are
/// held alike.
#[derive(Clone)]
pub struct StackLocations(Held);

#[derive(Clone)]
enum Held {
    /// Every location below 2^16.
    Narrow(Shared<u16>),
    /// Some location at or past 2^16.
    Wide(Shared<LocationIndex>),
}

impl Default for StackLocations {
    fn default() -> Self {
        StackLocations(Held::Narrow(Shared::default()))
    }
}

/// The location as a narrow cell, if it fits in one.
#[inline]
fn narrow(l: LocationIndex) -> Option<u16> {
    u16::try_from(l.0).ok()
}

impl StackLocations {
    /// Number of nodes.
    #[inline]
    pub fn len(&self) -> usize {
        match &self.0 {
            Held::Narrow(v) => v.len(),
            Held::Wide(v) => v.len(),
        }
    }

    /// True when there are no nodes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The location of node `i` (`None` past the end).
    #[inline]
    pub fn get(&self, i: usize) -> Option<LocationIndex> {
        match &self.0 {
            Held::Narrow(v) => v.get(i).map(|&l| LocationIndex(u32::from(l))),
            Held::Wide(v) => v.get(i).copied(),
        }
    }

    /// The location of node `i`, or `LocationIndex(NO_INDEX)` past the end (a row no location
    /// table has).
    #[inline]
    pub fn at(&self, i: usize) -> LocationIndex {
        self.get(i).unwrap_or(LocationIndex(NO_INDEX))
    }

    /// Appends a node's location.
    #[inline]
    pub fn push(&mut self, l: LocationIndex) {
        if let Held::Narrow(v) = &mut self.0 {
            if let Some(n) = narrow(l) {
                v.push(n);
                return;
            }
            self.widen();
        }
        if let Held::Wide(v) = &mut self.0 {
            v.push(l);
        }
    }

    /// Appends the locations of several nodes.
    pub fn extend_from_slice(&mut self, locations: &[LocationIndex]) {
        if let Held::Narrow(v) = &mut self.0 {
            if locations.iter().all(|&l| narrow(l).is_some()) {
                v.extend(locations.iter().map(|l| l.0 as u16));
                return;
            }
            self.widen();
        }
        if let Held::Wide(v) = &mut self.0 {
            v.extend_from_slice(locations);
        }
    }

    /// Holds the column as `u32`s from now on (a copy).
    #[cold]
    #[inline(never)]
    fn widen(&mut self) {
        if let Held::Narrow(v) = &self.0 {
            let wide: Vec<LocationIndex> = v.iter().map(|&l| LocationIndex(u32::from(l))).collect();
            self.0 = Held::Wide(wide.into());
        }
    }

    /// Room for `more` nodes beyond those there are. Fails as `Vec::try_reserve_exact` does.
    pub fn try_reserve_exact(
        &mut self,
        more: usize,
    ) -> Result<(), std::collections::TryReserveError> {
        match &mut self.0 {
            Held::Narrow(v) => v.try_reserve_exact(more),
            Held::Wide(v) => v.try_reserve_exact(more),
        }
    }

    /// Bytes a node takes: 2 while narrow, else 4.
    pub fn cell_bytes(&self) -> usize {
        match &self.0 {
            Held::Narrow(_) => 2,
            Held::Wide(_) => 4,
        }
    }

    /// The locations of all nodes, in order.
    #[inline]
    pub fn iter(&self) -> Iter<'_> {
        self.range(0..self.len())
    }

    /// The locations of nodes `rows` (cut to the column), in order.
    pub fn range(&self, rows: std::ops::Range<usize>) -> Iter<'_> {
        let rows = cut_to(rows, self.len());
        match &self.0 {
            Held::Narrow(v) => Iter::Narrow(v[rows].iter()),
            Held::Wide(v) => Iter::Wide(v[rows].iter()),
        }
    }

    /// Another handle to the same rows, without a copy (see [`Shared::share`]).
    pub fn share(&mut self) -> StackLocations {
        StackLocations(match &mut self.0 {
            Held::Narrow(v) => Held::Narrow(v.share()),
            Held::Wide(v) => Held::Wide(v.share()),
        })
    }

    /// Whether `other` holds these very rows (a handle from [`Self::share`]), not a copy.
    #[cfg(test)]
    pub(crate) fn same_rows(&self, other: &StackLocations) -> bool {
        match (&self.0, &other.0) {
            (Held::Narrow(a), Held::Narrow(b)) => a.as_ptr() == b.as_ptr(),
            (Held::Wide(a), Held::Wide(b)) => a.as_ptr() == b.as_ptr(),
            _ => false,
        }
    }

    /// The column as one `u32` a node (a copy).
    pub fn to_u32s(&self) -> Vec<u32> {
        self.iter().map(|l| l.0).collect()
    }
}

/// The locations of a column's nodes, in order ([`StackLocations::iter`]).
pub enum Iter<'a> {
    Narrow(std::slice::Iter<'a, u16>),
    Wide(std::slice::Iter<'a, LocationIndex>),
}

impl Iterator for Iter<'_> {
    type Item = LocationIndex;

    #[inline]
    fn next(&mut self) -> Option<LocationIndex> {
        match self {
            Iter::Narrow(it) => it.next().map(|&l| LocationIndex(u32::from(l))),
            Iter::Wide(it) => it.next().copied(),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match self {
            Iter::Narrow(it) => it.size_hint(),
            Iter::Wide(it) => it.size_hint(),
        }
    }
}

impl ExactSizeIterator for Iter<'_> {}

impl<'a> IntoIterator for &'a StackLocations {
    type Item = LocationIndex;
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

impl FromIterator<LocationIndex> for StackLocations {
    fn from_iter<I: IntoIterator<Item = LocationIndex>>(locations: I) -> Self {
        let mut column = StackLocations::default();
        for l in locations {
            column.push(l);
        }
        column
    }
}

impl PartialEq for StackLocations {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Eq for StackLocations {}

impl fmt::Debug for StackLocations {
    /// As the list of locations it holds.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(column: &StackLocations) -> Vec<u32> {
        column.iter().map(|l| l.0).collect()
    }

    #[test]
    fn narrow_until_a_location_needs_more() {
        let mut column = StackLocations::default();
        column.push(LocationIndex(7));
        column.extend_from_slice(&[LocationIndex(65_535), LocationIndex(0)]);
        assert_eq!((column.cell_bytes(), ids(&column)), (2, vec![7, 65_535, 0]));
        column.push(LocationIndex(65_536));
        assert_eq!(column.cell_bytes(), 4);
        column.push(LocationIndex(3));
        assert_eq!(ids(&column), vec![7, 65_535, 0, 65_536, 3]);

        let mut by_slice = StackLocations::default();
        by_slice.push(LocationIndex(1));
        by_slice.extend_from_slice(&[LocationIndex(2), LocationIndex(1 << 20)]);
        assert_eq!(
            (by_slice.cell_bytes(), ids(&by_slice)),
            (4, vec![1, 2, 1 << 20])
        );
    }

    #[test]
    fn reads_by_node_and_in_order() {
        for wide in [false, true] {
            let plain: Vec<u32> = (0..1000u32)
                .map(|i| (i * 7919) % if wide { 200_000 } else { 60_000 })
                .collect();
            let column: StackLocations = plain.iter().map(|&l| LocationIndex(l)).collect();
            assert_eq!(column.cell_bytes(), if wide { 4 } else { 2 });
            assert_eq!(column.len(), plain.len());
            for (i, &l) in plain.iter().enumerate() {
                assert_eq!(column.get(i), Some(LocationIndex(l)));
            }
            assert_eq!(column.get(plain.len()), None);
            assert_eq!(column.at(plain.len()), LocationIndex(NO_INDEX));
            assert_eq!(column.to_u32s(), plain);
            assert_eq!(
                format!("{column:?}"),
                format!("{:?}", column.iter().collect::<Vec<_>>())
            );
        }
    }

    #[test]
    fn a_shared_column_is_copied_on_write() {
        let mut column: StackLocations = (0..100).map(LocationIndex).collect();
        let lent = column.share();
        assert!(lent.same_rows(&column));
        column.push(LocationIndex(1 << 17));
        assert_eq!(ids(&lent), (0..100).collect::<Vec<_>>());
        assert_eq!(column.len(), 101);
        assert_ne!(lent, column);
    }
}
