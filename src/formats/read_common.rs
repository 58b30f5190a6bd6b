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

/// The text of a line-oriented input (UTF-8, BOM skipped, or UTF-16 with a BOM) and the
/// reader's warnings, holding one when invalid sequences had to be replaced; an error for an
/// empty input.
pub(crate) fn text_input<'b>(
    bytes: &'b [u8],
    format: &'static str,
) -> Result<(std::borrow::Cow<'b, str>, Warnings), ReadError> {
    if bytes.is_empty() {
        return Err(ReadError::whole(format, "the file is empty"));
    }
    let (text, lossy) = super::collapsed::decode_text(bytes);
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
