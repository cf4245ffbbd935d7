//! The paths a report names, as compared: `./docs//a.md` and `docs/a.md`
//! name one file. Its own module, below every other that compares paths
//! (the per-entry analysis's index by path, the clean, the target documents).

/// `path` as compared: its segments without empty and `.` ones, a folder's
/// trailing `/` kept (`./docs//a.md` is `docs/a.md`).
pub fn path_key(path: &str) -> String {
    let mut key = key_segments(path).collect::<Vec<_>>().join("/");
    if path.ends_with('/') && !key.is_empty() {
        key.push('/');
    }
    key
}

/// Whether `a` and `b` are one path as compared ([`path_key`]), without
/// writing either out: what a look-up over many entries calls.
pub fn same_path(a: &str, b: &str) -> bool {
    let mut left = key_segments(a);
    let mut right = key_segments(b);
    let same_segments = loop {
        match (left.next(), right.next()) {
            (None, None) => break true,
            (Some(x), Some(y)) if x == y => {}
            _ => break false,
        }
    };
    let folder = |p: &str| p.ends_with('/') && key_segments(p).next().is_some();
    same_segments && folder(a) == folder(b)
}

/// The segments of `path` that its [`path_key`] keeps.
pub fn key_segments(path: &str) -> impl Iterator<Item = &str> {
    path.split('/').filter(|s| !s.is_empty() && *s != ".")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_drops_empty_and_dot_segments_and_keeps_a_folders_slash() {
        assert_eq!(path_key("./docs//a.md"), "docs/a.md");
        assert_eq!(path_key("./tmp/"), "tmp/");
        assert_eq!(path_key("./"), "");
    }

    #[test]
    fn two_paths_are_the_same_exactly_when_their_keys_are() {
        let paths = [
            "docs/a.md",
            "./docs/a.md",
            "docs//a.md",
            "docs/a.md/",
            "docs/",
            "./docs/",
            "docs",
            "",
            ".",
            "./",
            "/",
            "a.md",
            "docs/./a.md",
            "漢字/😀.md",
            "./漢字//😀.md",
            "docs/b.md",
        ];
        for a in paths {
            for b in paths {
                assert_eq!(
                    same_path(a, b),
                    path_key(a) == path_key(b),
                    "{a:?} and {b:?}"
                );
            }
        }
    }
}
