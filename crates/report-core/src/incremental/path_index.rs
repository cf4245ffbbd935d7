//! The entries by path ([`PathIndex`]), through which the entries whose
//! membership may change, those a promotion candidate names and those a
//! target document's path names (`Incremental::entries_naming`) are found.

use crate::paths::{key_segments, same_path};

use super::slots::Slot;

/// The entries by path: a hash of each entry's path with its index, in
/// order, 16 bytes an entry. The entries with a path are those under its
/// hash whose path it is (another path may share the hash).
#[derive(Clone, Debug, Default)]
pub(super) struct PathIndex {
    pairs: Vec<(u64, usize)>,
}

impl PathIndex {
    pub(super) fn new(slots: &[Slot]) -> PathIndex {
        let mut pairs: Vec<(u64, usize)> = slots
            .iter()
            .enumerate()
            .filter_map(|(i, s)| Some((path_hash(&s.facts.path.as_ref()?.0), i)))
            .collect();
        pairs.sort_unstable();
        PathIndex { pairs }
    }

    /// The indices of the entries with `path`, ascending.
    pub(super) fn find(&self, path: &str, slots: &[Slot]) -> Vec<usize> {
        let hash = path_hash(path);
        let from = self.pairs.partition_point(|&(h, _)| h < hash);
        self.pairs[from..]
            .iter()
            .take_while(|&&(h, _)| h == hash)
            .map(|&(_, i)| i)
            .filter(|&i| slots[i].facts.path.as_ref().is_some_and(|(p, _)| p == path))
            .collect()
    }

    /// The indices of the entries whose path is `key` as compared
    /// (`paths::same_path`), ascending.
    pub(super) fn find_key(&self, key: &str, slots: &[Slot]) -> Vec<usize> {
        let hash = path_hash(key);
        let from = self.pairs.partition_point(|&(h, _)| h < hash);
        let mut found: Vec<usize> = self.pairs[from..]
            .iter()
            .take_while(|&&(h, _)| h == hash)
            .map(|&(_, i)| i)
            .filter(|&i| {
                let path = slots[i].facts.path.as_ref();
                path.is_some_and(|(p, _)| same_path(p, key))
            })
            .collect();
        found.sort_unstable();
        found
    }

    pub(super) fn remove(&mut self, path: &str, index: usize) {
        if let Ok(at) = self.pairs.binary_search(&(path_hash(path), index)) {
            self.pairs.remove(at);
        }
    }

    pub(super) fn insert(&mut self, path: &str, index: usize) {
        let pair = (path_hash(path), index);
        if let Err(at) = self.pairs.binary_search(&pair) {
            self.pairs.insert(at, pair);
        }
    }

    /// `removed` entries at `at` gave way to `added`: those after move.
    pub(super) fn splice(&mut self, at: usize, removed: usize, added: &[Slot]) {
        let end = at + removed;
        self.pairs.retain(|&(_, i)| !(at..end).contains(&i));
        if added.len() != removed {
            for (_, i) in self.pairs.iter_mut().filter(|(_, i)| *i >= end) {
                *i = *i + added.len() - removed;
            }
        }
        let mut new: Vec<(u64, usize)> = added
            .iter()
            .enumerate()
            .filter_map(|(j, s)| Some((path_hash(&s.facts.path.as_ref()?.0), at + j)))
            .collect();
        if new.is_empty() {
            return;
        }
        new.sort_unstable();
        // One merge of two sorted lists.
        let old = std::mem::take(&mut self.pairs);
        let mut merged = Vec::with_capacity(old.len() + new.len());
        let (mut a, mut b) = (old.into_iter().peekable(), new.into_iter().peekable());
        loop {
            let next = match (a.peek(), b.peek()) {
                (Some(x), Some(y)) if x <= y => a.next(),
                (Some(_), Some(_)) | (None, Some(_)) => b.next(),
                (Some(_), None) => a.next(),
                (None, None) => break,
            };
            merged.extend(next);
        }
        self.pairs = merged;
    }
}

/// A fixed hash of a path (the same in every run), of its key as compared
/// (`paths::path_key`, without writing it out): `./docs/a.md` hashes
/// as `docs/a.md` does, so that a file's editor finds the entries naming it
/// however they write it.
pub(super) fn path_hash(path: &str) -> u64 {
    use std::hash::{BuildHasher, Hasher};
    // Fixed seeds: the index must hash a path the same way every time.
    static SEEDS: std::sync::OnceLock<foldhash::fast::FixedState> = std::sync::OnceLock::new();
    let mut hasher = SEEDS
        .get_or_init(|| foldhash::fast::FixedState::with_seed(fastrand::u64(..)))
        .build_hasher();
    let mut segments = 0;
    for segment in key_segments(path) {
        hasher.write(segment.as_bytes());
        hasher.write_u8(b'/');
        segments += 1;
    }
    hasher.write_u8(u8::from(path.ends_with('/') && segments > 0));
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::incremental::slots::check_alone;
    use crate::text::TextRange;

    /// Entries `{"path": …}` with these paths, one after another.
    fn entries(paths: &[&str]) -> Vec<Slot> {
        let mut start = 10;
        let mut slots = Vec::new();
        for (i, path) in paths.iter().enumerate() {
            let text = format!(r#"{{"path": "{path}"}}"#);
            let range = TextRange::new(start, start + text.len());
            start = range.end + 2;
            slots.push(check_alone(text, range, i, None).expect("an entry"));
        }
        slots
    }

    #[test]
    fn finds_every_entry_with_a_path_in_order() {
        let slots = entries(&["a.md", "b.md", "a.md", "c.md", "a.md"]);
        let index = PathIndex::new(&slots);
        assert_eq!(index.find("a.md", &slots), [0, 2, 4]);
        assert_eq!(index.find("c.md", &slots), [3]);
        assert_eq!(index.find("d.md", &slots), [0; 0]);
        assert_eq!(index.pairs.len(), 5);
    }

    #[test]
    fn an_entry_with_another_path_under_the_same_hash_is_not_found() {
        let slots = entries(&["a.md", "b.md"]);
        // As if "b.md" hashed as "a.md" does.
        let index = PathIndex {
            pairs: vec![(path_hash("a.md"), 0), (path_hash("a.md"), 1)],
        };
        assert_eq!(index.find("a.md", &slots), [0]);
        assert_eq!(index.find("b.md", &slots), [0; 0]);
    }

    #[test]
    fn a_path_moves_with_its_entry() {
        let renamed = entries(&["a.md", "c.md", "a.md"]);
        let mut index = PathIndex::new(&entries(&["a.md", "b.md", "a.md"]));
        index.remove("b.md", 1);
        index.insert("c.md", 1);
        assert_eq!(index.pairs, PathIndex::new(&renamed).pairs);
        assert_eq!(index.find("c.md", &renamed), [1]);
        // Twice, or what is not there: nothing changes.
        index.insert("c.md", 1);
        index.remove("b.md", 1);
        assert_eq!(index.pairs, PathIndex::new(&renamed).pairs);
    }

    #[test]
    fn a_splice_equals_the_index_made_again() {
        let before = ["a.md", "b.md", "c.md", "b.md", "d.md"];
        let splices: [(usize, usize, &[&str]); 7] = [
            (1, 2, &["e.md"]),
            (0, 0, &["b.md", "a.md"]),
            (5, 0, &["a.md"]),
            (2, 3, &[]),
            (0, 5, &["z.md"]),
            (1, 1, &["c.md"]),
            (3, 1, &["b.md", "b.md", "f.md"]),
        ];
        for (at, removed, added) in splices {
            let mut index = PathIndex::new(&entries(&before));
            let mut paths = before.to_vec();
            paths.splice(at..at + removed, added.iter().copied());
            let after = entries(&paths);
            index.splice(at, removed, &after[at..at + added.len()]);
            let made_again = PathIndex::new(&after);
            assert_eq!(index.pairs, made_again.pairs, "{at} {removed} {added:?}");
        }
    }

    #[test]
    fn an_entry_is_found_by_its_key_however_its_path_is_written() {
        let slots = entries(&[
            "./docs/a.md",
            "docs/b.md",
            "docs//a.md",
            "docs/a.md",
            "docs/",
        ]);
        let index = PathIndex::new(&slots);
        assert_eq!(index.find_key("docs/a.md", &slots), [0, 2, 3]);
        assert_eq!(index.find_key("docs/", &slots), [4]);
        assert_eq!(index.find_key("docs", &slots), [0; 0]);
        // The exact look-up of membership is unchanged.
        assert_eq!(index.find("docs/a.md", &slots), [3]);
    }

    #[test]
    fn the_hash_of_a_path_is_the_same_every_time() {
        assert_eq!(
            path_hash("docs/a.md"),
            path_hash(&String::from("docs/a.md"))
        );
        assert_ne!(path_hash("docs/a.md"), path_hash("docs/b.md"));
    }
}
