//! A bounded decoder of Python's `marshal` format for the objects a pstats file holds: dicts,
//! tuples, ints, longs, floats and strings, with the back-references of marshal v3/v4
//! (`FLAG_REF` and `r`) and Python 2's interned strings (`t`, referenced by `R`). Any other
//! type code is an error naming it and its byte offset.
//!
//! Bounds: nesting deeper than [`MAX_NESTING`] is refused; a count is checked against the bytes
//! left before anything is allocated (every element takes at least one byte), and references
//! share the object they point to, so the decoded value never outgrows the input.

use std::rc::Rc;

use super::NAME;
use crate::formats::error::{Place, ReadError};

/// Deepest nesting of containers accepted. A pstats file nests four deep (stats dict, value
/// tuple, callers dict, caller tuple); Python itself stops at 2000.
pub const MAX_NESTING: usize = 32;

/// `FLAG_REF`: the object is remembered for later `r` references (marshal v3+).
const FLAG_REF: u8 = 0x80;

/// A decoded object.
#[derive(Clone, Debug)]
pub enum Obj {
    /// `None`.
    None,
    /// `True` / `False`.
    Bool(bool),
    /// `int` (`i`, `I`, or a `long` that fits).
    Int(i64),
    /// `float`, or a `long` too large for `i64` (approximate).
    Float(f64),
    /// `str`, `unicode` or `bytes` (decoded as UTF-8, invalid sequences replaced).
    Str(Rc<str>),
    /// `tuple` or `list`.
    Tuple(Rc<[Obj]>),
    /// `dict`, its pairs in file order.
    Dict(Rc<[(Obj, Obj)]>),
}

impl Obj {
    /// The value of a number as `f64`.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Obj::Int(i) => Some(*i as f64),
            Obj::Float(f) => Some(*f),
            Obj::Bool(b) => Some(f64::from(u8::from(*b))),
            _ => None,
        }
    }

    /// What kind of object this is, for messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Obj::None => "None",
            Obj::Bool(_) => "a bool",
            Obj::Int(_) => "an int",
            Obj::Float(_) => "a float",
            Obj::Str(_) => "a string",
            Obj::Tuple(_) => "a tuple",
            Obj::Dict(_) => "a dict",
        }
    }
}

/// A decoded value and the number of bytes it took.
#[derive(Debug)]
pub struct Loaded {
    /// The object.
    pub obj: Obj,
    /// Bytes read; what follows was not looked at (as `marshal.load`).
    pub used: usize,
}

/// Decodes the one object at the start of `bytes`.
pub fn load(bytes: &[u8]) -> Result<Loaded, ReadError> {
    let mut d = Decoder::new(bytes);
    let obj = d.object(0)?;
    Ok(Loaded { obj, used: d.pos })
}

/// A read position in marshal data, with the reference tables.
pub struct Decoder<'a> {
    bytes: &'a [u8],
    /// Next byte to read.
    pub pos: usize,
    /// Objects stored with `FLAG_REF`, `None` while a container is still being read.
    refs: Vec<Option<Obj>>,
    /// Python 2's interned strings (`t`), for `R`.
    interned: Vec<Rc<str>>,
}

impl<'a> Decoder<'a> {
    /// A decoder at the start of `bytes`.
    pub fn new(bytes: &'a [u8]) -> Self {
        Decoder {
            bytes,
            pos: 0,
            refs: Vec::new(),
            interned: Vec::new(),
        }
    }

    fn error(&self, at: usize, message: impl Into<String>) -> ReadError {
        ReadError::new(NAME, Place::Byte(at as u64), message)
    }

    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], ReadError> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.bytes.len());
        let Some(end) = end else {
            return Err(self.error(
                self.pos,
                format!("the data ends inside {what} ({n} bytes needed)"),
            ));
        };
        let out = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(out)
    }

    /// Reads a container's type code if it is one of `accept`, reserving its reference slot
    /// as [`Self::object`] does before reading the items (for a detector that reads a
    /// container's head only).
    fn open(&mut self, accept: &[u8]) -> Option<u8> {
        let code = self.byte("a container").ok()?;
        let ty = code & !FLAG_REF;
        if !accept.contains(&ty) {
            return None;
        }
        if code & FLAG_REF != 0 {
            self.refs.push(None);
        }
        Some(ty)
    }

    /// Opens a dict (see [`Self::open`]); false when the next object is not one.
    pub fn open_dict(&mut self) -> bool {
        self.open(b"{").is_some()
    }

    /// Opens a tuple (see [`Self::open`]) and returns its length; `None` when the next object
    /// is not a tuple.
    pub fn open_tuple(&mut self) -> Option<usize> {
        match self.open(b"()")? {
            b')' => self.byte("a small tuple's length").ok().map(usize::from),
            _ => self.count("a tuple's length", 1).ok(),
        }
    }

    /// The next byte.
    pub fn byte(&mut self, what: &str) -> Result<u8, ReadError> {
        Ok(self.take(1, what)?[0])
    }

    fn i32(&mut self, what: &str) -> Result<i32, ReadError> {
        let b = self.take(4, what)?;
        Ok(i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// A length or count that must fit in the bytes left, each element taking at least
    /// `min_size` bytes.
    fn count(&mut self, what: &str, min_size: usize) -> Result<usize, ReadError> {
        let at = self.pos;
        let n = self.i32(what)?;
        let left = self.bytes.len() - self.pos;
        match usize::try_from(n) {
            Ok(n) if n.saturating_mul(min_size) <= left => Ok(n),
            _ => Err(self.error(
                at,
                format!("{what} of {n} does not fit in the {left} bytes left"),
            )),
        }
    }

    /// Reads one object; `depth` is the number of containers around it.
    pub fn object(&mut self, depth: usize) -> Result<Obj, ReadError> {
        let at = self.pos;
        let code = self.byte("an object")?;
        let flag = code & FLAG_REF != 0;
        let ty = code & !FLAG_REF;
        if matches!(ty, b'(' | b')' | b'[' | b'{') {
            if depth >= MAX_NESTING {
                return Err(self.error(
                    at,
                    format!("containers nest deeper than {MAX_NESTING} levels"),
                ));
            }
            let slot = flag.then(|| {
                self.refs.push(None);
                self.refs.len() - 1
            });
            let obj = self.container(ty, depth + 1)?;
            if let Some(i) = slot {
                self.refs[i] = Some(obj.clone());
            }
            return Ok(obj);
        }
        let obj = match ty {
            b'r' => return self.reference(at),
            b'R' => return self.string_reference(at),
            _ => self.scalar(ty, at)?,
        };
        if flag {
            self.refs.push(Some(obj.clone()));
        }
        Ok(obj)
    }

    fn container(&mut self, ty: u8, depth: usize) -> Result<Obj, ReadError> {
        let n = match ty {
            b')' => usize::from(self.byte("a small tuple's length")?),
            b'{' => return self.dict(depth),
            _ => self.count("a tuple's length", 1)?,
        };
        let mut items = Vec::with_capacity(n);
        for _ in 0..n {
            items.push(self.object(depth)?);
        }
        Ok(Obj::Tuple(items.into()))
    }

    fn dict(&mut self, depth: usize) -> Result<Obj, ReadError> {
        let mut pairs = Vec::new();
        loop {
            if self.bytes.get(self.pos) == Some(&b'0') {
                self.pos += 1;
                return Ok(Obj::Dict(pairs.into()));
            }
            let key = self.object(depth)?;
            let value = self.object(depth)?;
            pairs.push((key, value));
        }
    }

    fn reference(&mut self, at: usize) -> Result<Obj, ReadError> {
        let n = self.i32("a reference")?;
        match usize::try_from(n).ok().and_then(|i| self.refs.get(i)) {
            Some(Some(obj)) => Ok(obj.clone()),
            Some(None) => Err(self.error(
                at,
                format!("reference {n} points to a container still being read"),
            )),
            None => Err(self.error(
                at,
                format!(
                    "reference {n} to an object not stored (only {} are)",
                    self.refs.len()
                ),
            )),
        }
    }

    fn string_reference(&mut self, at: usize) -> Result<Obj, ReadError> {
        let n = self.i32("a string reference")?;
        match usize::try_from(n).ok().and_then(|i| self.interned.get(i)) {
            Some(s) => Ok(Obj::Str(s.clone())),
            None => Err(self.error(
                at,
                format!(
                    "string reference {n} to an interned string not read (only {} are)",
                    self.interned.len()
                ),
            )),
        }
    }

    fn scalar(&mut self, ty: u8, at: usize) -> Result<Obj, ReadError> {
        Ok(match ty {
            b'N' => Obj::None,
            b'T' => Obj::Bool(true),
            b'F' => Obj::Bool(false),
            b'i' => Obj::Int(i64::from(self.i32("an int")?)),
            b'I' => {
                let b = self.take(8, "a 64-bit int")?;
                let mut a = [0u8; 8];
                a.copy_from_slice(b);
                Obj::Int(i64::from_le_bytes(a))
            }
            b'l' => self.long()?,
            b'g' => {
                let b = self.take(8, "a binary float")?;
                let mut a = [0u8; 8];
                a.copy_from_slice(b);
                Obj::Float(f64::from_le_bytes(a))
            }
            b'f' => self.text_float(at)?,
            b's' | b'u' | b'a' | b'A' => {
                let n = self.count("a string's length", 1)?;
                self.string(n)?
            }
            b't' => {
                let n = self.count("a string's length", 1)?;
                let s = self.string(n)?;
                if let Obj::Str(text) = &s {
                    self.interned.push(text.clone());
                }
                s
            }
            b'z' | b'Z' => {
                let n = usize::from(self.byte("a short string's length")?);
                self.string(n)?
            }
            other => {
                return Err(self.error(
                    at,
                    format!(
                        "marshal type code {} ({}) is not part of a pstats file",
                        printable(other),
                        type_name(other)
                    ),
                ))
            }
        })
    }

    fn string(&mut self, n: usize) -> Result<Obj, ReadError> {
        let b = self.take(n, "a string")?;
        Ok(Obj::Str(String::from_utf8_lossy(b).into()))
    }

    /// `l`: a signed count of 15-bit digits, least significant first.
    fn long(&mut self) -> Result<Obj, ReadError> {
        let at = self.pos;
        let n = self.i32("a long's size")?;
        let digits = n.unsigned_abs() as usize;
        if digits.saturating_mul(2) > self.bytes.len() - self.pos {
            return Err(self.error(at, format!("a long of {digits} digits is cut off")));
        }
        let mut exact: Option<i128> = Some(0);
        let mut approx = 0.0f64;
        for i in 0..digits {
            let b = self.take(2, "a long's digit")?;
            let d = u16::from_le_bytes([b[0], b[1]]);
            if d >= 1 << 15 {
                return Err(self.error(self.pos - 2, format!("long digit {d} is not below 2^15")));
            }
            approx += f64::from(d) * 2f64.powi(15 * i as i32);
            exact = exact
                .and_then(|e| (i < 8).then(|| e | (i128::from(d) << (15 * i))))
                .filter(|&e| e <= i128::from(i64::MAX));
        }
        let sign: i64 = if n < 0 { -1 } else { 1 };
        Ok(match exact.and_then(|e| i64::try_from(e).ok()) {
            Some(e) => Obj::Int(sign * e),
            None => Obj::Float(sign as f64 * approx),
        })
    }

    /// `f`: a float as one length byte and its decimal text.
    fn text_float(&mut self, at: usize) -> Result<Obj, ReadError> {
        let n = usize::from(self.byte("a float's length")?);
        let b = self.take(n, "a float")?;
        let text = String::from_utf8_lossy(b);
        let v = match text.trim() {
            "inf" => Some(f64::INFINITY),
            "-inf" => Some(f64::NEG_INFINITY),
            "nan" | "-nan" => Some(f64::NAN),
            t => t.parse::<f64>().ok(),
        };
        v.map(Obj::Float)
            .ok_or_else(|| self.error(at, format!("float text {text:?} is not a number")))
    }
}

fn printable(code: u8) -> String {
    if code.is_ascii_graphic() {
        format!("'{}'", code as char)
    } else {
        format!("0x{code:02x}")
    }
}

/// The Python name of a type code pstats files never hold, for the error message.
fn type_name(code: u8) -> &'static str {
    match code {
        b'0' => "NULL outside a dict",
        b'S' => "StopIteration",
        b'.' => "Ellipsis",
        b'x' | b'y' => "complex",
        b'<' => "set",
        b'>' => "frozenset",
        b'c' => "code object; `python -m profile` writes one as the key of the script it runs",
        b'?' => "unknown",
        _ => "not a marshal type",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load_ok(bytes: &[u8]) -> Obj {
        load(bytes).unwrap().obj
    }

    #[test]
    fn scalars_and_containers() {
        assert!(matches!(load_ok(b"i\x05\x00\x00\x00"), Obj::Int(5)));
        assert!(matches!(
            load_ok(b"l\xfe\xff\xff\xff\x01\x00\x01\x00"),
            Obj::Int(-32769)
        ));
        let Obj::Tuple(t) = load_ok(b")\x02z\x01a\xe9\x07\x00\x00\x00r\x00\x00\x00\x00") else {
            panic!()
        };
        assert!(matches!(t[1], Obj::Int(7)));
        let Obj::Dict(d) = load_ok(b"{z\x01kt\x01\x00\x00\x00vz\x01jR\x00\x00\x00\x000") else {
            panic!()
        };
        assert!(matches!(&d[0].1, Obj::Str(s) if &**s == "v"));
        assert!(matches!(&d[1].1, Obj::Str(s) if &**s == "v"));
        assert!(matches!(d[0].0, Obj::Str(_)));
    }

    #[test]
    fn errors_name_the_offset() {
        let e = load(b")\x01c").unwrap_err();
        assert_eq!(e.place, Place::Byte(2));
        assert!(e.message.contains("code object"), "{}", e.message);
        let e = load(b"\xa8\x01\x00\x00\x00r\x00\x00\x00\x00").unwrap_err();
        assert!(e.message.contains("still being read"), "{}", e.message);
        let e = load(b"(\xff\xff\xff\x7f").unwrap_err();
        assert!(e.message.contains("does not fit"), "{}", e.message);
        let deep = b")\x01".repeat(40);
        assert!(load(&deep).unwrap_err().message.contains("nest deeper"));
    }
}
