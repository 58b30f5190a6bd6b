//! [`Shared`]: a column the model can lend to a derived table without a copy.

use std::fmt;
use std::ops::{Deref, DerefMut};
use std::sync::Arc;

/// A column that reads as a `Vec<T>` and can be lent: [`Shared::share`] hands out another
/// handle to the same rows (no copy), and a write through a handle while another exists
/// copies the rows first (copy on write), so a holder never sees rows change under it.
///
/// A column is held plainly until it is first shared, so that writing it (a reader pushing
/// millions of rows) costs what writing a `Vec` costs; a write to a column no other handle
/// holds any more takes the rows back without a copy.
///
/// The stack table's columns are held this way because the viewer's call tree mirrors them
/// whenever each location is its own frame (`analysis::tree::CallTree::mirror`): 8 bytes a
/// stack node it would otherwise hold twice (62 MiB at synth-500k).
pub struct Shared<T>(Rows<T>);

enum Rows<T> {
    /// Not shared yet (or taken back): written in place.
    Own(Vec<T>),
    /// Lent at least once; other handles may hold the same rows.
    Lent(Arc<Vec<T>>),
}

impl<T> Shared<T> {
    /// Another handle to the same rows; from now on a write through either copies first
    /// while the other exists.
    pub fn share(&mut self) -> Shared<T> {
        let lent = match &mut self.0 {
            Rows::Lent(rows) => Arc::clone(rows),
            Rows::Own(rows) => {
                let lent = Arc::new(std::mem::take(rows));
                self.0 = Rows::Lent(Arc::clone(&lent));
                lent
            }
        };
        Shared(Rows::Lent(lent))
    }
}

impl<T: Clone> Clone for Shared<T> {
    /// A copy of plain rows; another handle to lent ones.
    fn clone(&self) -> Self {
        Shared(match &self.0 {
            Rows::Own(rows) => Rows::Own(rows.clone()),
            Rows::Lent(rows) => Rows::Lent(Arc::clone(rows)),
        })
    }
}

impl<T: PartialEq> PartialEq for Shared<T> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl<T: Eq> Eq for Shared<T> {}

impl<T> Default for Shared<T> {
    fn default() -> Self {
        Shared(Rows::Own(Vec::new()))
    }
}

impl<T> From<Vec<T>> for Shared<T> {
    fn from(rows: Vec<T>) -> Self {
        Shared(Rows::Own(rows))
    }
}

impl<T> Deref for Shared<T> {
    type Target = Vec<T>;

    #[inline]
    fn deref(&self) -> &Vec<T> {
        match &self.0 {
            Rows::Own(rows) => rows,
            Rows::Lent(rows) => rows,
        }
    }
}

impl<T: Clone> DerefMut for Shared<T> {
    /// The rows to change: lent rows are taken back first, copied when another handle still
    /// holds them. Plain rows (a reader pushing millions) cost one tag check, inlined; the
    /// taking back is a call of its own.
    #[inline]
    fn deref_mut(&mut self) -> &mut Vec<T> {
        if matches!(self.0, Rows::Lent(_)) {
            self.take_back();
        }
        match &mut self.0 {
            Rows::Own(rows) => rows,
            // Not reached: taken back above.
            Rows::Lent(rows) => Arc::make_mut(rows),
        }
    }
}

impl<T: Clone> Shared<T> {
    /// Holds lent rows plainly again: the same rows when no other handle holds them, else a
    /// copy.
    #[cold]
    #[inline(never)]
    fn take_back(&mut self) {
        if let Rows::Lent(rows) = &mut self.0 {
            let lent = std::mem::replace(rows, Arc::new(Vec::new()));
            self.0 = Rows::Own(Arc::unwrap_or_clone(lent));
        }
    }
}

impl<T: fmt::Debug> fmt::Debug for Shared<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        (**self).fmt(f)
    }
}

impl<'a, T> IntoIterator for &'a Shared<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
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
        let plain = a.as_ptr();
        let b = a.share();
        assert!(std::ptr::eq(a.as_ptr(), b.as_ptr()), "shared, not copied");
        assert_eq!(a.as_ptr(), plain, "lending moves no rows");
        a.push(3);
        assert_eq!((&a[..], &b[..]), (&[1, 2, 3][..], &[1, 2][..]));
        let before = a.as_ptr();
        a.push(4);
        assert_eq!(
            a.as_ptr(),
            before,
            "a column no one else holds is written in place"
        );
    }

    #[test]
    fn a_write_after_the_other_handle_is_gone_takes_the_rows_back() {
        let mut a: Shared<u32> = vec![7; 4].into();
        let b = a.share();
        let rows = a.as_ptr();
        drop(b);
        a[0] = 8;
        assert_eq!((a.as_ptr(), &a[..2]), (rows, &[8, 7][..]), "no copy");
        let c = a.clone();
        assert_ne!(c.as_ptr(), a.as_ptr(), "plain rows clone as a copy");
        assert_eq!(c, a);
    }
}
