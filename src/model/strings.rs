//! The one string table of a profile: every text cell of every table is an index into it.

use crate::hash::HashMap;

use super::ids::StringId;

/// Interned strings. Invariant: index 0 is the NA placeholder and is never returned by
/// [`StringTable::intern`]; every other string is stored exactly once.
#[derive(Clone, Debug)]
pub struct StringTable {
    strings: Vec<String>,
    lookup: HashMap<String, StringId>,
}

impl Default for StringTable {
    fn default() -> Self {
        Self::new()
    }
}

impl StringTable {
    /// A table holding only the NA placeholder.
    pub fn new() -> Self {
        StringTable {
            strings: vec![String::new()],
            lookup: HashMap::default(),
        }
    }

    /// The id of `s`, adding it when new.
    pub fn intern(&mut self, s: &str) -> StringId {
        if let Some(&id) = self.lookup.get(s) {
            return id;
        }
        let id = StringId(u32::try_from(self.strings.len()).unwrap_or(u32::MAX - 1));
        self.strings.push(s.to_owned());
        self.lookup.insert(s.to_owned(), id);
        id
    }

    /// The id of an optional string: `None` is [`StringId::NA`].
    pub fn intern_opt(&mut self, s: Option<&str>) -> StringId {
        s.map_or(StringId::NA, |s| self.intern(s))
    }

    /// The id of `s` when it is already interned.
    pub fn find(&self, s: &str) -> Option<StringId> {
        self.lookup.get(s).copied()
    }

    /// The text of `id`; `None` for NA or an id out of range.
    pub fn get(&self, id: StringId) -> Option<&str> {
        if id.is_na() {
            return None;
        }
        self.strings.get(id.idx()).map(String::as_str)
    }

    /// The text of `id`, with NA and out-of-range ids shown as `""`.
    pub fn text(&self, id: StringId) -> &str {
        self.get(id).unwrap_or("")
    }

    /// Number of entries including the NA placeholder.
    pub fn len(&self) -> usize {
        self.strings.len()
    }

    /// True when only the NA placeholder is present.
    pub fn is_empty(&self) -> bool {
        self.strings.len() <= 1
    }

    /// All entries; entry 0 is the NA placeholder (an empty string).
    pub fn as_slice(&self) -> &[String] {
        &self.strings
    }
}
