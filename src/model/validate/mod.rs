//! Validation of a v2 document (docs/model.md) in logical form: every rule of the model, every
//! violation reported with its table, column, 1-based row and value.
//!
//! Rules checked by [`validate_v2`]:
//! 1. the seven tables `meta`, `sources`, `samples`, `sample_values`, `sample_locations`,
//!    `locations`, `functions` are present (in any order; extra tables are allowed), and no
//!    table name appears twice;
//! 2. each has exactly its required columns first, in order and of the required types (see
//!    [`crate::model::typing`] for how `int` and `dbl` arrive through JSON); further columns
//!    must start with a dot; no column name appears twice; all columns of a table (extension
//!    tables too) have the same length;
//! 3. `meta` has one row `version` = `"2.0"`;
//! 4. primary keys `sources.source_id`, `samples.sample_id`, `locations.location_id`,
//!    `functions.function_id` are unique and not NA;
//! 5. foreign keys `samples.source_id`, `sample_values.sample_id`, `sample_locations.sample_id`,
//!    `sample_locations.location_id` resolve and are not NA; `locations.function_id` resolves
//!    or is NA;
//! 6. compound keys `(sample_id, type)` of `sample_values` and `(sample_id, depth)` of
//!    `sample_locations` are unique and not NA;
//! 7. the depths of each sample run 1..n without gaps;
//! 8. `locations.line` and `functions.start_line` are non-negative or NA;
//! 9. `functions.name` and `functions.system_name` are neither NA nor empty.
//!
//! Row rules of a table are checked only when its structure (rule 2) is sound, and key rules
//! that need another table only when that table is sound too, so one broken column does not
//! bury the report under follow-up errors.
//!
//! The rules live by concept: [`schema`] names the required tables and columns, [`report`]
//! collects violations, [`columns`] checks structure (rules 1 and 2), [`keys`] the key rules
//! (4 to 7) and [`values`] the rules on single values (3, 8 and 9). v1 validation reuses them.

mod columns;
mod keys;
mod report;
mod schema;
mod values;

use std::borrow::Cow;

use super::logical::{Table, Tables};
use super::typing;
use crate::hash::HashMap;
pub(crate) use columns::{check_columns, check_unique_tables, order_issues};
use columns::{check_lengths, check_unique_columns};
pub(crate) use keys::{check_foreign_key, check_unique_ints, IdIndex};
pub(crate) use report::Report;
pub use report::{Violation, MAX_ROWS_PER_RULE};
pub use schema::{
    v2_required_columns, ColType, FUNCTIONS_COLUMNS, LOCATIONS_COLUMNS, META_COLUMNS, V2_SCHEMA,
    V2_TABLES,
};
pub(crate) use schema::{CHR, INT};
pub(crate) use values::{check_meta_version, check_non_empty};

/// Validates a v2 document. Returns every violation (an empty list for a valid document).
pub fn validate_v2(t: &Tables) -> Vec<Violation> {
    let mut r = Report::default();
    check_unique_tables(&mut r, t);
    let mut sound: HashMap<&str, &Table> = HashMap::default();
    for (name, required) in V2_SCHEMA {
        match t.table(name) {
            None => r.table(name, "required table is missing"),
            Some(table) => {
                if check_columns(&mut r, name, table, required) {
                    sound.insert(name, table);
                }
            }
        }
    }
    for (name, table) in &t.tables {
        if !V2_TABLES.contains(&name.as_str()) {
            check_unique_columns(&mut r, name, table, &[]);
            check_lengths(&mut r, name, table);
        }
    }
    V2Rules { r: &mut r, sound }.check();
    r.out
}

struct V2Rules<'a, 'r> {
    r: &'r mut Report,
    sound: HashMap<&'a str, &'a Table>,
}

impl<'a> V2Rules<'a, '_> {
    fn int(&self, table: &str, col: &str) -> Option<Cow<'a, [Option<i32>]>> {
        typing::int_column(self.sound.get(table)?, col)
    }

    fn chr(&self, table: &str, col: &str) -> Option<Cow<'a, [Option<String>]>> {
        typing::chr_column(self.sound.get(table)?, col)
    }

    fn check(mut self) {
        if let Some(meta) = self.sound.get("meta").copied() {
            check_meta_version(self.r, meta, "2.0");
        }
        let sources = self.primary_key("sources", "source_id");
        let samples = self.primary_key("samples", "sample_id");
        let locations = self.primary_key("locations", "location_id");
        let functions = self.primary_key("functions", "function_id");
        self.foreign_key("samples", "source_id", sources.as_ref(), false);
        self.foreign_key("sample_values", "sample_id", samples.as_ref(), false);
        self.foreign_key("sample_locations", "sample_id", samples.as_ref(), false);
        self.foreign_key("sample_locations", "location_id", locations.as_ref(), false);
        self.foreign_key("locations", "function_id", functions.as_ref(), true);
        if let Some(samples) = &samples {
            self.value_key(samples);
            self.depth_key(samples);
        }
        self.non_negative("locations", "line");
        self.non_negative("functions", "start_line");
        self.non_empty("functions", "name");
        self.non_empty("functions", "system_name");
    }
}
