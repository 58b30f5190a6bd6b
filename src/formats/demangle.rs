//! Demangling of native symbol names, shared by the readers and symbolisers that meet them:
//! Rust (legacy `_ZN…E` and v0 `_R…`, by `rustc-demangle`, without the hash suffix) and C++
//! (Itanium `_Z…`, by `cpp_demangle`, as `perf report` and `c++filt` print them). Pure, no I/O.

/// Longest mangled name demangled (longer names are kept as they are: the demanglers recurse).
const MAX_MANGLED_LEN: usize = 4096;

/// The human name of a mangled symbol; `None` when `name` is not mangled (C names) or does not
/// demangle.
pub fn demangle(name: &str) -> Option<String> {
    if name.len() > MAX_MANGLED_LEN {
        return None;
    }
    if let Ok(d) = rustc_demangle::try_demangle(name) {
        return Some(format!("{d:#}"));
    }
    if !name.starts_with("_Z") {
        return None;
    }
    let symbol = cpp_demangle::Symbol::new(name).ok()?;
    symbol
        .demangle_with_options(&cpp_demangle::DemangleOptions::default())
        .ok()
}

/// The human name of `name`: demangled when mangled, else `name` itself.
pub fn demangled_or_same(name: &str) -> String {
    demangle(name).unwrap_or_else(|| name.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rust_cpp_and_c_names() {
        assert_eq!(
            demangle("_ZN4core3fmt5write17h0123456789abcdefE").as_deref(),
            Some("core::fmt::write")
        );
        assert_eq!(demangle("_ZN2ns1fEi").as_deref(), Some("ns::f(int)"));
        assert_eq!(demangle("main"), None);
        assert_eq!(demangled_or_same("leaf_spin"), "leaf_spin");
        assert_eq!(demangle("_Znotvalid"), None);
    }
}
