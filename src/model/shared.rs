//! [`Shared`]: a column the model can lend to a derived table without a copy.

use std::fmt;
use std::ops::{Deref, DerefMut};
use std::sync::Arc;

/// A column that reads as a `Vec<T>` and can be shared: [`Shared::share`] hands out another
/// handle to the same rows (no copy), and a write through any handle while another exists
/// copies the rows first (copy on write), so a holder never sees rows change under it.
///
/// The stack table's columns are held this way because the viewer's call tree mirrors them
/// whenever each location is its own frame (`analysis::tree::CallTree`): 8 bytes a stack
/// node it would otherwise hold twice (62 MiB at synth-500k).
#[derive(Clone, PartialEq, Eq)]
pub struct Shared<T>(Arc<Vec<T>>);

impl<T> Shared<T> {
    /// Another handle to the same rows.
    pub fn share(&self) -> Shared<T> {
        Shared(Arc::clone(&self.0))
    }
}

impl<T> Default for Shared<T> {
    fn default() -> Self {
        Shared(Arc::new(Vec::new()))
    }
}

impl<T> From<Vec<T>> for Shared<T> {
    fn from(rows: Vec<T>) -> Self {
        Shared(Arc::new(rows))
    }
}

impl<T> Deref for Shared<T> {
    type Target = Vec<T>;

    fn deref(&self) -> &Vec<T> {
        &self.0
    }
}

impl<T: Clone> DerefMut for Shared<T> {
    /// The rows to change: copied first when another handle shares them.
    fn deref_mut(&mut self) -> &mut Vec<T> {
        Arc::make_mut(&mut self.0)
    }
}

impl<T: fmt::Debug> fmt::Debug for Shared<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl<'a, T> IntoIterator for &'a Shared<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl<T> FromIterator<T> for Shared<T> {
    fn from_iter<I: IntoIterator<Item = T>>(rows: I) -> Self {
        Shared::from(rows.into_iter().collect::<Vec<T>>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_while_shared_copies_first() {
        let mut a: Shared<u32> = vec![1, 2].into();
        let b = a.share();
        assert!(std::ptr::eq(a.as_ptr(), b.as_ptr()));
        a.push(3);
        assert_eq!((&a[..], &b[..]), (&[1, 2, 3][..], &[1, 2][..]));
        let before = a.as_ptr();
        a.push(4);
        assert_eq!(a.as_ptr(), before, "an unshared column is written in place");
    }
}
