//! The Parquet / Arrow side of the JavaScript API, only in the second wasm build (feature
//! `columnar`: `pkg/columnar-web`, `pkg/columnar-node`), which the npm package and the viewer
//! load when asked. A profile crosses from the first build as tables-JSON bytes
//! (`Profile.parse`), and back the same way ([`tables_json_of`]): two wasm instances share no
//! memory, and tables-JSON is the lossless document both builds read.

use js_sys::{Object, Uint8Array};
use wasm_bindgen::prelude::*;

use crate::formats::columnar::{self, Container};
use crate::formats::tables_json::write_document;
use crate::formats::ReadOptions;
use crate::model::Profile as Model;
use crate::wasm::Profile;
use crate::wasm_view::set;

/// `{table: Uint8Array}` of `files`, in their order.
fn files_object(files: Vec<(String, Vec<u8>)>) -> Object {
    let o = Object::new();
    for (name, bytes) in files {
        set(&o, &name, Uint8Array::from(bytes.as_slice()));
    }
    o
}

/// `(table, bytes)` of a `{table: Uint8Array | ArrayBuffer}` object, in its key order.
fn object_files(tables: &Object) -> Result<Vec<(String, Vec<u8>)>, JsError> {
    let mut files = Vec::new();
    for entry in Object::entries(tables).iter() {
        let pair: js_sys::Array = entry.unchecked_into();
        let name = pair
            .get(0)
            .as_string()
            .ok_or_else(|| JsError::new("a table name is not a string"))?;
        let value = pair.get(1);
        let bytes = if value.is_instance_of::<Uint8Array>()
            || value.is_instance_of::<js_sys::ArrayBuffer>()
        {
            Uint8Array::new(&value).to_vec()
        } else {
            return Err(JsError::new(&format!(
                "table {name}: expected a Uint8Array of its file's bytes"
            )));
        };
        files.push((name, bytes));
    }
    Ok(files)
}

fn encode(c: Container, p: &Model, stream: bool) -> Result<Object, JsError> {
    columnar::encode_profile(c, p, stream)
        .map(files_object)
        .map_err(|e| JsError::new(&e.to_string()))
}

#[wasm_bindgen]
impl Profile {
    /// One Arrow IPC file per table (the seven v2 tables, the extension tables,
    /// `column_types`, `value_types`): `{table: Uint8Array}` in document order, the bytes of
    /// the CLI's `part-00000.arrow` files. `stream`: the IPC stream format instead (what
    /// DuckDB-wasm's `insertArrowFromIPCStream` takes).
    #[wasm_bindgen(js_name = toArrow)]
    pub fn to_arrow(&self, stream: Option<bool>) -> Result<Object, JsError> {
        encode(Container::Arrow, self.model(), stream.unwrap_or(false))
    }

    /// As `toArrow`, Parquet files (snappy pages, dictionary-encoded strings).
    #[wasm_bindgen(js_name = toParquet)]
    pub fn to_parquet(&self) -> Result<Object, JsError> {
        encode(Container::Parquet, self.model(), false)
    }

    /// A zip of the dataset directory `dir` (`dir/<table>/part-00000.parquet` or `.arrow`)
    /// in `container` (`"parquet"` or `"arrow"`).
    #[wasm_bindgen(js_name = datasetZip)]
    pub fn dataset_zip(&self, container: &str, dir: &str) -> Result<Uint8Array, JsError> {
        let c = Container::from_name(container)
            .ok_or_else(|| JsError::new(&format!("unknown container {container:?}")))?;
        columnar::zip_dataset(c, self.model(), dir)
            .map(|z| Uint8Array::from(z.as_slice()))
            .map_err(|e| JsError::new(&e.to_string()))
    }
}

/// The tables-JSON document of one file per table in `container` (`{table: Uint8Array}`,
/// Arrow in the file or the stream format), checked as the CLI reads a dataset: an error
/// names the container and the table. The document holds the tables as stored, so reading
/// it warns of what the model does not keep as reading the files would.
#[wasm_bindgen(js_name = tablesJsonOf)]
pub fn tables_json_of(container: &str, tables: &Object) -> Result<Uint8Array, JsError> {
    let c = Container::from_name(container)
        .ok_or_else(|| JsError::new(&format!("unknown container {container:?}")))?;
    let fail = |e: crate::formats::ReadError| JsError::new(&e.to_string());
    let tables = columnar::decode_tables(c, object_files(tables)?).map_err(fail)?;
    columnar::read_tables(c, &tables, &ReadOptions::default()).map_err(fail)?;
    Ok(Uint8Array::from(write_document(&tables).as_slice()))
}
