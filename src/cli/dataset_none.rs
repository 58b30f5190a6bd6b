//! [`crate::cli::dataset`] without the `columnar` feature, or on wasm32 (whose CLI reads
//! Node's files through `cli::host`, while a dataset directory is std::fs's): no container, so
//! no path is a dataset and `--to parquet` is an unknown format.

use crate::formats::Parsed;

use crate::cli::output::{CliResult, Failure};

/// No container: an uninhabited type, so the functions below cannot be called.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Container {}

impl Container {
    /// None.
    pub const ALL: [Container; 0] = [];

    pub fn name(self) -> &'static str {
        match self {}
    }

    pub fn from_name(_name: &str) -> Option<Container> {
        None
    }
}

/// No path holds a dataset.
pub fn container_of(_path: &str) -> Option<Container> {
    None
}

pub fn load(_dir: &str, c: Container) -> Result<Parsed, Failure> {
    match c {}
}

pub fn convert(_inputs: &[String], _dir: &str, c: Container, _append: bool) -> CliResult {
    match c {}
}
