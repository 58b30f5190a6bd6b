//! Golden files: comparing a test's output with an expected file under `tests/fixtures`.
//!
//! With `PROFTAB_BLESS=1` (any value but empty or `0`) a check that would fail writes the
//! actual output instead (review the change with `git diff`); otherwise a mismatch fails with
//! the lines that differ. Exact checks compare the whole text, final line end included:
//! an expected file says exactly what is printed.

use std::path::Path;

/// True when `PROFTAB_BLESS` asks to write actual outputs instead of comparing.
pub fn blessing() -> bool {
    std::env::var_os("PROFTAB_BLESS").is_some_and(|v| !v.is_empty() && v != "0")
}

/// Asserts that the file at `path` holds exactly `actual` (or writes it when blessing).
pub fn check(path: &Path, actual: &str) {
    let expected = read_expected(path);
    if expected.as_deref() == Some(actual) {
        return;
    }
    if blessing() {
        return write(path, actual);
    }
    let expected = expected.unwrap_or_else(|| missing(path));
    panic!(
        "{}: the output differs from the expected file (PROFTAB_BLESS=1 accepts it)\n{}",
        path.display(),
        diff(&expected, actual)
    );
}

/// Asserts that `actual` contains the text of the file at `path`, without its surrounding
/// white space (expected files that hold the telling part of a longer message). Blessing
/// writes `actual` and a line end.
pub fn check_contains(path: &Path, actual: &str) {
    let expected = read_expected(path);
    if expected
        .as_deref()
        .is_some_and(|e| actual.contains(e.trim()))
    {
        return;
    }
    if blessing() {
        return write(path, &format!("{actual}\n"));
    }
    let expected = expected.unwrap_or_else(|| missing(path));
    panic!(
        "{}: {actual:?} does not contain {:?} (PROFTAB_BLESS=1 accepts it)",
        path.display(),
        expected.trim()
    );
}

/// Checks every input of `dir` (each file but the `.expected` ones, sorted) with `compare`
/// ([`check`] or [`check_contains`]) against its `<case>.expected`, the actual text being
/// `outcome(input path, input bytes)`. Returns the number of inputs.
pub fn check_cases(
    dir: &Path,
    compare: fn(&Path, &str),
    mut outcome: impl FnMut(&Path, &[u8]) -> String,
) -> usize {
    let inputs: Vec<_> = super::corpus::files_in(dir)
        .into_iter()
        .filter(|p| p.extension().is_none_or(|e| e != "expected"))
        .collect();
    for input in &inputs {
        let actual = outcome(input, &std::fs::read(input).unwrap());
        compare(&input.with_extension("expected"), &actual);
    }
    inputs.len()
}

/// Writes `text` to `path` and says so on stderr.
pub fn write(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    eprintln!("wrote {}", path.display());
}

fn read_expected(path: &Path) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

fn missing(path: &Path) -> ! {
    panic!("{} is missing (PROFTAB_BLESS=1 creates it)", path.display())
}

/// The lines between the common head and tail of two texts, as `-` (expected) and `+`
/// (actual) lines with up to two lines of context on either side.
pub fn diff(expected: &str, actual: &str) -> String {
    let e: Vec<&str> = expected.lines().collect();
    let a: Vec<&str> = actual.lines().collect();
    let head = e.iter().zip(&a).take_while(|(x, y)| x == y).count();
    let tail = e[head..]
        .iter()
        .rev()
        .zip(a[head..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let mut out = format!("@@ line {} @@\n", head + 1);
    let mut push = |mark: &str, lines: &[&str]| {
        for line in lines {
            out.push_str(&format!("{mark}{line}\n"));
        }
    };
    push("  ", &e[head.saturating_sub(2)..head]);
    push("- ", &e[head..e.len() - tail]);
    push("+ ", &a[head..a.len() - tail]);
    push("  ", &e[e.len() - tail..(e.len() - tail + 2).min(e.len())]);
    if e == a {
        out.push_str("(the lines agree; the texts differ in line ends or the final newline)\n");
    }
    out
}
