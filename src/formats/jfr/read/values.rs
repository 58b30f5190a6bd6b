//! Decoding values by their metadata type, the constant pools, and looking fields up through
//! pool references.

use super::bytes::{Bytes, JfrString};
use super::metadata::{Primitive, Types};
use crate::formats::error::ReadError;
use crate::hash::HashMap;

/// Deepest nesting of objects inside one value (JDK types nest three or four levels).
const MAX_VALUE_DEPTH: usize = 32;
/// Most pool references followed to reach a value (a reference to a reference …).
const MAX_REF_HOPS: usize = 8;

/// A decoded value.
#[derive(Clone, Debug)]
pub enum Value {
    Null,
    Bool(bool),
    Long(i64),
    Double(f64),
    Str(String),
    /// An index into the constant pool of type `class`.
    Ref {
        class: i64,
        index: i64,
    },
    Object {
        class: i64,
        fields: Vec<Value>,
    },
    Array(Vec<Value>),
}

impl Value {
    pub fn as_long(&self) -> Option<i64> {
        match self {
            Value::Long(v) => Some(*v),
            Value::Bool(b) => Some(i64::from(*b)),
            _ => None,
        }
    }

    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Double(v) => Some(*v),
            _ => self.as_long().map(|v| v as f64),
        }
    }
}

/// The constant pools of a chunk, keyed by (type id, index).
pub type Pools = HashMap<(i64, i64), Value>;

/// Decodes one value of type `class` at the cursor.
pub fn value(b: &mut Bytes, types: &Types, class: i64, depth: usize) -> Result<Value, ReadError> {
    if depth > MAX_VALUE_DEPTH {
        return Err(b.error(format!("values nested deeper than {MAX_VALUE_DEPTH}")));
    }
    b.spend()?;
    let Some(c) = types.get(&class) else {
        return Err(b.error(format!("type id {class} is not in the chunk's metadata")));
    };
    if let Some(p) = c.primitive {
        return primitive(b, p, class);
    }
    let mut fields = Vec::with_capacity(c.fields.len());
    for f in &c.fields {
        let one = |b: &mut Bytes| -> Result<Value, ReadError> {
            if f.pool {
                Ok(Value::Ref {
                    class: f.class,
                    index: b.long()?,
                })
            } else {
                value(b, types, f.class, depth + 1)
            }
        };
        fields.push(if f.array {
            let n = b.count(1)?;
            let mut items = Vec::with_capacity(n);
            for _ in 0..n {
                items.push(one(b)?);
            }
            Value::Array(items)
        } else {
            one(b)?
        });
    }
    Ok(Value::Object { class, fields })
}

fn primitive(b: &mut Bytes, p: Primitive, class: i64) -> Result<Value, ReadError> {
    Ok(match p {
        Primitive::Boolean => Value::Bool(b.u8()? != 0),
        Primitive::Byte => Value::Long(i64::from(b.u8()? as i8)),
        Primitive::Char => Value::Str(b.char()?.to_string()),
        Primitive::Short => Value::Long(i64::from(b.short()?)),
        Primitive::Int => Value::Long(i64::from(b.int()?)),
        Primitive::Long => Value::Long(b.long()?),
        Primitive::Float => Value::Double(f64::from(b.f32()?)),
        Primitive::Double => Value::Double(b.f64()?),
        Primitive::String => match b.string()? {
            JfrString::Null => Value::Null,
            JfrString::Text(s) => Value::Str(s),
            JfrString::Pool(index) => Value::Ref { class, index },
        },
    })
}

/// Reads a constant pool event (after its size and type id) into `pools`.
pub fn read_pool_event(b: &mut Bytes, types: &Types, pools: &mut Pools) -> Result<(), ReadError> {
    b.long()?; // start time
    b.long()?; // duration
    b.long()?; // delta to the previous constant pool event (the event walk finds them all)
    b.u8()?; // flush / type mask
    let n = b.count(2)?;
    for _ in 0..n {
        let class = b.long()?;
        let m = b.count(1)?;
        for _ in 0..m {
            let index = b.long()?;
            let v = value(b, types, class, 0)?;
            pools.insert((class, index), v);
        }
    }
    Ok(())
}

/// Looks values up in one chunk's types and pools.
pub struct Lookup<'a> {
    pub types: &'a Types,
    pub pools: &'a Pools,
}

impl<'a> Lookup<'a> {
    /// `v` with pool references followed; `None` for a reference that is not in the pools
    /// (index 0 is JFR's null reference).
    pub fn resolve(&self, mut v: &'a Value) -> Option<&'a Value> {
        for _ in 0..MAX_REF_HOPS {
            match v {
                Value::Ref { class, index } => v = self.pools.get(&(*class, *index))?,
                other => return Some(other),
            }
        }
        None
    }

    /// The field `name` of the object `v` (resolved), itself resolved.
    pub fn field(&self, v: &'a Value, name: &str) -> Option<&'a Value> {
        match self.resolve(v)? {
            Value::Object { class, fields } => {
                let i = self.types.get(class)?.field(name)?;
                self.resolve(fields.get(i)?)
            }
            _ => None,
        }
    }

    /// The text of the field `name` of `v`: a string, or a symbol's `string`.
    pub fn text(&self, v: &'a Value, name: &str) -> Option<&'a str> {
        match self.field(v, name)? {
            Value::Str(s) => Some(s),
            sym @ Value::Object { .. } => match self.field(sym, "string")? {
                Value::Str(s) => Some(s),
                _ => None,
            },
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::metadata::{Class, Field};
    use super::*;

    fn class(name: &str, fields: Vec<Field>) -> Class {
        Class {
            name: name.to_owned(),
            primitive: None,
            fields,
        }
    }

    #[test]
    fn empty_objects_cannot_multiply_without_bound() {
        let mut types = Types::default();
        types.insert(1, class("Empty", Vec::new()));
        let many = (0..2000)
            .map(|i| Field {
                name: format!("f{i}"),
                class: 1,
                pool: false,
                array: false,
            })
            .collect();
        types.insert(2, class("Wide", many));
        let e = value(&mut Bytes::new(&[0], 0, true), &types, 2, 0).unwrap_err();
        assert!(e.message.contains("values per byte"), "{e}");
        let ok = value(&mut Bytes::new(&[0; 300], 0, true), &types, 2, 0);
        assert!(ok.is_ok());
    }
}
