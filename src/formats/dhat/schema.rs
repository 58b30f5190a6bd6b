//! The serde shapes of a DHAT file and the grammar of its frame strings.

use serde::Deserialize;

/// One program point: counters (absent when the mode or options do not record them), the
/// access histogram and the frames.
#[derive(Deserialize)]
pub(super) struct ProgramPoint {
    #[serde(default)]
    pub fs: Option<Vec<u64>>,
    #[serde(default)]
    pub acc: Option<serde::de::IgnoredAny>,
    /// Every other member: the counters (`tb`, `tbk`, …) and keys this reader does not know.
    #[serde(flatten)]
    pub counters: serde_json::Map<String, serde_json::Value>,
}

/// A counter of a program point and the value type it becomes.
pub(super) struct Counter {
    /// The key in the file.
    pub key: &'static str,
    /// The value type's name (ad-hoc mode renames `tb` and `tbk`).
    pub name: &'static str,
    /// The unit (`None`: the file's time unit).
    pub unit: Option<&'static str>,
}

/// The counters DHAT writes, in the order their value types are declared.
pub(super) const COUNTERS: [Counter; 11] = [
    counter("tb", "total_bytes", Some("bytes")),
    counter("tbk", "total_blocks", Some("count")),
    counter("tl", "total_lifetime", None),
    counter("mb", "max_bytes", Some("bytes")),
    counter("mbk", "max_blocks", Some("count")),
    counter("gb", "tgmax_bytes", Some("bytes")),
    counter("gbk", "tgmax_blocks", Some("count")),
    counter("eb", "tend_bytes", Some("bytes")),
    counter("ebk", "tend_blocks", Some("count")),
    counter("rb", "reads", Some("bytes")),
    counter("wb", "writes", Some("bytes")),
];

const fn counter(key: &'static str, name: &'static str, unit: Option<&'static str>) -> Counter {
    Counter { key, name, unit }
}

/// A frame string of `ftbl`, taken apart.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Frame<'a> {
    pub address: Option<u64>,
    /// The function name; `None` for `???`.
    pub name: Option<&'a str>,
    pub file: Option<&'a str>,
    pub line: i32,
    pub object: Option<&'a str>,
}

/// Parses `0xADDR: name (file:line)`, `0xADDR: name (in object)`, `0xADDR: ???` and, for
/// anything else (`[root]`), a bare name; an empty entry has no name (a function's name is
/// never empty).
pub(super) fn parse_frame(text: &str) -> Frame<'_> {
    let bare = Frame {
        address: None,
        name: (!text.is_empty()).then_some(text),
        file: None,
        line: 0,
        object: None,
    };
    let Some((addr, rest)) = text.split_once(": ") else {
        return bare;
    };
    let Some(address) = addr
        .strip_prefix("0x")
        .and_then(|h| u64::from_str_radix(h, 16).ok())
    else {
        return bare;
    };
    let (name, place) = match rest.strip_suffix(')').and_then(|r| r.rsplit_once(" (")) {
        Some((name, place)) => (name, Some(place)),
        None => (rest, None),
    };
    let name = (name != "???" && !name.is_empty()).then_some(name);
    let mut frame = Frame {
        address: Some(address),
        name,
        file: None,
        line: 0,
        object: None,
    };
    let Some(place) = place else {
        return frame;
    };
    if let Some(object) = place.strip_prefix("in ") {
        frame.object = Some(object);
    } else if let Some((file, line)) = place
        .rsplit_once(':')
        .and_then(|(f, l)| Some((f, l.parse::<i32>().ok().filter(|l| *l >= 0)?)))
    {
        frame.file = Some(file);
        frame.line = line;
    } else {
        frame.file = Some(place);
    }
    frame
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_grammar() {
        let f = parse_frame("0x10937F: sort_random_doubles (cwork.c:29)");
        assert_eq!(f.address, Some(0x10937F));
        assert_eq!(f.name, Some("sort_random_doubles"));
        assert_eq!((f.file, f.line), (Some("cwork.c"), 29));
        let f = parse_frame("0x48417B4: malloc (in /usr/lib/x.so)");
        assert_eq!((f.name, f.object), (Some("malloc"), Some("/usr/lib/x.so")));
        let f = parse_frame("0x401AB77: ??? (in /lib/ld.so)");
        assert_eq!(f.name, None);
        let f = parse_frame("0x1: (anonymous namespace)::f(int) (a.cc:3)");
        assert_eq!(f.name, Some("(anonymous namespace)::f(int)"));
        assert_eq!(parse_frame("[root]").name, Some("[root]"));
        assert_eq!(parse_frame("[root]").address, None);
    }
}
