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
