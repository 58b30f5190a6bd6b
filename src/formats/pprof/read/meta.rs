//! Reader steps: the sample types (→ value types, a repeated name renamed with a warning) and
//! the scalars of `Profile` (→ `meta` rows under the `pprof.` keys).

use super::Reader;
use crate::formats::pprof::toplevel::TopLevel;
use crate::formats::pprof::*;
use crate::formats::Warnings;
use crate::hash::{HashMap, HashSet};

impl Reader<'_> {
    pub(super) fn value_types(&mut self, top: &TopLevel) -> Result<(), ReadError> {
        if top.sample_types.is_empty() && top.num_samples > 0 {
            return Err(ReadError::whole(FORMAT, "missing sample type information"));
        }
        let mut names = TypeNames::default();
        for (i, (vt, off)) in top.sample_types.iter().enumerate() {
            let what = || format!("sample_type[{i}]");
            let name = self.text(vt.r#type, *off, &what)?.to_owned();
            let unit = self.text(vt.unit, *off, &what)?.to_owned();
            let name = names.unique(name, &mut self.warnings);
            // Every name is unique, so sample type `i` becomes value column `i`, which the
            // samples rely on (their values go into the columns in order).
            let index = self.b.value_type(&name, &unit);
            if index.idx() != i {
                return Err(ReadError::whole(
                    FORMAT,
                    format!("internal error: sample_type[{i}] did not get value column {i}"),
                ));
            }
        }
        Ok(())
    }

    pub(super) fn meta(&mut self, top: &TopLevel) -> Result<(), ReadError> {
        for (key, s) in [
            (META_TIME_NANOS, top.time_nanos),
            (META_DURATION_NANOS, top.duration_nanos),
            (META_PERIOD, top.period),
        ] {
            if s.value != 0 {
                self.b.set_meta(key, &s.value.to_string());
            }
        }
        if let Some((pt, off)) = top.period_type {
            let what = || "period_type".to_owned();
            let t = self.text(pt.r#type, off, &what)?.to_owned();
            let u = self.text(pt.unit, off, &what)?.to_owned();
            self.b.set_meta(META_PERIOD_TYPE, &t);
            self.b.set_meta(META_PERIOD_UNIT, &u);
        }
        for (key, s) in [
            (META_DROP_FRAMES, top.drop_frames),
            (META_KEEP_FRAMES, top.keep_frames),
            (META_DOC_URL, top.doc_url),
            (META_PPROF_DEFAULT_TYPE, top.default_sample_type),
        ] {
            if s.value != 0 {
                let text = self.text(s.value, s.offset, &|| key.to_owned())?.to_owned();
                self.b.set_meta(key, &text);
                if key == META_PPROF_DEFAULT_TYPE {
                    self.b.set_meta(META_DEFAULT_TYPE, &text);
                }
            }
        }
        for (i, c) in top.comments.iter().enumerate() {
            let text = self
                .text(c.value, c.offset, &|| format!("comment[{i}]"))?
                .to_owned();
            self.b.add_meta(META_COMMENT, &text);
        }
        Ok(())
    }
}

/// The sample type names given so far, each unique: a name seen before becomes `name.2`,
/// `name.3`, … (the first free one). Hashed, and each name's next suffix remembered, so that
/// thousands of sample types of one name cost their number, not its cube (3,000 entries of 18
/// KB took minutes when each candidate was looked up among the types one by one).
#[derive(Default)]
struct TypeNames {
    taken: HashSet<String>,
    next_suffix: HashMap<String, usize>,
}

impl TypeNames {
    /// `name`, or the first `name.K` (K ≥ 2) not taken, with a warning.
    fn unique(&mut self, name: String, warnings: &mut Warnings) -> String {
        if self.taken.insert(name.clone()) {
            return name;
        }
        let k = self.next_suffix.entry(name.clone()).or_insert(2);
        loop {
            let candidate = format!("{name}.{k}");
            *k += 1;
            if self.taken.insert(candidate.clone()) {
                warnings.add(FORMAT, "dup-type", || {
                    format!("sample type '{name}' appears more than once; renamed to '{candidate}'")
                });
                return candidate;
            }
        }
    }
}
