//! The line grammar of `perf script` output (tools/perf/builtin-script.c, perf 4.x–6.x): a
//! sample header line `COMM [PID[/TID]] [[CPU]] [TIME:] [PERIOD] [EVENT:] [IP SYM (DSO)]`
//! followed, when the recording has call chains, by one indented frame line per frame,
//! innermost first (`ADDR SYM[+0xOFF] (DSO)`, `ADDR SYM (inlined)` with `--inline`), each
//! optionally followed by a source line (`  FILE:LINE`, with `-F +srcline`).

/// A parsed sample header. Absent fields are `None`.
#[derive(Debug, PartialEq)]
pub(super) struct Header<'a> {
    pub comm: &'a str,
    pub pid: Option<i32>,
    pub tid: Option<i32>,
    pub cpu: Option<i32>,
    /// Seconds, as printed (perf's clock, usually since boot).
    pub time: Option<f64>,
    pub period: Option<u64>,
    /// The event name as printed, without its final `:` (`cpu-clock:pppH`).
    pub event: Option<&'a str>,
    /// What follows the event: a frame of a sample without call chain, tracepoint fields, …
    pub rest: &'a str,
}

/// A parsed frame line.
#[derive(Debug, PartialEq)]
pub(super) struct Frame<'a> {
    pub address: Option<u64>,
    /// The symbol without its `+0x…` offset (`[unknown]` as printed).
    pub symbol: &'a str,
    /// The DSO as printed inside its parentheses, `None` when not printed or for inlined frames.
    pub dso: Option<&'a str>,
    pub inlined: bool,
}

/// Parses a sample header line (not indented). The command name may contain spaces: the
/// shortest prefix of words after which the remaining fields fit is the command.
pub(super) fn parse_header(line: &str) -> Option<Header<'_>> {
    if line.starts_with(char::is_whitespace) || line.starts_with('#') {
        return None;
    }
    let mut starts = line
        .char_indices()
        .filter(|&(i, c)| c != ' ' && (i == 0 || line[..i].ends_with(' ')))
        .map(|(i, _)| i)
        .skip(1);
    starts.find_map(|i| {
        let comm = line[..i].trim_end();
        fields(comm, &line[i..])
    })
}

/// The fields after the command name, when they fit the grammar.
fn fields<'a>(comm: &'a str, text: &'a str) -> Option<Header<'a>> {
    let mut h = Header {
        comm,
        pid: None,
        tid: None,
        cpu: None,
        time: None,
        period: None,
        event: None,
        rest: "",
    };
    let mut rest = text.trim_start();
    let (tok, after) = split_token(rest);
    if let Some((pid, tid)) = parse_pid_tid(tok) {
        (h.pid, h.tid) = (Some(pid), tid);
        rest = after;
    }
    let (tok, after) = split_token(rest);
    if let Some(cpu) = tok.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
        h.cpu = Some(cpu.parse().ok()?);
        rest = after;
    }
    let (tok, after) = split_token(rest);
    if let Some(t) = tok.strip_suffix(':').and_then(parse_time) {
        h.time = Some(t);
        rest = after;
    }
    let (tok, after) = split_token(rest);
    if !tok.is_empty() && tok.bytes().all(|b| b.is_ascii_digit()) {
        h.period = Some(tok.parse().ok()?);
        rest = after;
    }
    let (tok, after) = split_token(rest);
    if let Some(event) = tok.strip_suffix(':').filter(|e| !e.is_empty()) {
        h.event = Some(event);
        rest = after;
    }
    h.rest = rest.trim();
    // Without a time or an event, only a bare `COMM PID` header is accepted (no rest).
    let anchored = h.time.is_some() || h.event.is_some() || (h.pid.is_some() && h.rest.is_empty());
    anchored.then_some(h)
}

/// The first whitespace-separated token and what follows it (leading spaces removed).
fn split_token(text: &str) -> (&str, &str) {
    let text = text.trim_start();
    match text.find(char::is_whitespace) {
        Some(i) => (&text[..i], text[i..].trim_start()),
        None => (text, ""),
    }
}

/// `PID` or `PID/TID` (perf prints `-1` for unknown ids).
fn parse_pid_tid(tok: &str) -> Option<(i32, Option<i32>)> {
    let int = |s: &str| {
        let digits = s.strip_prefix('-').unwrap_or(s);
        (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse::<i32>().ok())
            .flatten()
    };
    match tok.split_once('/') {
        Some((p, t)) => Some((int(p)?, Some(int(t)?))),
        None => Some((int(tok)?, None)),
    }
}

/// `SECONDS.FRACTION` (perf's `%5lu.%06lu` or `.%09lu` with `--ns`).
fn parse_time(tok: &str) -> Option<f64> {
    let (s, f) = tok.split_once('.')?;
    let digits = |x: &str| !x.is_empty() && x.bytes().all(|b| b.is_ascii_digit());
    (digits(s) && digits(f)).then(|| tok.parse().ok()).flatten()
}

/// Parses a frame (an indented line, or the rest of a header). `None` when the text is not
/// `[ADDR] SYM (DSO)` or `[ADDR] SYM (inlined)` or `ADDR SYM`.
pub(super) fn parse_frame(text: &str) -> Option<Frame<'_>> {
    let text = text.trim();
    let (first, after) = split_token(text);
    let address = u64::from_str_radix(first, 16).ok();
    let body = if address.is_some() { after } else { text };
    let (symbol, dso) = match split_paren_suffix(body) {
        Some((sym, dso)) => (sym, Some(dso)),
        None => (body, None),
    };
    let inlined = dso == Some("inlined");
    let dso = dso.filter(|_| !inlined);
    if address.is_none() && dso.is_none() && !inlined {
        return None;
    }
    let symbol = strip_offset(symbol.trim());
    if symbol.is_empty() {
        return None;
    }
    Some(Frame {
        address,
        symbol,
        dso,
        inlined,
    })
}

/// Splits `SYM (DSO)` at the parenthesized group that ends the text (groups may nest, as in
/// `(/tmp/a.out (deleted))`); `None` when the text does not end with such a group.
fn split_paren_suffix(text: &str) -> Option<(&str, &str)> {
    let inner = text.strip_suffix(')')?;
    let mut depth = 1usize;
    for (i, c) in inner.char_indices().rev() {
        match c {
            ')' => depth += 1,
            '(' => {
                depth -= 1;
                if depth == 0 {
                    let sym = &inner[..i];
                    // A DSO group is separated from the symbol by a space (`f(int)` is a
                    // C++ signature, not a DSO).
                    return (sym.is_empty() || sym.ends_with(' '))
                        .then(|| (sym.trim_end(), &inner[i + 1..]));
                }
            }
            _ => {}
        }
    }
    None
}

/// `name+0x1f` → `name`; other text unchanged.
pub(super) fn strip_offset(symbol: &str) -> &str {
    match symbol.rsplit_once("+0x") {
        Some((name, off))
            if !name.is_empty()
                && !off.is_empty()
                && off.bytes().all(|b| b.is_ascii_hexdigit()) =>
        {
            name
        }
        _ => symbol,
    }
}

/// A source line (`-F +srcline`): `FILE:LINE` → its line (0 for perf's `??:0`); perf prints
/// `DSO[ADDR]` when it knows no line (line 0).
pub(super) fn parse_srcline(text: &str) -> Option<(&str, i32)> {
    let text = text.trim();
    if let Some((dso, addr)) = text.strip_suffix(']').and_then(|t| t.rsplit_once('[')) {
        if !dso.is_empty() && !addr.is_empty() && addr.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Some((dso, 0));
        }
    }
    let (file, line) = text.rsplit_once(':')?;
    if file.is_empty() || file.contains(char::is_whitespace) {
        return None;
    }
    Some((file, line.parse().ok().filter(|l: &i32| *l >= 0)?))
}

/// The value type of an event: the name without perf's modifier suffix (`cpu-clock:pppH` →
/// `cpu-clock`; `sched:sched_switch` stays).
pub(crate) fn event_type(event: &str) -> &str {
    match event.rsplit_once(':') {
        Some((name, mods))
            if !name.is_empty()
                && !mods.is_empty()
                && mods.bytes().all(|b| b"ukhIGHpPSDWe".contains(&b)) =>
        {
            name
        }
        _ => event,
    }
}

/// The value type an event's periods go to: [`event_type`], except that an event named
/// `samples` (perf lets any tracepoint or PMU alias have that name) becomes `samples-event`, so
/// its periods never add to the reader's own `samples` count of one per sample.
pub(crate) fn event_value_type(event: &str) -> &str {
    match event_type(event) {
        "samples" => "samples-event",
        name => name,
    }
}

/// True for a DSO of the kernel (`[kernel.kallsyms]`, `[guest.kernel.kallsyms]`, modules as
/// `[nf_tables]` are not distinguishable from other bracketed names and count as native).
pub(super) fn is_kernel_dso(dso: &str) -> bool {
    dso.starts_with('[') && dso.contains("kernel")
}

/// The text shortened for messages.
pub(super) fn shorten(text: &str) -> String {
    const MAX: usize = 80;
    match text.char_indices().nth(MAX) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers() {
        let h = parse_header("work 17058  2871.858195:    1001001 cpu-clock:pppH: ").unwrap();
        assert_eq!((h.comm, h.pid, h.tid), ("work", Some(17058), None));
        assert_eq!((h.period, h.event), (Some(1001001), Some("cpu-clock:pppH")));
        let h = parse_header("simple-terminat     9/9     198791.127353: cpu-clock: ").unwrap();
        assert_eq!((h.pid, h.tid, h.period), (Some(9), Some(9), None));
        let h = parse_header("Web Content 17206/17207 [003]  2873.016472:  5 cycles:u: ").unwrap();
        assert_eq!(
            (h.comm, h.cpu, h.event),
            ("Web Content", Some(3), Some("cycles:u"))
        );
        let h = parse_header("a 1 1.5: ev:  115e alpha+0x15 (/tmp/w)").unwrap();
        assert_eq!(h.rest, "115e alpha+0x15 (/tmp/w)");
        for no in ["\t115e alpha (/x)", "a;b;c 5 x", "# comment", "main;f x"] {
            assert_eq!(parse_header(no), None, "{no:?}");
        }
    }

    #[test]
    fn frames() {
        let f = parse_frame("\t  115e alpha+0x15 (/tmp/perfrec/work)").unwrap();
        assert_eq!(
            (f.address, f.symbol, f.dso),
            (Some(0x115e), "alpha", Some("/tmp/perfrec/work"))
        );
        let f = parse_frame("  11c3 gamma_inl (inlined)").unwrap();
        assert!(f.inlined && f.dso.is_none());
        let f = parse_frame(" 7f f(int, char) (/a.out (deleted))").unwrap();
        assert_eq!(
            (f.symbol, f.dso),
            ("f(int, char)", Some("/a.out (deleted)"))
        );
        assert_eq!(parse_frame("  work.c:6"), None);
        assert_eq!(event_type("task-clock:ppp"), "task-clock");
        assert_eq!(event_type("sched:sched_switch"), "sched:sched_switch");
        assert_eq!(parse_srcline("  work.c:6"), Some(("work.c", 6)));
        assert_eq!(
            parse_srcline(" [kernel.kallsyms][ffff813a]"),
            Some(("[kernel.kallsyms]", 0))
        );
    }
}
