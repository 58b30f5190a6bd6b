//! Frame names: the function's display name made safe for one Rprof line.
//!
//! R writes names raw, so a name is written as it is unless it would not read back: an empty
//! name becomes `<Anonymous>`, line breaks that the reader could not join become spaces, and a
//! name the reader would split (into frames, or at a `" 2#21` source reference naming a file
//! that may not exist) has its double quotes written as single quotes; each with a warning.

use super::super::read::is_continuation;
use super::Writer;
use crate::model::{FunctionIndex, LocationIndex};

/// Name written for a function whose name is empty.
const ANONYMOUS: &str = "<Anonymous>";

impl Writer<'_> {
    /// The name to write: the function's name made safe for one Rprof line.
    pub(super) fn frame_name(&mut self, loc: LocationIndex, f: Option<FunctionIndex>) -> String {
        let p = self.p;
        let mut name = p.frame_display_name(loc);
        if let Some(f) = f {
            let system = p.functions.system_name.get(f.idx()).copied();
            let own = p.functions.name.get(f.idx()).copied();
            if system.is_some_and(|sys| !sys.is_na() && Some(sys) != own) {
                let shown = name.clone();
                self.warn("system-name", || {
                    format!(
                        "functions whose system_name differs from name (e.g. {shown:?}): Rprof \
                         has one name per frame, so system_name is lost"
                    )
                });
            }
        }
        if name.is_empty() {
            self.warn("empty-name", || {
                format!("functions without a name were written as {ANONYMOUS}")
            });
            name = ANONYMOUS.to_owned();
        }
        if name.contains(['\n', '\r']) && !line_breaks_read_back(&name) {
            name = name.replace(['\n', '\r'], " ");
            let shown = name.clone();
            self.warn("newline", || {
                format!(
                    "function names with line breaks that would not read back (e.g. {shown:?}: \
                     a carriage return, or a line starting like an Rprof line); line breaks \
                     were replaced by spaces"
                )
            });
        }
        if ambiguous_name(name.as_bytes()) {
            name = name.replace('"', "'");
            let shown = name.clone();
            self.warn("ambiguous", || {
                format!(
                    "function names containing `\" \"` or `\" ` before a digit would read back \
                     as several frames or as a source reference (R writes them raw); their \
                     double quotes were written as single quotes (e.g. {shown:?})"
                )
            });
        }
        name
    }
}

/// True when a name with line breaks, written raw as R writes it, reads back as one name: no
/// carriage return, and every line it starts is a continuation to the reader.
fn line_breaks_read_back(name: &str) -> bool {
    !name.contains('\r')
        && name
            .split('\n')
            .skip(1)
            .all(|rest| is_continuation(rest.as_bytes()))
}

/// True when the reader would end the name early: `" "`, `" ` + digit, or `" ` at its end.
fn ambiguous_name(name: &[u8]) -> bool {
    name.windows(2)
        .enumerate()
        .any(|(i, w)| w == b"\" " && matches!(name.get(i + 2), None | Some(b'"' | b'0'..=b'9')))
}
