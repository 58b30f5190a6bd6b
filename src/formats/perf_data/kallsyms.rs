//! `/proc/kallsyms` texts, the kernel's symbols for the `[kernel.kallsyms]` frames of a
//! perf.data: one `ADDRESS TYPE NAME` line per symbol, `\t[MODULE]` after the symbols of
//! modules, the address in hex zero-padded to the pointer width (16 digits on 64-bit). Told
//! apart from profiles by content ([`is_kallsyms`]). A kallsyms text has no build-id: it is
//! checked against the recording by the address of `_text`, which the kernel's MMAP record
//! gives as its page offset, and by the length of the kernel's code (`_etext - _text`, the
//! MMAP's length since perf 5.x): a text of another boot (another KASLR offset) or of another
//! kernel build is refused, with the reason. No I/O: builds for wasm32.

/// How many leading lines [`is_kallsyms`] requires to be kallsyms lines.
const SNIFF_LINES: usize = 4;
/// How many leading bytes [`is_kallsyms`] looks at.
const SNIFF_BYTES: usize = 4096;

/// The symbol whose address the kernel's MMAP record gives as its page offset (perf's
/// reference relocation symbol), and the older kernels' alternative.
const REF_SYMBOLS: [&str; 2] = ["_text", "_stext"];

/// One `ADDRESS TYPE NAME [MODULE]` line: the address, the type letter and the name; `None`
/// when the line is not one. The address must have 8 or 16 hex digits, as the kernel prints it.
fn parse_line(line: &str) -> Option<(u64, char, &str)> {
    let mut words = line.split_whitespace();
    let address = words.next().filter(|a| a.len() == 8 || a.len() == 16)?;
    let address = u64::from_str_radix(address, 16).ok()?;
    let mut kind = words.next()?.chars();
    let letter = kind
        .next()
        .filter(|c| c.is_ascii_alphabetic() && kind.next().is_none())?;
    let name = words.next()?;
    match (words.next(), words.next()) {
        (None, _) => {}
        (Some(m), None) if m.starts_with('[') && m.ends_with(']') => {}
        _ => return None,
    }
    Some((address, letter, name))
}

/// Whether `bytes` start as a `/proc/kallsyms` text: their first lines (up to
/// [`SNIFF_LINES`], every complete line within the first 4 KiB) are all `ADDRESS TYPE NAME
/// [MODULE]` lines. No profile format starts so.
pub fn is_kallsyms(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(SNIFF_BYTES)];
    let text = match std::str::from_utf8(head) {
        Ok(t) => t,
        Err(e) => std::str::from_utf8(&head[..e.valid_up_to()]).unwrap_or_default(),
    };
    // Past the sniffed bytes, the last line may be cut: only complete lines count.
    let whole = bytes.len() <= SNIFF_BYTES;
    let complete = match text.rfind('\n') {
        Some(end) if !whole => &text[..end],
        _ if whole => text,
        _ => return false,
    };
    let mut lines = complete.lines().take(SNIFF_LINES).peekable();
    lines.peek().is_some() && lines.all(|l| parse_line(l).is_some())
}

/// The symbols of a kallsyms text as the symboliser takes them, and what the text showed.
#[derive(Debug, Default)]
pub struct KernelSymbols {
    /// `(address, name)` of the code symbols (types `T t W w`) with an address.
    pub symbols: Vec<(u64, String)>,
    /// The address of `_text` (else `_stext`), when listed with one.
    pub text_start: Option<u64>,
    /// The address of `_etext`, when listed with one.
    pub text_end: Option<u64>,
    /// Lines that are not `ADDRESS TYPE NAME [MODULE]` (skipped), and the first's number.
    pub bad_lines: usize,
    pub first_bad_line: usize,
    /// Lines listed with address 0 (every line, when read without the right to see addresses).
    pub zero_lines: usize,
    /// Lines read.
    pub lines: usize,
}

impl KernelSymbols {
    /// Reads a kallsyms text; lines that are not kallsyms lines are counted, not kept.
    pub fn parse(text: &str) -> KernelSymbols {
        let mut out = KernelSymbols::default();
        let mut refs: [Option<u64>; 2] = [None, None];
        for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.is_empty()) {
            out.lines += 1;
            let Some((address, letter, name)) = parse_line(line) else {
                out.bad_lines += 1;
                if out.first_bad_line == 0 {
                    out.first_bad_line = i + 1;
                }
                continue;
            };
            if address == 0 {
                out.zero_lines += 1;
                continue;
            }
            if let Some(k) = REF_SYMBOLS.iter().position(|r| *r == name) {
                refs[k].get_or_insert(address);
            }
            if name == "_etext" {
                out.text_end.get_or_insert(address);
            }
            if matches!(letter, 'T' | 't' | 'W' | 'w') {
                out.symbols.push((address, name.to_owned()));
            }
        }
        out.text_start = refs[0].or(refs[1]);
        out
    }

    /// Why these symbols cannot name the frames of a kernel whose MMAP gave `recorded`, (page
    /// offset, length): the address of `_text` at the recording and the length of its code.
    /// Every address hidden, none at all, `_text` elsewhere (another boot or kernel) or code of
    /// another length (another kernel build). `None` when they can.
    pub fn refusal(&self, recorded: Option<(u64, u64)>) -> Option<String> {
        if self.lines > 0 && self.zero_lines == self.lines {
            return Some(
                "every address in the kallsyms text is 0: it was read without the right to \
                 see kernel addresses (kernel.kptr_restrict); read /proc/kallsyms as root"
                    .into(),
            );
        }
        if self.symbols.is_empty() {
            return Some("the kallsyms text lists no code symbols".into());
        }
        let (start, len) = recorded?;
        let here = self.text_start?;
        if here != start {
            return Some(format!(
                "the kallsyms text is of another boot or kernel: its _text is at {here:#x}, \
                 the recording's at {start:#x}"
            ));
        }
        let code = self.text_end?.checked_sub(here)?;
        // An older perf maps the kernel to the end of the address space: nothing to compare.
        let comparable = len > 0 && start.checked_add(len).is_some_and(|e| e < u64::MAX);
        (comparable && code != len).then(|| {
            format!(
                "the kallsyms text is of another kernel build: its code (_text to _etext) is \
                 {code:#x} bytes, the recording's kernel {len:#x}"
            )
        })
    }

    /// The skipped lines as a message (`None` when every line was a kallsyms line).
    pub fn bad_lines_message(&self) -> Option<String> {
        (self.bad_lines > 0).then(|| {
            format!(
                "kallsyms line {}: expected `ADDRESS TYPE NAME [MODULE]`; {} such line{} skipped",
                self.first_bad_line,
                self.bad_lines,
                if self.bad_lines == 1 { "" } else { "s" }
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "ffffffff81000000 T _stext\nffffffff81000000 T _text\n\
                        ffffffff81000100 t helper\nffffffff81000200 D some_data\n\
                        ffffffffc0201000 t ftrace_trampoline\t[__builtin__ftrace]\n";

    #[test]
    fn detection_by_content() {
        assert!(is_kallsyms(TEXT.as_bytes()));
        assert!(is_kallsyms(b"c1000000 T _text\n"));
        let long = TEXT.repeat(200);
        assert!(is_kallsyms(long.as_bytes()));
        for no in [
            &b""[..],
            b"\x7fELF",
            b"main;f;g 10\n",
            b"ffffffff81000000 T\n",
            b"ffffffff8100 T _text\n",
            b"ffffffff81000000 T _text extra words\n",
            b"ffffffff81000000 T _text\nnot a line\n",
            b"PERFILE2",
        ] {
            assert!(!is_kallsyms(no), "{:?}", String::from_utf8_lossy(no));
        }
        // A first line longer than the sniffed bytes cannot be told.
        let cut = format!("ffffffff81000000 T {}\n", "x".repeat(SNIFF_BYTES));
        assert!(!is_kallsyms(cut.as_bytes()));
    }

    #[test]
    fn parse_keeps_code_symbols_and_the_text_start() {
        let k = KernelSymbols::parse(&format!("{TEXT}garbage line\n\n"));
        let names: Vec<&str> = k.symbols.iter().map(|s| s.1.as_str()).collect();
        assert_eq!(names, ["_stext", "_text", "helper", "ftrace_trampoline"]);
        assert_eq!(k.text_start, Some(0xffff_ffff_8100_0000));
        assert_eq!((k.lines, k.bad_lines, k.first_bad_line), (6, 1, 6));
        assert_eq!(
            k.bad_lines_message().unwrap(),
            "kallsyms line 6: expected `ADDRESS TYPE NAME [MODULE]`; 1 such line skipped"
        );
        let start = 0xffff_ffff_8100_0000;
        assert_eq!(k.refusal(Some((start, 0x1000))), None);
        assert_eq!(k.refusal(None), None);
        let other = k.refusal(Some((0xffff_ffff_9a00_0000, 0x1000))).unwrap();
        assert!(other.contains("another boot or kernel"), "{other}");
        let with_end = KernelSymbols::parse(&format!("{TEXT}ffffffff82209988 T _etext\n"));
        assert_eq!(with_end.refusal(Some((start, 0x120_9988))), None);
        assert_eq!(with_end.refusal(Some((start, u64::MAX - start))), None);
        let build = with_end.refusal(Some((start, 0x120_bb08))).unwrap();
        assert!(build.contains("another kernel build"), "{build}");
    }

    #[test]
    fn hidden_addresses_are_refused_with_the_reason() {
        let hidden = "0000000000000000 T _text\n0000000000000000 t helper\n";
        assert!(is_kallsyms(hidden.as_bytes()));
        let k = KernelSymbols::parse(hidden);
        assert!(k.refusal(Some((1, 1))).unwrap().contains("kptr_restrict"));
        let data_only = KernelSymbols::parse("ffffffff81000200 D some_data\n");
        assert!(data_only.refusal(None).unwrap().contains("no code symbols"));
    }
}
