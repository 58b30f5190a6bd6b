//! Frames as the viewer aggregates them: one *frame id* per distinct [`FrameKey`] (a function
//! name, or a location without a function), exactly the rows of
//! [`crate::analysis::functions::function_table`]. Every view (flame graph, time order, function
//! table, sandwich) is keyed by these dense `u32` ids, so JavaScript gets one name list and
//! plain integer columns.

use crate::analysis::functions::{frame_key, FrameKey};
use crate::hash::HashMap;
use crate::model::{ext, LocationIndex, Profile, StringId, INT_NA, NO_INDEX};

/// Name of the location extension column holding OpenTelemetry frame types
/// (docs/formats/otlp.md).
pub const FRAME_TYPE_COLUMN: &str = ext::locations::FRAME_TYPE;

/// The frame ids of a profile and what JavaScript shows for each.
#[derive(Clone, Debug, Default)]
pub struct Frames {
    /// Frame id of every location (indexed by location row).
    pub of_location: Vec<u32>,
    /// What each frame id stands for.
    pub key: Vec<FrameKey>,
    /// Display name of each frame id.
    pub name: Vec<String>,
    /// File name of the first function seen with this name ([`StringId::NA`] if none).
    pub file: Vec<StringId>,
    /// Start line of that function, else the location's line; 0 when unknown.
    pub line: Vec<i32>,
    /// `locations..frame_type` of the first location of this frame ([`StringId::NA`] if none).
    pub frame_type: Vec<StringId>,
    /// Position of each frame id when all names are sorted (ties by id): alphabetical order.
    pub name_rank: Vec<u32>,
    /// True when no two locations share a frame id, so the call tree by frame equals the
    /// profile's stack tree node for node.
    pub one_location_each: bool,
}

impl Frames {
    /// Assigns frame ids to every location of `p`, in location order.
    pub fn new(p: &Profile) -> Frames {
        let n_loc = p.locations.line.len();
        let frame_types = p.locations.ext.chr(FRAME_TYPE_COLUMN);
        let mut f = Frames {
            one_location_each: true,
            ..Frames::default()
        };
        let mut ids: HashMap<FrameKey, u32> = HashMap::default();
        for l in 0..n_loc {
            let loc = LocationIndex(l as u32);
            let key = frame_key(p, loc);
            let next = f.key.len() as u32;
            let id = *ids.entry(key).or_insert(next);
            if id == next {
                f.push_frame(p, loc, key, frame_types.and_then(|t| t.get(l).copied()));
            } else {
                f.one_location_each = false;
            }
            f.of_location.push(id);
        }
        f.name_rank = alphabetical_ranks(&f.name);
        f
    }

    fn push_frame(&mut self, p: &Profile, loc: LocationIndex, key: FrameKey, ty: Option<StringId>) {
        let func = p.location_function(loc);
        let file = func.map_or(StringId::NA, |fi| p.functions.filename[fi.idx()]);
        let start = func.map_or(0, |fi| p.functions.start_line[fi.idx()]);
        let loc_line = p.locations.line.get(loc.idx()).copied().unwrap_or(0);
        let line = [start, loc_line]
            .into_iter()
            .find(|&l| l != 0 && l != INT_NA)
            .unwrap_or(0);
        self.key.push(key);
        self.name.push(p.frame_display_name(loc));
        self.file.push(file);
        self.line.push(line);
        self.frame_type.push(ty.unwrap_or(StringId::NA));
    }

    /// Number of frame ids.
    pub fn len(&self) -> usize {
        self.key.len()
    }

    /// True when the profile has no locations.
    pub fn is_empty(&self) -> bool {
        self.key.is_empty()
    }

    /// The frame id of location `loc`; [`NO_INDEX`] for none or an unknown row.
    pub fn of(&self, loc: Option<LocationIndex>) -> u32 {
        loc.and_then(|l| self.of_location.get(l.idx()).copied())
            .unwrap_or(NO_INDEX)
    }

    /// The frame id of the function (or location) called `name`, if any.
    pub fn find(&self, name: &str) -> Option<u32> {
        self.name.iter().position(|n| n == name).map(|i| i as u32)
    }
}

fn alphabetical_ranks(names: &[String]) -> Vec<u32> {
    let mut order: Vec<u32> = (0..names.len() as u32).collect();
    order.sort_by(|&a, &b| names[a as usize].cmp(&names[b as usize]).then(a.cmp(&b)));
    let mut rank = vec![0u32; names.len()];
    for (pos, &id) in order.iter().enumerate() {
        rank[id as usize] = pos as u32;
    }
    rank
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ProfileBuilder;

    #[test]
    fn same_name_in_two_files_is_one_frame() {
        let mut b = ProfileBuilder::new();
        let fa = b.function_named("zeta", Some("a.go"));
        let fb = b.function_named("zeta", Some("b.go"));
        let fc = b.function_named("alpha", None);
        let l1 = b.location(Some(fa), 3);
        let l2 = b.location(Some(fb), 4);
        let l3 = b.location(Some(fc), 0);
        let l4 = b.location(None, 0);
        let _ = (l1, l2, l3, l4);
        let p = b.build().unwrap();
        let f = Frames::new(&p);
        assert_eq!(f.of_location, vec![0, 0, 1, 2]);
        assert!(!f.one_location_each);
        assert_eq!(f.name, vec!["zeta", "alpha", "<unknown>"]);
        assert_eq!(p.str(f.file[0]), "a.go");
        assert_eq!(f.line[0], 3);
        assert_eq!(f.name_rank, vec![2, 1, 0]);
        assert_eq!(f.find("alpha"), Some(1));
        assert!(f.frame_type.iter().all(|t| t.is_na()));
    }

    #[test]
    fn frame_type_comes_from_the_first_location() {
        use crate::model::Cell;
        let mut b = ProfileBuilder::new();
        let fk = b.function_named("do_syscall_64", None);
        let fn_ = b.function_named("main", None);
        let l1 = b.location(Some(fk), 0);
        let l2 = b.location(Some(fn_), 0);
        let kernel = b.intern("kernel");
        let native = b.intern("native");
        b.set_location_ext(l1, FRAME_TYPE_COLUMN, Cell::Chr(kernel));
        b.set_location_ext(l2, FRAME_TYPE_COLUMN, Cell::Chr(native));
        let p = b.build().unwrap();
        let f = Frames::new(&p);
        assert_eq!(p.str(f.frame_type[0]), "kernel");
        assert_eq!(p.str(f.frame_type[1]), "native");
    }
}
