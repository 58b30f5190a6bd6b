//! The metadata event of a chunk: its string table and element tree (`root` › `metadata` ›
//! `class` › `field`), turned into the type table that drives value decoding.

use super::bytes::{Bytes, JfrString};
use crate::formats::error::ReadError;
use crate::hash::HashMap;

/// Deepest element nesting read (JDK writes four levels: root, metadata, class, field or
/// annotation).
const MAX_ELEMENT_DEPTH: usize = 16;

/// How a type's values are encoded when it is not an object of fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Primitive {
    Boolean,
    Byte,
    Char,
    Short,
    Int,
    Long,
    Float,
    Double,
    String,
}

impl Primitive {
    fn of(name: &str) -> Option<Self> {
        Some(match name {
            "boolean" => Primitive::Boolean,
            "byte" => Primitive::Byte,
            "char" => Primitive::Char,
            "short" => Primitive::Short,
            "int" => Primitive::Int,
            "long" => Primitive::Long,
            "float" => Primitive::Float,
            "double" => Primitive::Double,
            "java.lang.String" => Primitive::String,
            _ => return None,
        })
    }
}

/// A field of a class.
#[derive(Clone, Debug)]
pub struct Field {
    pub name: String,
    /// Type id of the field's values.
    pub class: i64,
    /// The value is an index into the constant pool of `class`.
    pub pool: bool,
    /// The value is an array (dimension 1).
    pub array: bool,
}

/// A class of the metadata: an event type, a pooled type or a primitive.
#[derive(Clone, Debug)]
pub struct Class {
    pub name: String,
    pub primitive: Option<Primitive>,
    pub fields: Vec<Field>,
}

impl Class {
    /// Index of the field called `name`.
    pub fn field(&self, name: &str) -> Option<usize> {
        self.fields.iter().position(|f| f.name == name)
    }
}

/// The types of one chunk, by id.
pub type Types = HashMap<i64, Class>;

/// An element of the metadata tree, its name and attributes as string-table indices.
struct Element {
    name: usize,
    attrs: Vec<(usize, usize)>,
    children: Vec<Element>,
}

/// Reads the metadata event whose body (after size and type id) starts at the cursor.
pub fn read_metadata(b: &mut Bytes) -> Result<Types, ReadError> {
    b.long()?; // start time
    b.long()?; // duration
    b.long()?; // metadata id
    let n = b.count(1)?;
    let mut strings = Vec::with_capacity(n);
    for _ in 0..n {
        strings.push(match b.string()? {
            JfrString::Text(s) => s,
            JfrString::Null => String::new(),
            JfrString::Pool(_) => {
                return Err(b.error("a metadata string refers to a constant pool"));
            }
        });
    }
    let root = element(b, &strings, 0)?;
    let text = |i: usize| strings.get(i).map(String::as_str);
    let mut types = Types::default();
    for meta in root
        .children
        .iter()
        .filter(|e| text(e.name) == Some("metadata"))
    {
        for class in meta
            .children
            .iter()
            .filter(|e| text(e.name) == Some("class"))
        {
            let (id, c) = class_of(class, &text)
                .ok_or_else(|| b.error("a metadata `class` element lacks its `id` or `name`"))?;
            types.insert(id, c);
        }
    }
    Ok(types)
}

fn element(b: &mut Bytes, strings: &[String], depth: usize) -> Result<Element, ReadError> {
    if depth > MAX_ELEMENT_DEPTH {
        return Err(b.error(format!(
            "metadata elements nested deeper than {MAX_ELEMENT_DEPTH}"
        )));
    }
    let index = |b: &mut Bytes| -> Result<usize, ReadError> {
        let at = b.pos();
        let i = b.int()?;
        usize::try_from(i)
            .ok()
            .filter(|&i| i < strings.len())
            .ok_or_else(|| b.error_at(at, format!("metadata string index {i} out of range")))
    };
    let name = index(b)?;
    let n = b.count(2)?;
    let mut attrs = Vec::with_capacity(n);
    for _ in 0..n {
        let k = index(b)?;
        attrs.push((k, index(b)?));
    }
    let n = b.count(3)?;
    let mut children = Vec::with_capacity(n);
    for _ in 0..n {
        children.push(element(b, strings, depth + 1)?);
    }
    Ok(Element {
        name,
        attrs,
        children,
    })
}

/// The attribute `key` of `e`.
fn attr<'s>(e: &Element, key: &str, text: &impl Fn(usize) -> Option<&'s str>) -> Option<&'s str> {
    e.attrs
        .iter()
        .find(|(k, _)| text(*k) == Some(key))
        .and_then(|(_, v)| text(*v))
}

fn class_of<'s>(e: &Element, text: &impl Fn(usize) -> Option<&'s str>) -> Option<(i64, Class)> {
    let id = attr(e, "id", text)?.parse().ok()?;
    let name = attr(e, "name", text)?.to_owned();
    let fields = e
        .children
        .iter()
        .filter(|f| text(f.name) == Some("field"))
        .map(|f| {
            Some(Field {
                name: attr(f, "name", text)?.to_owned(),
                class: attr(f, "class", text)?.parse().ok()?,
                pool: attr(f, "constantPool", text) == Some("true"),
                array: attr(f, "dimension", text) == Some("1"),
            })
        })
        .collect::<Option<Vec<_>>>()?;
    Some((
        id,
        Class {
            primitive: Primitive::of(&name),
            name,
            fields,
        },
    ))
}
