//! Cheap, iterative JSON scanning for the JSON-family readers and detectors.
//!
//! [`top_level_members`] lists the keys of a top-level object with the byte span of each value,
//! without building a tree: detectors check their own keys in O(n) time and O(keys) memory, and
//! readers deserialize only the members they know, one at a time, so they can name every key
//! they did not keep. Nesting is tracked with a counter, never recursion. The scanner checks
//! structure only loosely (brackets, strings); the typed deserialization of each member is
//! what rejects malformed JSON, with [`serde_error`] turning its position into a byte offset.
//!
//! It is also the one sniffing toolkit of the JSON family: every JSON detector (cpuprofile,
//! speedscope, Firefox, tables-JSON, OTLP/JSON) looks at a bounded [`prefix`] with
//! [`opens_object`], [`contains`] (`memchr::memmem`) or the member scanner, never with a
//! scanner of its own. Detectors never allocate more than the member list of one object.

use std::ops::Range;

use super::error::{Place, ReadError, Warning, Warnings};

/// One member of a JSON object: its (unescaped) key and the byte range of its raw value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Member {
    /// The key, with JSON escapes resolved.
    pub key: String,
    /// Byte range of the value in the scanned input.
    pub value: Range<usize>,
}

/// Deepest nesting of arrays and objects any JSON reader accepts: serde_json's recursion
/// limit, which every JSON reader's parse keeps (the `unbounded_depth` feature is off), so
/// deeper input is an error ([`json_problem`] names this limit), never a stack overflow. No
/// option raises it; real profiles nest a few levels (trees of frames are id-linked lists or
/// walked with an explicit stack, see heapprofile).
pub const MAX_JSON_DEPTH: usize = 128;

/// Largest number of members read from one object; a detector or reader never needs more, and
/// the cap bounds memory for hostile objects with millions of keys.
pub(crate) const MAX_MEMBERS: usize = 4096;

/// Position after an optional UTF-8 byte-order mark and JSON whitespace.
pub(crate) fn skip_bom_and_ws(bytes: &[u8]) -> usize {
    let start = if bytes.starts_with(b"\xEF\xBB\xBF") {
        3
    } else {
        0
    };
    skip_ws(bytes, start)
}

pub(crate) fn skip_ws(bytes: &[u8], mut pos: usize) -> usize {
    while bytes
        .get(pos)
        .is_some_and(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
    {
        pos += 1;
    }
    pos
}

/// The first non-whitespace byte (after a BOM), if any.
pub(crate) fn first_significant_byte(bytes: &[u8]) -> Option<u8> {
    bytes.get(skip_bom_and_ws(bytes)).copied()
}

/// The members of the top-level object, or `None` when the input does not start with an
/// object or its member list is malformed (unterminated string, missing `:`). At most
/// [`MAX_MEMBERS`] members are returned.
pub(crate) fn top_level_members(bytes: &[u8]) -> Option<Vec<Member>> {
    let open = skip_bom_and_ws(bytes);
    if bytes.get(open) != Some(&b'{') {
        return None;
    }
    object_members(bytes, open)
}

/// The top-level members, or an error with the JSON syntax problem's place.
pub(crate) fn document_members(
    format: &'static str,
    bytes: &[u8],
) -> Result<Vec<Member>, ReadError> {
    if let Some(m) = top_level_members(bytes) {
        return Ok(m);
    }
    let start = skip_bom_and_ws(bytes);
    let body = bytes.get(start..).unwrap_or_default();
    match serde_json::from_slice::<serde::de::IgnoredAny>(body) {
        Err(e) => Err(serde_error(format, body, start, "", &e)),
        Ok(_) => Err(ReadError::whole(format, "the file is not a JSON object")),
    }
}

/// The members of the object whose `{` is at `open`.
pub(crate) fn object_members(bytes: &[u8], open: usize) -> Option<Vec<Member>> {
    let mut members = Vec::new();
    let mut pos = skip_ws(bytes, open + 1);
    if bytes.get(pos) == Some(&b'}') {
        return Some(members);
    }
    loop {
        let key_end = string_end(bytes, pos)?;
        let key: String = serde_json::from_slice(bytes.get(pos..key_end)?).ok()?;
        pos = skip_ws(bytes, key_end);
        if bytes.get(pos) != Some(&b':') {
            return None;
        }
        let value_start = skip_ws(bytes, pos + 1);
        let value_end = value_end(bytes, value_start)?;
        members.push(Member {
            key,
            value: value_start..value_end,
        });
        if members.len() >= MAX_MEMBERS {
            return Some(members);
        }
        pos = skip_ws(bytes, value_end);
        match bytes.get(pos) {
            Some(b',') => pos = skip_ws(bytes, pos + 1),
            Some(b'}') => return Some(members),
            _ => return None,
        }
    }
}

/// The byte ranges of the elements of the array whose `[` is at `open`, at most `max`.
pub(crate) fn array_elements(bytes: &[u8], open: usize, max: usize) -> Option<Vec<Range<usize>>> {
    if bytes.get(open) != Some(&b'[') {
        return None;
    }
    let mut out = Vec::new();
    let mut pos = skip_ws(bytes, open + 1);
    if bytes.get(pos) == Some(&b']') {
        return Some(out);
    }
    while out.len() < max {
        let end = value_end(bytes, pos)?;
        out.push(pos..end);
        pos = skip_ws(bytes, end);
        match bytes.get(pos) {
            Some(b',') => pos = skip_ws(bytes, pos + 1),
            Some(b']') => return Some(out),
            _ => return None,
        }
    }
    Some(out)
}

/// End (exclusive) of the string starting with the `"` at `pos`.
pub(crate) fn string_end(bytes: &[u8], pos: usize) -> Option<usize> {
    if bytes.get(pos) != Some(&b'"') {
        return None;
    }
    let mut i = pos + 1;
    loop {
        match bytes.get(i)? {
            b'"' => return Some(i + 1),
            b'\\' => i += 2,
            _ => i += 1,
        }
    }
}

/// End (exclusive) of the JSON value starting at `pos`.
pub(crate) fn value_end(bytes: &[u8], pos: usize) -> Option<usize> {
    match bytes.get(pos)? {
        b'"' => string_end(bytes, pos),
        b'{' | b'[' => container_end(bytes, pos),
        _ => {
            let mut i = pos;
            while bytes.get(i).copied().is_some_and(is_scalar_byte) {
                i += 1;
            }
            (i > pos).then_some(i)
        }
    }
}

/// End (exclusive) of the object or array opened at `pos`, found with a nesting counter.
fn container_end(bytes: &[u8], pos: usize) -> Option<usize> {
    let mut depth: usize = 0;
    let mut i = pos;
    loop {
        match *bytes.get(i)? {
            b'"' => {
                i = string_end(bytes, i)?;
                continue;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
        i += 1;
    }
}

/// Bytes that may continue a number or literal (`true`, `false`, `null`).
fn is_scalar_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'+' | b'.')
}

/// The member called `key`.
pub(crate) fn member<'a>(members: &'a [Member], key: &str) -> Option<&'a Member> {
    members.iter().find(|m| m.key == key)
}

/// True when the member `key` exists and its value starts with `first` (`b'['`, `b'{'`, …).
pub(crate) fn member_starts_with(bytes: &[u8], members: &[Member], key: &str, first: u8) -> bool {
    member(members, key).is_some_and(|m| bytes.get(m.value.start) == Some(&first))
}

/// True when `needle` occurs in `haystack` (an empty needle never does).
pub(crate) fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    !needle.is_empty() && memchr::memmem::find(haystack, needle).is_some()
}

/// The first `len` bytes of `bytes` (all of them when shorter): the bounded window a detector
/// looks at.
pub(crate) fn prefix(bytes: &[u8], len: usize) -> &[u8] {
    bytes.get(..len).unwrap_or(bytes)
}

/// The raw key of the first member of the object `bytes` open with (after a byte-order mark
/// and whitespace), when it is whole in `bytes`: enough of a document cut short to tell what
/// it begins as.
pub(crate) fn first_key(bytes: &[u8]) -> Option<&[u8]> {
    let open = skip_bom_and_ws(bytes);
    if bytes.get(open) != Some(&b'{') {
        return None;
    }
    let quote = skip_ws(bytes, open + 1);
    (bytes.get(quote) == Some(&b'"')).then_some(())?;
    raw_string(bytes, quote).map(|(key, _)| key)
}

/// True when the first byte after JSON whitespace is `{`. A byte-order mark is *not* skipped:
/// readers that hand the whole input to serde_json (which refuses one) detect with this.
pub(crate) fn opens_object(bytes: &[u8]) -> bool {
    bytes.get(skip_ws(bytes, 0)) == Some(&b'{')
}

/// The raw bytes between the quotes of the string starting at `pos` and the position after its
/// closing quote; escapes are left as written (a key compared against plain names with this
/// never matches when it holds one).
pub(crate) fn raw_string(bytes: &[u8], pos: usize) -> Option<(&[u8], usize)> {
    let end = string_end(bytes, pos)?;
    Some((bytes.get(pos + 1..end - 1)?, end))
}

/// The string value of member `key`, when it is a JSON string.
pub(crate) fn member_str(bytes: &[u8], members: &[Member], key: &str) -> Option<String> {
    let m = member(members, key)?;
    serde_json::from_slice(bytes.get(m.value.clone())?).ok()
}

/// Deserializes `bytes[range]` as `T`, reporting problems at absolute byte offsets and naming
/// `path` (e.g. `nodes`).
pub(crate) fn parse_member<T: serde::de::DeserializeOwned>(
    format: &'static str,
    bytes: &[u8],
    range: Range<usize>,
    path: &str,
) -> Result<T, ReadError> {
    let slice = bytes.get(range.clone()).unwrap_or_default();
    serde_json::from_slice(slice).map_err(|e| serde_error(format, slice, range.start, path, &e))
}

/// A `ReadError` for a serde_json error found while parsing `slice`, which starts at byte
/// `base` of the input: the place is the absolute byte offset, the message names `path`.
pub(crate) fn serde_error(
    format: &'static str,
    slice: &[u8],
    base: usize,
    path: &str,
    e: &serde_json::Error,
) -> ReadError {
    let offset = base.saturating_add(offset_of(slice, e.line(), e.column()));
    let message = json_problem(e);
    let message = if path.is_empty() {
        message
    } else {
        format!("in {path}: {message}")
    };
    ReadError::new(format, Place::Byte(offset as u64), message)
}

/// serde_json's message for `e` without its `at line … column …` (the caller names the
/// place); its recursion limit is told as the nesting limit [`MAX_JSON_DEPTH`].
pub(crate) fn json_problem(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let message = text
        .rsplit_once(" at line ")
        .map_or(text.as_str(), |(m, _)| m);
    if message == "recursion limit exceeded" {
        return format!(
            "arrays and objects nest deeper than {MAX_JSON_DEPTH} levels (the JSON nesting \
             limit, MAX_JSON_DEPTH)"
        );
    }
    message.to_owned()
}

/// [`json_problem`] followed by `at line L column C`, for readers whose place is the whole
/// document.
pub(crate) fn json_problem_at(e: &serde_json::Error) -> String {
    format!(
        "{} at line {} column {}",
        json_problem(e),
        e.line(),
        e.column()
    )
}

/// Byte offset of 1-based `line` and `column` (serde_json's convention) in `slice`.
fn offset_of(slice: &[u8], line: usize, column: usize) -> usize {
    let mut current = 1;
    let mut line_start = 0;
    for (i, &b) in slice.iter().enumerate() {
        if current >= line {
            break;
        }
        if b == b'\n' {
            current += 1;
            line_start = i + 1;
        }
    }
    line_start
        .saturating_add(column.saturating_sub(1))
        .min(slice.len())
}

/// The start of every JSON-object reader: an error for empty input or a document that is not a
/// JSON object, else its top-level members and the reader's warnings, which already name the
/// keys outside `known`.
pub(crate) fn open_object_document(
    format: &'static str,
    bytes: &[u8],
    known: &[&str],
) -> Result<(Vec<Member>, Warnings), ReadError> {
    if bytes.is_empty() {
        return Err(ReadError::whole(format, "the file is empty"));
    }
    let members = document_members(format, bytes)?;
    let mut warnings = Warnings::default();
    unknown_top_keys_warning(format, &members, known, &mut warnings);
    Ok((members, warnings))
}

/// The element ranges of the array that is `member`'s value (named `key` in the error when
/// it is not a well-formed array).
pub(crate) fn member_array(
    format: &'static str,
    bytes: &[u8],
    member: &Member,
    key: &str,
) -> Result<Vec<Range<usize>>, ReadError> {
    array_elements(bytes, member.value.start, usize::MAX).ok_or_else(|| {
        ReadError::new(
            format,
            Place::Byte(member.value.start as u64),
            format!("`{key}` is not a well-formed array"),
        )
    })
}

/// Adds one warning naming the top-level `members` whose keys are not in `known` (they were not
/// kept), or nothing when every key is known.
pub(crate) fn unknown_top_keys_warning(
    format: &'static str,
    members: &[Member],
    known: &[&str],
    warnings: &mut Warnings,
) {
    let unknown: Vec<&str> = members
        .iter()
        .map(|m| m.key.as_str())
        .filter(|k| !known.contains(k))
        .collect();
    if !unknown.is_empty() {
        warnings.push(Warning::new(
            format,
            format!("top-level keys not kept: {}", unknown.join(", ")),
            1,
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_and_spans() {
        let doc = br#" {"a": [1, {"x": "]"}], "b":"s\"", "c": 12.5e3, "d": null}"#;
        let m = top_level_members(doc).unwrap();
        let keys: Vec<&str> = m.iter().map(|m| m.key.as_str()).collect();
        assert_eq!(keys, ["a", "b", "c", "d"]);
        assert_eq!(&doc[m[0].value.clone()], br#"[1, {"x": "]"}]"#);
        assert_eq!(&doc[m[1].value.clone()], br#""s\"""#);
        assert_eq!(&doc[m[2].value.clone()], b"12.5e3");
        assert_eq!(&doc[m[3].value.clone()], b"null");
    }

    #[test]
    fn rejects_non_objects_and_truncation() {
        assert!(top_level_members(b"[1,2]").is_none());
        assert!(top_level_members(br#"{"a": [1, 2"#).is_none());
        assert!(top_level_members(br#"{"a" 1}"#).is_none());
        assert_eq!(top_level_members(b"{}").unwrap(), vec![]);
    }

    #[test]
    fn array_elements_spans() {
        let doc = br#"[{"a":1}, 2 ,"x"]"#;
        let e = array_elements(doc, 0, 10).unwrap();
        assert_eq!(e.len(), 3);
        assert_eq!(&doc[e[1].clone()], b"2");
    }

    #[test]
    fn error_offsets_are_absolute() {
        let doc = b"{\"n\":\n [1, x]}";
        let m = top_level_members(doc);
        assert!(m.is_some());
        let m = m.unwrap();
        let err = parse_member::<Vec<i64>>("t", doc, m[0].value.clone(), "n").unwrap_err();
        assert_eq!(err.place, Place::Byte(11));
        assert!(err.message.starts_with("in n: "), "{}", err.message);
    }

    #[test]
    fn sniffing_helpers() {
        assert!(contains(b"ab\"meta\"cd", b"\"meta\""));
        assert!(!contains(b"abc", b""));
        assert_eq!(prefix(b"abcdef", 3), b"abc");
        assert_eq!(prefix(b"ab", 3), b"ab");
        assert!(opens_object(b" \n{\"a\":1}"));
        assert!(!opens_object(b"\xEF\xBB\xBF{}"));
        assert!(!opens_object(b""));
        let doc = br#""a\"b" :"#;
        assert_eq!(raw_string(doc, 0), Some((&br#"a\"b"#[..], 6)));
        assert_eq!(raw_string(b"\"open", 0), None);
    }
}
