//! Typed row indices into the physical tables.
//!
//! Every table of a [`crate::model::Profile`] is addressed by a 0-based row index wrapped in its
//! own newtype, so a location index can never be used where a function index is expected. The
//! logical ids of docs/model.md (`function_id`, `location_id`, …) are these indices plus one; they are
//! assigned when the logical tables are materialized.

macro_rules! index_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(pub u32);

        impl $name {
            /// The row index as a `usize`, for slicing columns.
            #[inline]
            pub fn idx(self) -> usize {
                self.0 as usize
            }

            /// The 1-based logical id of this row (logical ids start at 1, docs/model.md).
            #[inline]
            pub fn logical_id(self) -> i32 {
                i32::try_from(self.0).map_or(i32::MAX, |v| v.saturating_add(1))
            }

            /// Wraps a `usize` row index; `None` when it does not fit the 32-bit id space.
            #[inline]
            pub fn from_usize(i: usize) -> Option<Self> {
                u32::try_from(i).ok().filter(|&v| v != u32::MAX).map(Self)
            }
        }
    };
}

index_type!(
    /// Index into [`crate::model::StringTable`]. Index 0 is reserved for NA.
    StringId
);
index_type!(
    /// Row of the `sources` table.
    SourceIndex
);
index_type!(
    /// Row of the `functions` table.
    FunctionIndex
);
index_type!(
    /// Row of the `locations` table.
    LocationIndex
);
index_type!(
    /// Row of the stack table (one node of the call-path prefix tree).
    StackIndex
);
index_type!(
    /// Row of the `samples` table.
    SampleIndex
);
index_type!(
    /// One value type (a `(type, unit)` pair of `sample_values`).
    ValueTypeIndex
);

impl StringId {
    /// The reserved id of a missing (NA) string.
    pub const NA: StringId = StringId(0);

    /// True for the NA string.
    pub fn is_na(self) -> bool {
        self == Self::NA
    }
}

/// The physical encoding of a missing optional row reference in a `u32` column.
pub const NO_INDEX: u32 = u32::MAX;

/// Int NA, as R stores it.
pub const INT_NA: i32 = i32::MIN;

/// Encodes an optional index into a `u32` column cell.
#[inline]
pub fn encode_opt(v: Option<u32>) -> u32 {
    v.unwrap_or(NO_INDEX)
}

/// Decodes a `u32` column cell written by [`encode_opt`].
#[inline]
pub fn decode_opt(v: u32) -> Option<u32> {
    (v != NO_INDEX).then_some(v)
}
