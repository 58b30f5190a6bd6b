//! [`crate::cli::dataset`] where the `columnar` module does not exist (wasm32, whose build never
//! links the Arrow crates; the CLI itself is native): no container, so no path is a dataset
//! and `--to parquet` is an unknown format.

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
