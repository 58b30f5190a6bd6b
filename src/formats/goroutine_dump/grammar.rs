//! The lines of a Go traceback, as `runtime/traceback.go` prints them (Go 1.19–1.23):
//! `goroutineheader`, the two lines of a frame (`traceback1`/`printFuncName` and the file
//! line), `printcreatedby1`, the elision markers and the ancestor header.

/// A goroutine header: `goroutine 18 [chan receive, 2 minutes, locked to thread]:`, since
/// Go 1.21 with `gp=0x… m=N mp=0x…` between the id and the status when GOTRACEBACK ≥ system.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Header<'a> {
    pub id: u64,
    /// The status items that are neither a wait time nor `locked to thread`, joined with
    /// `, ` (the wait reason first, e.g. `chan receive` or `running (scan)`).
    pub state: String,
    /// `N minutes`.
    pub wait_minutes: Option<i32>,
    /// `locked to thread`.
    pub locked: bool,
    /// The `m=` field (`nil` or an M id), when present.
    pub m: Option<&'a str>,
    /// True when `gp=` or `mp=` pointers were present (not kept).
    pub pointers: bool,
}

/// True when `text` starts like a goroutine header: `goroutine ` and a digit.
pub(super) fn looks_like_header(text: &str) -> bool {
    text.strip_prefix("goroutine ")
        .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
}

/// Parses a goroutine header; the error says what is wrong.
pub(super) fn parse_header(text: &str) -> Result<Header<'_>, String> {
    let rest = text
        .strip_prefix("goroutine ")
        .ok_or_else(|| "a goroutine header starts with `goroutine `".to_owned())?;
    let body = rest.strip_suffix("]:").ok_or_else(|| {
        format!(
            "the goroutine header {:?} does not end with `]:` (`goroutine N [status]:`)",
            shorten(text)
        )
    })?;
    let (before, status) = body.split_once(" [").ok_or_else(|| {
        format!(
            "the goroutine header {:?} has no ` [` before its status",
            shorten(text)
        )
    })?;
    let mut fields = before.split(' ');
    let id_text = fields.next().unwrap_or("");
    let id = parse_goroutine_id(id_text)?;
    let (m, pointers) = runtime_fields(fields, text)?;
    let mut header = Header {
        id,
        state: String::new(),
        wait_minutes: None,
        locked: false,
        m,
        pointers,
    };
    status_items(status, &mut header);
    Ok(header)
}

/// A goroutine id: decimal digits that fit in 64 bits.
pub(super) fn parse_goroutine_id(s: &str) -> Result<u64, String> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("the goroutine id {:?} is not a number", shorten(s)));
    }
    s.parse().map_err(|_| {
        format!(
            "the goroutine id {} is out of range (Go's ids are below 2^64)",
            shorten(s)
        )
    })
}

/// The `gp=… m=… mp=…` fields after the id: the `m` value and whether pointers were seen.
fn runtime_fields<'a>(
    fields: impl Iterator<Item = &'a str>,
    header: &str,
) -> Result<(Option<&'a str>, bool), String> {
    let mut m = None;
    let mut pointers = false;
    for field in fields {
        if let Some(v) = field.strip_prefix("m=") {
            m = Some(v);
        } else if field.starts_with("gp=") || field.starts_with("mp=") {
            pointers = true;
        } else {
            return Err(format!(
                "unexpected {:?} in the goroutine header {:?} (only `gp=`, `m=` and `mp=` \
                 may follow the id)",
                shorten(field),
                shorten(header)
            ));
        }
    }
    Ok((m, pointers))
}

/// Splits the status on `, ` into the wait reason, `N minutes` and `locked to thread`.
fn status_items(status: &str, header: &mut Header<'_>) {
    let mut kept: Vec<&str> = Vec::new();
    for item in status.split(", ") {
        if item == "locked to thread" {
            header.locked = true;
        } else if let Some(n) = minutes(item) {
            header.wait_minutes = Some(n);
        } else {
            kept.push(item);
        }
    }
    header.state = kept.join(", ");
}

/// `N minutes` (N fitting an int).
fn minutes(item: &str) -> Option<i32> {
    let n = item.strip_suffix(" minutes")?;
    if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    n.parse().ok()
}

/// A function line: `main.worker(0xc000012345, 0x3)`, `main.wait(...)` (inlined).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct FunctionLine<'a> {
    pub name: &'a str,
    /// The argument list between the outer parentheses.
    pub args: &'a str,
}

impl FunctionLine<'_> {
    /// True for `name(...)`: Go prints inlined frames (and ancestors' frames) so.
    pub fn is_inlined(&self) -> bool {
        self.args == "..."
    }
}

/// Parses a function line: a name, then an argument list in parentheses at the end of the
/// line. The name may hold parentheses itself (`main.(*T).m`), so the list's `(` is the one
/// matching the final `)`.
pub(super) fn parse_function(text: &str) -> Option<FunctionLine<'_>> {
    let inner = text.strip_suffix(')')?;
    let mut depth = 0usize;
    for (i, c) in inner.char_indices().rev() {
        match c {
            ')' => depth += 1,
            '(' if depth == 0 => {
                let name = inner.get(..i)?;
                let args = inner.get(i + 1..)?;
                if name.is_empty() || name.starts_with(char::is_whitespace) {
                    return None;
                }
                return Some(FunctionLine { name, args });
            }
            '(' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// A file line: `\t/tmp/x/main.go:30 +0x45`, with ` fp=0x… sp=0x… pc=0x…` when
/// GOTRACEBACK ≥ system.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct FileLine<'a> {
    pub file: &'a str,
    pub line: i32,
    /// The `+0x…` offset of the pc from the function's entry.
    pub pc_offset: Option<u64>,
    /// True when `fp=`, `sp=` or `pc=` values followed (not kept).
    pub registers: bool,
}

/// True when `text` is indented as a file line is (a tab, or spaces after copying).
pub(super) fn is_indented(text: &str) -> bool {
    text.starts_with(['\t', ' '])
}

/// Parses a file line; `None` when the line is not one.
pub(super) fn parse_file(text: &str) -> Option<FileLine<'_>> {
    if !is_indented(text) {
        return None;
    }
    let mut rest = text.trim();
    let mut registers = false;
    let mut pc_offset = None;
    while let Some((head, last)) = rest.rsplit_once(' ') {
        if ["fp=0x", "sp=0x", "pc=0x"]
            .iter()
            .any(|p| last.strip_prefix(p).is_some_and(is_hex))
        {
            registers = true;
        } else if let Some(hex) = last.strip_prefix("+0x") {
            pc_offset = Some(u64::from_str_radix(hex, 16).ok()?);
        } else {
            break;
        }
        rest = head;
    }
    let (file, line) = rest.rsplit_once(':')?;
    if file.is_empty() || line.is_empty() || !line.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(FileLine {
        file,
        line: line.parse().ok()?,
        pc_offset,
        registers,
    })
}

fn is_hex(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// A `created by main.main` line, since Go 1.21 `created by main.main in goroutine 1`: the
/// creator's name and goroutine.
pub(super) fn parse_created_by(text: &str) -> Option<(&str, Option<u64>)> {
    let rest = text.strip_prefix("created by ")?;
    let (name, id) = match rest.rsplit_once(" in goroutine ") {
        Some((name, id)) => match parse_goroutine_id(id) {
            Ok(id) => (name, Some(id)),
            Err(_) => (rest, None),
        },
        None => (rest, None),
    };
    (!name.trim().is_empty()).then_some((name, id))
}

/// The number of frames an elision line says were left out: `...additional frames
/// elided...` (before Go 1.21, count unknown: `Some(None)`) or `...N frames elided...`.
pub(super) fn parse_elided(text: &str) -> Option<Option<u64>> {
    let t = text.trim();
    if t == "...additional frames elided..." {
        return Some(None);
    }
    let n = t.strip_prefix("...")?.strip_suffix(" frames elided...")?;
    n.parse().ok().map(Some)
}

/// True for `[originating from goroutine N]:` (GODEBUG=tracebackancestors).
pub(super) fn is_ancestor_header(text: &str) -> bool {
    text.starts_with("[originating from goroutine ") && text.ends_with("]:")
}

/// True for the line Go prints instead of the stack of a goroutine running elsewhere.
pub(super) fn is_stack_unavailable(text: &str) -> bool {
    text.trim() == "goroutine running on other thread; stack unavailable"
}

/// True for the first line of a panic, a fatal error or a signal report
/// (`panic: boom`, `fatal error: all goroutines are asleep - deadlock!`, `SIGQUIT: quit`).
pub(super) fn is_panic_start(text: &str) -> bool {
    if text.starts_with("panic: ") || text.starts_with("fatal error: ") {
        return true;
    }
    text.split_once(": ").is_some_and(|(sig, _)| {
        sig.len() > 3
            && sig.starts_with("SIG")
            && sig
                .bytes()
                .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit())
    })
}

/// `exit status 2` (what `go run` prints after a crash): the status.
pub(super) fn parse_exit_status(text: &str) -> Option<&str> {
    let n = text.trim().strip_prefix("exit status ")?;
    (!n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())).then_some(n)
}

/// At most [`SHORT_CHARS`] characters of `s`, for messages.
pub(super) fn shorten(s: &str) -> String {
    match s.char_indices().nth(SHORT_CHARS) {
        Some((end, _)) => format!("{}…", s.get(..end).unwrap_or(s)),
        None => s.to_owned(),
    }
}

/// Characters of input quoted in a message.
const SHORT_CHARS: usize = 80;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers() {
        let h = parse_header("goroutine 18 [chan receive, 2 minutes, locked to thread]:");
        assert_eq!(
            h,
            Ok(Header {
                id: 18,
                state: "chan receive".into(),
                wait_minutes: Some(2),
                locked: true,
                m: None,
                pointers: false
            })
        );
        let h = parse_header("goroutine 1 gp=0xc000002380 m=0 mp=0x5a8d00 [running]:");
        assert_eq!(
            h.as_ref().map(|h| (h.id, h.m, h.pointers)),
            Ok((1, Some("0"), true))
        );
        assert!(parse_header("goroutine 1 [running]").is_err());
        assert!(parse_header("goroutine 99999999999999999999 [running]:").is_err());
        assert!(parse_header("goroutine 1 x=1 [running]:").is_err());
        assert!(looks_like_header("goroutine 7 [x]:"));
        assert!(!looks_like_header("goroutine profile: total 3"));
    }

    #[test]
    fn frames() {
        assert_eq!(
            parse_function("main.(*T).m(0x1, {0x2, 0x3})"),
            Some(FunctionLine {
                name: "main.(*T).m",
                args: "0x1, {0x2, 0x3}"
            })
        );
        assert!(parse_function("main.wait(...)").is_some_and(|f| f.is_inlined()));
        assert_eq!(parse_function("exit status 2"), None);
        assert_eq!(parse_function("(x)"), None);
        let f = parse_file("\t/a b/c.go:30 +0x45 fp=0xc0 sp=0xc1 pc=0x4f");
        assert_eq!(
            f,
            Some(FileLine {
                file: "/a b/c.go",
                line: 30,
                pc_offset: Some(0x45),
                registers: true
            })
        );
        assert_eq!(
            parse_file("\tC:/x/y.go:3").map(|f| f.file),
            Some("C:/x/y.go")
        );
        assert_eq!(parse_file("/x.go:3"), None);
        assert_eq!(
            parse_created_by("created by main.main in goroutine 1"),
            Some(("main.main", Some(1)))
        );
        assert_eq!(parse_created_by("created by  in goroutine 1"), None);
        assert_eq!(parse_created_by("created by "), None);
        assert_eq!(parse_elided("...12 frames elided..."), Some(Some(12)));
        assert!(is_panic_start("SIGQUIT: quit"));
        assert!(!is_panic_start("SIG: x"));
    }
}
