//! Helpers shared by the readers: the sample cap and the final build into [`Parsed`].

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

/// Builds the profile (checking its invariants) and wraps it with the reader's warnings.
pub(crate) fn finish_parsed(
    builder: ProfileBuilder,
    format: Format,
    warnings: Warnings,
) -> Result<Parsed, ReadError> {
    let profile = builder
        .build()
        .map_err(|e| ReadError::whole(format.name(), e.to_string()))?;
    Ok(Parsed {
        format,
        profile,
        warnings: warnings.into_vec(),
    })
}

/// The text of a text format's input (UTF-8 or UTF-16 with a BOM, as
/// [`super::collapsed::decode_text`] decodes it) and the reader's warnings, holding one that
/// says so when invalid sequences were replaced; an error for empty input.
pub(crate) fn text_input<'b>(
    format: &'static str,
    bytes: &'b [u8],
) -> Result<(std::borrow::Cow<'b, str>, Warnings), ReadError> {
    if bytes.is_empty() {
        return Err(ReadError::whole(format, "the file is empty"));
    }
    let (text, lossy) = super::collapsed::decode_text(bytes);
    let mut warnings = Warnings::default();
    if lossy {
        warnings.add(format, "lossy", || {
            "the text is not valid UTF-8; invalid sequences were replaced by U+FFFD".to_owned()
        });
    }
    Ok((text, warnings))
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
