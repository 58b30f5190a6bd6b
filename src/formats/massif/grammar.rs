//! The line grammar of massif output: header lines, snapshot fields and tree nodes.

/// The line around every `snapshot=N`.
pub(super) const SEPARATOR: &str = "#-----------";

/// The value of `time_unit: i|ms|B`.
pub(super) fn time_unit(line: &str) -> Option<&str> {
    let unit = line.strip_prefix("time_unit:")?.trim();
    matches!(unit, "i" | "ms" | "B").then_some(unit)
}

/// `key=value` of a snapshot field line.
pub(super) fn field<'l>(line: &'l str, key: &str) -> Option<&'l str> {
    line.strip_prefix(key)?.strip_prefix('=').map(str::trim)
}

/// What `heap_tree=` says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum TreeKind {
    Empty,
    Detailed,
    Peak,
}

pub(super) fn tree_kind(value: &str) -> Option<TreeKind> {
    match value {
        "empty" => Some(TreeKind::Empty),
        "detailed" => Some(TreeKind::Detailed),
        "peak" => Some(TreeKind::Peak),
        _ => None,
    }
}

/// A tree line `nK: BYTES TEXT` (any indentation, as ms_print reads it).
pub(super) struct NodeLine<'l> {
    pub children: usize,
    pub bytes: u64,
    pub text: &'l str,
}

pub(super) fn node_line(line: &str) -> Option<NodeLine<'_>> {
    let rest = line.trim_start().strip_prefix('n')?;
    let (children, rest) = rest.split_once(':')?;
    let rest = rest.trim_start();
    let digits = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    let (bytes, text) = rest.split_at(digits);
    if !text.is_empty() && !text.starts_with(' ') {
        return None;
    }
    Some(NodeLine {
        children: children.parse().ok()?,
        bytes: bytes.parse().ok()?,
        text: text.trim(),
    })
}

/// What a node's text names.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Frame<'l> {
    /// `0xADDR: fn (file:line)`, `0xADDR: fn (in object)`, `0xADDR: ???`.
    Code(Code<'l>),
    /// Anything else (below-threshold entries, the allocation functions): named by its text.
    Named(&'l str),
}

/// A code frame's parts.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Code<'l> {
    pub address: u64,
    /// `None` for `???`.
    pub function: Option<&'l str>,
    pub file: Option<&'l str>,
    pub line: i32,
    pub object: Option<&'l str>,
}

pub(super) fn frame(text: &str) -> Frame<'_> {
    let code = text
        .strip_prefix("0x")
        .and_then(|t| t.split_once(':'))
        .and_then(|(hex, rest)| Some((u64::from_str_radix(hex, 16).ok()?, rest.trim())));
    let Some((address, rest)) = code else {
        return Frame::Named(text);
    };
    let (name, place) = match rest.strip_suffix(')').and_then(|r| r.rsplit_once(" (")) {
        Some((name, place)) => (name.trim(), Some(place)),
        None => (rest, None),
    };
    let (mut file, mut line, mut object) = (None, 0, None);
    match place {
        Some(p) if p.starts_with("in ") => object = Some(&p[3..]),
        Some(p) => match p
            .rsplit_once(':')
            .and_then(|(f, l)| Some((f, l.parse().ok()?)))
        {
            Some((f, l)) => (file, line) = (Some(f), l),
            None => file = Some(p),
        },
        None => {}
    }
    // A name that is only a place, e.g. `0x1: (in /lib/x.so)`, is unknown as `???` is.
    let function = (!name.is_empty() && name != "???").then_some(name);
    Frame::Code(Code {
        address,
        function,
        file,
        line,
        object,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_lines_and_frames() {
        let n = node_line("  n2: 12000 0x804841D: g (prog.c:9)").unwrap();
        assert_eq!((n.children, n.bytes), (2, 12000));
        assert_eq!(
            frame(n.text),
            Frame::Code(Code {
                address: 0x804841d,
                function: Some("g"),
                file: Some("prog.c"),
                line: 9,
                object: None
            })
        );
        let f = frame("0x4D3286: ??? (in /usr/bin/python2.7)");
        assert_eq!(
            f,
            Frame::Code(Code {
                address: 0x4d3286,
                function: None,
                file: None,
                line: 0,
                object: Some("/usr/bin/python2.7")
            })
        );
        let f = frame("0x1: A::f(int) (a b.cpp:7)");
        assert!(matches!(
            f,
            Frame::Code(Code {
                function: Some("A::f(int)"),
                file: Some("a b.cpp"),
                line: 7,
                ..
            })
        ));
        let t = "in 5 places, all below massif's threshold (01.00%)";
        assert_eq!(frame(t), Frame::Named(t));
        assert!(node_line("n1: 12x").is_none());
        assert!(node_line("x1: 12").is_none());
        assert_eq!(node_line("n0: 0").unwrap().text, "");
    }
}
