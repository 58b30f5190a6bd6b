//! Helpers shared by the readers: the sample cap and the final build into [`Parsed`].

use std::borrow::Cow;

use super::error::{ReadError, Warnings};
use super::{Format, Parsed};
use crate::model::ProfileBuilder;

/// An error when the builder already holds `max_samples` samples, so one more would pass the
/// sample limit; `Ok` otherwise.
pub(crate) fn check_sample_limit(
    builder: &ProfileBuilder,
    format: Format,
    max_samples: usize,
) -> Result<(), ReadError> {
    if builder.num_samples() >= max_samples {
        return Err(ReadError::whole(
            format.name(),
            format!("more than {max_samples} samples (the sample limit)"),
        ));
    }
    Ok(())
}

/// Builds the profile (checking its invariants) and wraps it with the reader's warnings. A broken
/// invariant here is a bug of the reader, and the message says so.
pub(crate) fn finish_parsed(
    builder: ProfileBuilder,
    format: Format,
    warnings: Warnings,
) -> Result<Parsed, ReadError> {
    let profile = builder
        .build()
        .map_err(|e| ReadError::whole(format.name(), format!("internal error: {e}")))?;
    Ok(Parsed {
        format,
        profile,
        warnings: warnings.into_vec(),
    })
}

/// The text of a text format's input: invalid UTF-8 is replaced by U+FFFD, with one warning
/// of kind `utf8` naming `format`.
pub(crate) fn decode_lossy<'a>(
    bytes: &'a [u8],
    format: &'static str,
    warnings: &mut Warnings,
) -> Cow<'a, str> {
    let text = String::from_utf8_lossy(bytes);
    if matches!(text, Cow::Owned(_)) {
        warnings.add(format, "utf8", || {
            "the text is not valid UTF-8; invalid bytes were replaced with U+FFFD".to_owned()
        });
    }
    text
}

/// The first `limit` bytes of `bytes` as text for a text format's detector; `None` when they
/// hold a NUL byte (binary data is never a text format).
pub(crate) fn detect_prefix_text(bytes: &[u8], limit: usize) -> Option<Cow<'_, str>> {
    let head = bytes.get(..limit).unwrap_or(bytes);
    (!head.contains(&0)).then(|| String::from_utf8_lossy(head))
}

/// The text of a line-oriented input (UTF-8, BOM skipped, or UTF-16 with a BOM) and the
/// reader's warnings, holding one when invalid sequences had to be replaced; an error for an
/// empty input.
pub(crate) fn text_input<'b>(
    bytes: &'b [u8],
    format: &'static str,
) -> Result<(Cow<'b, str>, Warnings), ReadError> {
    if bytes.is_empty() {
        return Err(ReadError::whole(format, "the file is empty"));
    }
    let (text, lossy) = decode_text(bytes);
    let mut warnings = Warnings::default();
    if lossy {
        warnings.add(format, "lossy", || {
            "the text is not valid UTF-8 (or UTF-16); invalid sequences were replaced by U+FFFD"
                .to_owned()
        });
    }
    Ok((text, warnings))
}

/// `s` cut to 80 characters (with `…`), for quoting input in messages.
pub(crate) fn shorten(s: &str) -> String {
    const MAX: usize = 80;
    if s.chars().count() <= MAX {
        s.to_owned()
    } else {
        format!("{}…", s.chars().take(MAX).collect::<String>())
    }
}

/// The longest valid UTF-8 text at the start of the first `len` bytes: what a text detector
/// examines (a multi-byte character cut by the bound is left out).
pub(crate) fn text_prefix(bytes: &[u8], len: usize) -> &str {
    let head = &bytes[..bytes.len().min(len)];
    match std::str::from_utf8(head) {
        Ok(t) => t,
        Err(e) => std::str::from_utf8(&head[..e.valid_up_to()]).unwrap_or_default(),
    }
}

/// The lines of the valid UTF-8 prefix of at most `len` bytes of `bytes` ([`text_prefix`]),
/// numbered from 1, without a trailing `\r`: what a line-grammar detector walks.
pub(crate) fn numbered_prefix_lines(
    bytes: &[u8],
    len: usize,
) -> impl Iterator<Item = (usize, &str)> {
    text_prefix(bytes, len)
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim_end_matches('\r')))
}

/// Decodes text: UTF-16 LE/BE when a BOM says so, else UTF-8 (BOM skipped). The flag is true
/// when invalid sequences were replaced.
pub(crate) fn decode_text(bytes: &[u8]) -> (Cow<'_, str>, bool) {
    if let Some(rest) = bytes.strip_prefix(b"\xFF\xFE") {
        return decode_utf16(rest, u16::from_le_bytes);
    }
    if let Some(rest) = bytes.strip_prefix(b"\xFE\xFF") {
        return decode_utf16(rest, u16::from_be_bytes);
    }
    let rest = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let text = String::from_utf8_lossy(rest);
    let lossy = matches!(text, Cow::Owned(_));
    (text, lossy)
}

fn decode_utf16(bytes: &[u8], unit: fn([u8; 2]) -> u16) -> (Cow<'static, str>, bool) {
    let units = bytes
        .chunks_exact(2)
        .map(|c| unit(<[u8; 2]>::try_from(c).unwrap_or([0, 0])));
    let mut lossy = bytes.len() % 2 != 0;
    let text: String = char::decode_utf16(units)
        .map(|r| {
            r.unwrap_or_else(|_| {
                lossy = true;
                char::REPLACEMENT_CHARACTER
            })
        })
        .collect();
    (Cow::Owned(text), lossy)
}
