//! The in-process reader against real git, on throw-away repositories:
//! each case reads as `git status` would, or is undecided with its reason.

use report_core::tier::Fact;
use std::path::Path;
use std::process::Command;

use super::*;

/// Runs the real git in a test repository (tests may; the reader never does).
pub(crate) fn git(dir: &Path, args: &[&str]) -> String {
    git_dated(dir, None, args)
}

/// The real git, run by a test on the throw-away repository it made, to
/// build a case or to say what `git status` says of it. Only tests start it:
/// the reader reads git's files in-process and starts no program
/// (`tests/architecture.rs::nothing_shipped_starts_a_process`), so nothing
/// a repository, its config or attributes, or a report names is run.
fn git_command(dir: &Path, args: &[&str]) -> Command {
    let mut command = Command::new("git");
    command
        .arg("-C")
        .arg(dir)
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "commit.gpgsign=false",
        ])
        .args([
            "-c",
            "init.defaultBranch=main",
            "-c",
            "protocol.file.allow=always",
        ])
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1");
    command
}

/// [`git`] with the author and committer date set (None: now).
fn git_dated(dir: &Path, date: Option<&str>, args: &[&str]) -> String {
    let mut command = git_command(dir, args);
    if let Some(date) = date {
        command
            .env("GIT_AUTHOR_DATE", date)
            .env("GIT_COMMITTER_DATE", date);
    }
    let output = command.output().unwrap();
    assert!(
        output.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).trim().to_string()
}

fn write(dir: &Path, path: &str, text: &str) {
    let at = dir.join(path);
    std::fs::create_dir_all(at.parent().unwrap()).unwrap();
    std::fs::write(at, text).unwrap();
}

/// A repository with `files` committed.
fn repo(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    git(dir.path(), &["init", "-q"]);
    for (path, text) in files {
        write(dir.path(), path, text);
    }
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-q", "-m", "first"]);
    dir
}

fn state(root: &Path, path: &str) -> (Fact, Worktree) {
    let read = read(root, vec![path.to_string()], &mut GitCache::default())
        .unwrap_or_else(|why| panic!("{why}"));
    let found = &read.facts.paths[path];
    (found.tracked, found.worktree.clone())
}

fn changed(what: &str) -> Worktree {
    Worktree::Changed(what.into())
}

fn undecided(root: &Path, path: &str) -> String {
    match state(root, path).1 {
        Worktree::Undecided(why) => why,
        other => panic!("{path}: {other:?}"),
    }
}

#[test]
fn tracked_clean_and_each_kind_of_change_read_as_git_status_says() {
    let dir = repo(&[
        ("a.md", "a\n"),
        ("b.md", "b\n"),
        ("c.md", "c\n"),
        ("d.md", "d\n"),
    ]);
    let root = dir.path();
    assert_eq!(state(root, "a.md"), (Fact::Yes, Worktree::Clean));
    write(root, "a.md", "a, edited\n");
    assert_eq!(
        state(root, "a.md"),
        (Fact::Yes, changed("modified in the worktree"))
    );
    write(root, "b.md", "b, staged\n");
    git(root, &["add", "b.md"]);
    assert_eq!(
        state(root, "b.md"),
        (Fact::Yes, changed("modified in the index, not committed"))
    );
    std::fs::remove_file(root.join("c.md")).unwrap();
    assert_eq!(
        state(root, "c.md"),
        (Fact::Yes, changed("deleted in the worktree"))
    );
    write(root, "new.md", "new\n");
    assert_eq!(state(root, "new.md"), (Fact::No, changed("untracked")));
    git(root, &["add", "new.md"]);
    assert_eq!(
        state(root, "new.md"),
        (Fact::Yes, changed("added to the index, not committed"))
    );
    assert_eq!(
        state(root, "gone.md"),
        (Fact::No, changed("not in the git index"))
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(root.join("d.md"), std::fs::Permissions::from_mode(0o755))
            .unwrap();
        assert_eq!(
            state(root, "d.md"),
            (
                Fact::Yes,
                changed("its executable bit changed in the worktree")
            )
        );
    }
    // Same content, new stat data: hashed, and clean. The modification time
    // is set, not waited for: on a filesystem with coarse times the rewrite
    // could keep the index's stat data, and pass without the hash.
    write(root, "a.md", "a\n");
    // In the past, so that only the stat data, not a racy-clean entry, asks for the hash.
    let earlier = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000_000);
    std::fs::File::options()
        .write(true)
        .open(root.join("a.md"))
        .and_then(|f| f.set_modified(earlier))
        .unwrap();
    assert_eq!(state(root, "a.md"), (Fact::Yes, Worktree::Clean));
    // git agrees on every one of them.
    let status = git(root, &["status", "--porcelain"]);
    assert!(
        status.contains(" M b.md") || status.contains("M  b.md"),
        "{status}"
    );
    assert!(!status.contains("a.md"), "{status}");
}

#[test]
fn a_root_below_the_top_reads_its_own_paths_and_a_folder_reads_everything_under_it() {
    let dir = repo(&[
        ("sub/plans/a.md", "a\n"),
        ("sub/plans/b.md", "b\n"),
        ("sub/.gitignore", "*.log\n"),
    ]);
    let root = dir.path().join("sub");
    assert_eq!(state(&root, "plans/"), (Fact::Yes, Worktree::Clean));
    // Ignored files are not changes, as in `git status`.
    write(&root, "plans/x.log", "log\n");
    assert_eq!(state(&root, "plans/"), (Fact::Yes, Worktree::Clean));
    write(&root, "plans/c.md", "c\n");
    assert_eq!(
        state(&root, "plans/"),
        (Fact::Yes, changed("plans/c.md: untracked"))
    );
    std::fs::remove_file(root.join("plans/c.md")).unwrap();
    git(&root, &["rm", "-q", "--cached", "plans/b.md"]);
    // b.md is untracked now and deleted in the index: the first by path says it.
    let (_, now) = state(&root, "plans/");
    assert!(
        matches!(&now, Worktree::Changed(what) if what.starts_with("plans/b.md: ")),
        "{now:?}"
    );
    assert_eq!(
        state(&root, "empty/"),
        (Fact::No, changed("nothing under it is in the git index"))
    );
}

#[test]
fn a_path_git_would_transform_is_undecided_never_clean() {
    let dir = repo(&[
        ("a.md", "a\n"),
        ("crlf.md", "a\r\nb\r\n"),
        ("lf.md", "a\nb\n"),
    ]);
    let root = dir.path();
    write(root, ".git/info/attributes", "a.md filter=x\n");
    assert!(undecided(root, "a.md").contains("`filter=x`"));
    write(root, ".git/info/attributes", "a.md ident\n");
    assert!(undecided(root, "a.md").contains("`ident`"));
    write(
        root,
        ".git/info/attributes",
        "a.md working-tree-encoding=UTF-16\n",
    );
    assert!(undecided(root, "a.md").contains("working-tree-encoding"));
    // Line endings: decided by the bytes when they hold no CR.
    write(root, ".git/info/attributes", "* text=auto\n");
    assert_eq!(state(root, "lf.md").1, Worktree::Clean);
    assert!(undecided(root, "crlf.md").contains("`text=auto`"));
    // No attribute, but CRLF in the worktree against LF in the index: what
    // core.autocrlf would check out. Undecided, not "modified".
    write(root, ".git/info/attributes", "");
    write(root, "lf.md", "a\r\nb\r\n");
    assert!(undecided(root, "lf.md").contains("line endings"));
    write(root, "lf.md", "a\r\nc\r\n");
    assert_eq!(state(root, "lf.md").1, changed("modified in the worktree"));
}

#[test]
fn submodules_and_sparse_checkouts_are_undecided() {
    let inner = repo(&[("doc.md", "inner\n")]);
    let dir = repo(&[
        ("top.md", "top\n"),
        ("wide/a.md", "a\n"),
        ("narrow/b.md", "b\n"),
    ]);
    let root = dir.path();
    git(
        root,
        &[
            "submodule",
            "add",
            "-q",
            inner.path().to_str().unwrap(),
            "mod",
        ],
    );
    git(root, &["commit", "-q", "-m", "submodule"]);
    assert!(undecided(root, "mod/doc.md").contains("inside the submodule `mod`"));
    assert!(undecided(root, "mod").contains("a submodule"));
    assert_eq!(state(root, "mod/doc.md").0, Fact::Unknown);
    // Cone mode with a sparse index: `narrow/` is one entry of the index.
    git(
        root,
        &["sparse-checkout", "init", "--cone", "--sparse-index"],
    );
    git(root, &["sparse-checkout", "set", "wide"]);
    assert_eq!(state(root, "wide/a.md").1, Worktree::Clean);
    assert!(undecided(root, "narrow/b.md").contains("sparse"));
    // Without the sparse index, entries outside are skip-worktree.
    git(
        root,
        &["sparse-checkout", "init", "--cone", "--no-sparse-index"],
    );
    assert!(undecided(root, "narrow/b.md").contains("skip-worktree"));
}

#[test]
fn split_and_version_4_indexes_linked_worktrees_and_foreign_owners_read_correctly() {
    let dir = repo(&[("a.md", "a\n"), ("b.md", "b\n")]);
    let root = dir.path();
    write(root, "b.md", "b, edited\n");
    let expect = |root: &Path| {
        assert_eq!(state(root, "a.md"), (Fact::Yes, Worktree::Clean));
        assert_eq!(
            state(root, "b.md"),
            (Fact::Yes, changed("modified in the worktree"))
        );
    };
    git(root, &["update-index", "--index-version", "4"]);
    expect(root);
    git(root, &["update-index", "--split-index"]);
    assert!(std::fs::read_dir(root.join(".git")).unwrap().any(|e| {
        e.unwrap()
            .file_name()
            .to_string_lossy()
            .starts_with("sharedindex.")
    }));
    write(root, "a.md", "a\n");
    expect(root);
    // A linked worktree: `.git` is a file naming its git directory.
    let linked = tempfile::tempdir().unwrap();
    let at = linked.path().join("w");
    git(root, &["worktree", "add", "-q", at.to_str().unwrap()]);
    assert!(at.join(".git").is_file());
    assert_eq!(state(&at, "b.md"), (Fact::Yes, Worktree::Clean));
    write(&at, "a.md", "a, edited there\n");
    assert_eq!(
        state(&at, "a.md"),
        (Fact::Yes, changed("modified in the worktree"))
    );
    // Owned by someone else (git itself would refuse: dubious ownership):
    // nothing is run, so it is read like any other.
    #[cfg(unix)]
    if running_as_root() {
        let status = Command::new("chown")
            .args(["-R", "65534:65534"])
            .arg(root)
            .status()
            .unwrap();
        assert!(status.success());
        expect(root);
    }
}

#[cfg(unix)]
fn running_as_root() -> bool {
    std::env::var("USER").is_ok_and(|u| u == "root")
        || Command::new("id")
            .arg("-u")
            .output()
            .is_ok_and(|o| o.stdout.starts_with(b"0\n"))
}

#[test]
fn repositories_that_cannot_be_read_say_why() {
    let not_a_repo = tempfile::tempdir().unwrap();
    let why = read(not_a_repo.path(), vec![], &mut GitCache::default()).unwrap_err();
    assert_eq!(why, "the root is not inside a git work tree");

    let bare = tempfile::tempdir().unwrap();
    git(bare.path(), &["init", "-q", "--bare"]);
    let why = read(bare.path(), vec![], &mut GitCache::default()).unwrap_err();
    assert!(why.contains("bare"), "{why}");

    let sha256 = tempfile::tempdir().unwrap();
    git(sha256.path(), &["init", "-q", "--object-format=sha256"]);
    let why = read(sha256.path(), vec![], &mut GitCache::default()).unwrap_err();
    assert!(why.contains("SHA-256"), "{why}");

    let corrupt = repo(&[("a.md", "a\n")]);
    let index = corrupt.path().join(".git/index");
    let mut bytes = std::fs::read(&index).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0xff;
    std::fs::write(&index, bytes).unwrap();
    let why = read(corrupt.path(), vec![], &mut GitCache::default()).unwrap_err();
    assert!(why.contains("the git index cannot be read"), "{why}");

    let locked = repo(&[("a.md", "a\n"), ("b.md", "b\n")]);
    write(locked.path(), ".git/index.lock", "");
    assert!(undecided(locked.path(), "a.md").contains("index.lock"));
    write(locked.path(), "b.md", "b, edited\n");
    assert_eq!(
        state(locked.path(), "b.md").1,
        changed("modified in the worktree")
    );
}

#[cfg(unix)]
#[test]
fn a_fifo_in_git_never_hangs_the_caller() {
    let dir = repo(&[("a.md", "a\n")]);
    let mkfifo = |path: &Path| {
        let status = Command::new("mkfifo").arg(path).status().unwrap();
        assert!(status.success());
    };
    let index = dir.path().join(".git/index");
    std::fs::remove_file(&index).unwrap();
    mkfifo(&index);
    let why = read(dir.path(), vec!["a.md".into()], &mut GitCache::default()).unwrap_err();
    assert_eq!(why, "the git index is not a regular file");

    let dir = repo(&[("a.md", "a\n")]);
    let head = dir.path().join(".git/HEAD");
    std::fs::remove_file(&head).unwrap();
    mkfifo(&head);
    let started = std::time::Instant::now();
    let result = read_within(
        dir.path(),
        vec!["a.md".into()],
        &mut GitCache::default(),
        Duration::from_millis(500),
    );
    // Either refused at once or abandoned at the deadline, never waited on.
    assert!(started.elapsed() < Duration::from_secs(5));
    let why = result.unwrap_err();
    assert!(why.contains("took more than"), "{why}");
}

#[test]
fn the_last_commit_is_the_one_git_log_names_through_merges() {
    // Once with every commit in the same second (ties broken as git does),
    // once with the side branch older than the main line's last commit.
    for dates in [
        [None; 4],
        [
            "2020-01-02T00:00:00Z",
            "2020-01-03T00:00:00Z",
            "2020-01-04T00:00:00Z",
            "2020-01-05T00:00:00Z",
        ]
        .map(Some),
    ] {
        let dir = repo(&[("plans/a.md", "a\n"), ("other.md", "o\n")]);
        let root = dir.path();
        write(root, "plans/a.md", "a2\n");
        git_dated(root, dates[0], &["commit", "-qam", "second: a changes"]);
        git(root, &["checkout", "-qb", "side"]);
        write(root, "plans/a.md", "a3\n");
        git_dated(root, dates[1], &["commit", "-qam", "on the side"]);
        git(root, &["checkout", "-q", "main"]);
        write(root, "other.md", "o2\n");
        git_dated(root, dates[2], &["commit", "-qam", "main moves on"]);
        git_dated(root, dates[3], &["merge", "-q", "--no-edit", "side"]);
        let paths = ["plans/a.md", "other.md", "plans/"];
        let mut cache = GitCache::default();
        let read = read(
            root,
            paths.iter().map(|p| p.to_string()).collect(),
            &mut cache,
        )
        .unwrap();
        for path in paths {
            let expected = git(root, &["log", "-1", "--format=%h %s (%as)", "--", path]);
            assert_eq!(
                read.last_commits[path].as_deref(),
                Some(expected.as_str()),
                "{path}"
            );
        }
        assert_eq!(cache.history.len(), 3);
    }
}

#[test]
fn a_folders_untracked_files_are_what_git_status_lists() {
    let outer = tempfile::tempdir().unwrap();
    // A .gitignore above the work tree is not the repository's.
    write(outer.path(), ".gitignore", "new.md\n");
    let root = outer.path().join("repo");
    std::fs::create_dir(&root).unwrap();
    git(&root, &["init", "-q"]);
    write(&root, "dir/a.md", "a\n");
    // Nor is an `.ignore` file (ripgrep's, not git's).
    write(&root, "dir/.ignore", "*.md\n");
    write(&root, "dir/.gitignore", "*.log\n");
    git(&root, &["add", "-A"]);
    git(&root, &["commit", "-q", "-m", "first"]);
    write(&root, "dir/x.log", "ignored\n");
    assert_eq!(state(&root, "dir/"), (Fact::Yes, Worktree::Clean));
    write(&root, "dir/new.md", "new\n");
    assert_eq!(state(&root, "dir/").1, changed("dir/new.md: untracked"));
    assert!(git(&root, &["status", "--porcelain"]).contains("?? dir/new.md"));
    std::fs::remove_file(root.join("dir/new.md")).unwrap();
    // A nested repository is one untracked folder, whatever it ignores.
    let nested = root.join("dir/nested");
    std::fs::create_dir_all(&nested).unwrap();
    git(&nested, &["init", "-q"]);
    write(&nested, "work.md", "work\n");
    write(&nested, ".gitignore", "*\n");
    assert_eq!(state(&root, "dir/").1, changed("dir/nested/: untracked"));
}

#[cfg(unix)]
#[test]
fn a_symlinked_folder_on_the_way_is_a_deletion_as_in_git() {
    let dir = repo(&[("dir/plan.md", "plan\n"), ("keep.md", "keep\n")]);
    let root = dir.path();
    std::fs::rename(root.join("dir"), root.join("real")).unwrap();
    std::os::unix::fs::symlink("real", root.join("dir")).unwrap();
    let expected = changed("deleted in the worktree: `dir` on its way is a symlink");
    assert_eq!(state(root, "dir/plan.md"), (Fact::Yes, expected));
    assert!(git(root, &["status", "--porcelain"]).contains("D dir/plan.md"));
    let (_, folder) = state(root, "dir/");
    assert!(
        matches!(&folder, Worktree::Changed(what) if what.starts_with("dir/plan.md: deleted")),
        "{folder:?}"
    );
}

#[test]
fn a_folder_replaced_by_a_file_deletes_its_files_as_in_git() {
    let dir = repo(&[("dir/plan.md", "plan\n"), ("keep.md", "keep\n")]);
    let root = dir.path();
    std::fs::remove_dir_all(root.join("dir")).unwrap();
    write(root, "dir", "a file now\n");
    assert_eq!(
        state(root, "dir/plan.md"),
        (Fact::Yes, changed("deleted in the worktree"))
    );
    assert!(git(root, &["status", "--porcelain"]).contains("D dir/plan.md"));
}

#[test]
fn a_tree_that_names_itself_is_listed_once() {
    let dir = repo(&[("keep.md", "keep\n")]);
    let root = dir.path();
    // A loose tree object whose two entries are itself: its id cannot be
    // its hash, but nothing checks a loose object's hash on reading.
    let id = "c72108e1fc1b6a6a0b14a1b3bd8a1c8e1a1c0a0f";
    let script = format!(
        "import zlib,os\nid=bytes.fromhex('{id}')\nbody=b'40000 a\\0'+id+b'40000 b\\0'+id\n\
         data=b'tree %d\\0'%len(body)+body\np='{}/.git/objects/{}/{}'\nos.makedirs(os.path.dirname(p),exist_ok=True)\n\
         open(p,'wb').write(zlib.compress(data))\n",
        root.display(),
        &id[..2],
        &id[2..]
    );
    let status = Command::new("python3")
        .args(["-c", &script])
        .status()
        .unwrap();
    assert!(status.success());
    let keep = git(root, &["rev-parse", "HEAD:keep.md"]);
    let tree = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["mktree", "--missing"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            let listing = format!("040000 tree {id}\tdir\n100644 blob {keep}\tkeep.md\n");
            child.stdin.take().unwrap().write_all(listing.as_bytes())?;
            child.wait_with_output()
        })
        .unwrap();
    let tree = String::from_utf8(tree.stdout).unwrap().trim().to_string();
    let commit = git(root, &["commit-tree", &tree, "-p", "HEAD", "-m", "loop"]);
    git(root, &["update-ref", "HEAD", &commit]);
    let started = std::time::Instant::now();
    let (_, folder) = state(root, "dir/");
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_ne!(folder, Worktree::Clean);
}

#[test]
fn checked_out_line_endings_are_undecided_though_stat_data_matches() {
    let dir = repo(&[("plan.md", "a\nb\n")]);
    let root = dir.path();
    git(root, &["config", "core.autocrlf", "true"]);
    std::fs::remove_file(root.join("plan.md")).unwrap();
    git(root, &["checkout", "--", "plan.md"]);
    assert_eq!(std::fs::read(root.join("plan.md")).unwrap(), b"a\r\nb\r\n");
    git(root, &["update-index", "--refresh"]);
    // git calls it clean; its bytes are not the blob's.
    assert_eq!(git(root, &["status", "--porcelain"]), "");
    assert!(undecided(root, "plan.md").contains("line endings"));
}

#[test]
fn a_sparse_folder_entry_under_a_folder_delete_is_undecided() {
    let dir = repo(&[("top/wide/a.md", "a\n"), ("top/narrow/b.md", "b\n")]);
    let root = dir.path();
    git(
        root,
        &["sparse-checkout", "init", "--cone", "--sparse-index"],
    );
    git(root, &["sparse-checkout", "set", "top/wide"]);
    assert!(
        undecided(root, "top/").contains("sparse"),
        "{:?}",
        state(root, "top/")
    );
}

#[test]
fn a_same_size_rewrite_right_after_a_read_is_seen() {
    let dir = repo(&[("plan.md", "aaaa\n")]);
    let root = dir.path();
    let mut cache = GitCache::default();
    let read = |cache: &mut GitCache| {
        read(root, vec!["plan.md".into()], cache)
            .unwrap()
            .facts
            .paths["plan.md"]
            .worktree
            .clone()
    };
    assert_eq!(read(&mut cache), Worktree::Clean);
    // Same size, same second: a stat key alone cannot tell, so nothing this
    // fresh was kept.
    write(root, "plan.md", "bbbb\n");
    assert_eq!(read(&mut cache), changed("modified in the worktree"));
}

#[test]
fn a_file_over_the_read_limit_is_undecided() {
    let dir = repo(&[("big.md", "small\n")]);
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(dir.path().join("big.md"))
        .unwrap();
    file.set_len(crate::project::files::MAX_HASH_BYTES + 1)
        .unwrap();
    assert!(undecided(dir.path(), "big.md").contains("larger than 256 MiB"));
}

/// At the limit itself the file is still read and compared (a sparse file:
/// 256 MiB of zeros hashed, about a second).
#[test]
fn a_file_at_the_read_limit_is_compared() {
    let dir = repo(&[("big.md", "small\n")]);
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(dir.path().join("big.md"))
        .unwrap();
    file.set_len(crate::project::files::MAX_HASH_BYTES).unwrap();
    assert_eq!(
        state(dir.path(), "big.md").1,
        changed("modified in the worktree")
    );
}

#[test]
fn a_file_at_head_is_the_committed_blob_whatever_the_worktree_holds() {
    let dir = repo(&[("reports/新-report.json", "{\"a\": 1}\n")]);
    let file = dir.path().join("reports/新-report.json");
    write(dir.path(), "reports/新-report.json", "{\"a\": 2}\n");
    let AtHead::Blob { bytes, id } = file_at_head(&file).unwrap() else {
        panic!("not read");
    };
    assert_eq!(bytes, b"{\"a\": 1}\n");
    assert_eq!(
        id,
        git(dir.path(), &["rev-parse", "HEAD:reports/新-report.json"])
    );
    write(dir.path(), "reports/new.json", "{}");
    let new = dir.path().join("reports/new.json");
    assert_eq!(file_at_head(&new), Ok(AtHead::Absent));
    let empty = tempfile::tempdir().unwrap();
    git(empty.path(), &["init", "-q"]);
    write(empty.path(), "r.json", "{}");
    assert_eq!(
        file_at_head(&empty.path().join("r.json")),
        Ok(AtHead::NoCommit)
    );
    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "r.json", "{}");
    assert!(file_at_head(&outside.path().join("r.json")).is_err());
}

#[test]
fn a_file_with_crlf_and_lf_lines_differs_only_in_line_endings() {
    let dir = repo(&[("mixed.md", "a\nb\nc\n")]);
    let root = dir.path();
    // Only a CR before an LF is a line ending: the other lines stay as they are.
    write(root, "mixed.md", "a\r\nb\nc\r\n");
    assert!(undecided(root, "mixed.md").contains("line endings"));
    write(root, "mixed.md", "a\r\nB\nc\r\n");
    assert_eq!(
        state(root, "mixed.md").1,
        changed("modified in the worktree")
    );
}

#[test]
fn a_settled_files_hash_is_kept_by_its_stat_key_and_a_fresh_ones_is_not() {
    let dir = repo(&[("plan.md", "aaaa\n")]);
    let root = dir.path();
    let file = root.join("plan.md");
    let hashed = |text: &str| {
        write(root, "plan.md", text);
        git(root, &["hash-object", "plan.md"])
    };
    let settle = || {
        let earlier = std::time::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
        std::fs::File::options()
            .write(true)
            .open(&file)
            .and_then(|f| f.set_modified(earlier))
            .unwrap();
        std::fs::symlink_metadata(&file).unwrap()
    };
    let mut cache = blobs::BlobCache::default();
    let mut blob =
        |metadata: &std::fs::Metadata| cache.blob(&file, metadata).unwrap().raw.to_string();
    // Changed long ago: kept, and answered by its stat key without reading.
    let a = hashed("aaaa\n");
    let settled = settle();
    assert_eq!(blob(&settled), a);
    let b = hashed("bbbb\n");
    assert_eq!(blob(&settled), a);
    // The file's new stat key is hashed again.
    let now = settle();
    assert_eq!(blob(&now), b);
    // Changed just now (within RACY): hashed, not kept.
    let c = hashed("cccc\n");
    let fresh = std::fs::symlink_metadata(&file).unwrap();
    assert_eq!(blob(&fresh), c);
    let d = hashed("dddd\n");
    assert_eq!(blob(&fresh), d);
}

#[test]
fn heads_copy_is_read_up_to_the_limit_and_refused_past_it() {
    let dir = repo(&[("keep.md", "keep\n")]);
    let root = dir.path();
    for (name, len) in [("at.bin", MAX_HEAD_BYTES), ("over.bin", MAX_HEAD_BYTES + 1)] {
        std::fs::File::create(root.join(name))
            .and_then(|f| f.set_len(len))
            .unwrap();
    }
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "large"]);
    assert_eq!(
        file_at_head(&root.join("over.bin")),
        Ok(AtHead::TooLarge {
            bytes: MAX_HEAD_BYTES + 1
        })
    );
    let Ok(AtHead::Blob { bytes, .. }) = file_at_head(&root.join("at.bin")) else {
        panic!("HEAD's copy at the limit is not read");
    };
    assert_eq!(bytes.len() as u64, MAX_HEAD_BYTES);
}

#[test]
fn the_history_walk_stops_after_its_limit_of_commits() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    git(root, &["init", "-q"]);
    // The root commit adds old.md and edge.md, the second changes edge.md,
    // and the next ones only tick.md: edge.md's last commit is the walk's
    // last, and old.md's lies one past it.
    let mut stream = String::new();
    for n in 1..=history::MAX_COMMITS + 1 {
        let message = format!("c{n}");
        stream += &format!(
            "commit refs/heads/main\ncommitter t <t@t> {} +0000\ndata {}\n{message}\n",
            1_600_000_000 + n,
            message.len()
        );
        let file = match n {
            1 => "old.md",
            2 => "edge.md",
            _ => "tick.md",
        };
        let text = format!("{n}\n");
        stream += &format!("M 644 inline {file}\ndata {}\n{text}\n", text.len());
        if n == 1 {
            stream += "M 644 inline edge.md\ndata 2\n1\n\n";
        }
    }
    git_with_input(root, &["fast-import", "--quiet"], &stream);
    let paths = vec!["old.md".to_string(), "edge.md".to_string()];
    let read = read(root, paths, &mut GitCache::default()).unwrap();
    // git's `%h` grows with the number of objects; the walk's hash is 7 long.
    let edge = git(
        root,
        &[
            "log",
            "-1",
            "--abbrev=7",
            "--format=%h %s (%as)",
            "--",
            "edge.md",
        ],
    );
    assert!(edge.contains(" c2 "), "{edge}");
    assert_eq!(read.last_commits["edge.md"].as_deref(), Some(edge.as_str()));
    // git finds old.md's; the walk stopped before it.
    assert!(git(root, &["log", "-1", "--format=%s", "--", "old.md"]) == "c1");
    assert_eq!(read.last_commits["old.md"], None);
}

#[cfg(unix)]
#[test]
fn an_index_that_cannot_be_looked_at_is_an_error_not_an_empty_one() {
    let dir = repo(&[("a.md", "a\n")]);
    let index = dir.path().join(".git/index");
    std::fs::remove_file(&index).unwrap();
    // A symlink to itself: not absent, and not readable.
    std::os::unix::fs::symlink("index", &index).unwrap();
    let why = read(dir.path(), vec!["a.md".into()], &mut GitCache::default()).unwrap_err();
    assert!(why.starts_with("the git index cannot be read: "), "{why}");
}

#[test]
fn only_an_object_format_of_sha256_refuses_and_only_a_small_config_is_read() {
    let dir = repo(&[("a.md", "a\n")]);
    let root = dir.path();
    // Another setting naming sha256 is not the object format.
    git(root, &["config", "remote.sha256.url", "../sha256.git"]);
    assert_eq!(state(root, "a.md"), (Fact::Yes, Worktree::Clean));
    let sha256 = tempfile::tempdir().unwrap();
    git(sha256.path(), &["init", "-q", "--object-format=sha256"]);
    let config = sha256.path().join(".git/config");
    let text = std::fs::read_to_string(&config).unwrap();
    // The config padded with a comment to `len` bytes.
    let padded = |len: u64| format!("{text}#{}\n", "x".repeat(len as usize - text.len() - 2));
    std::fs::write(&config, padded(repo::MAX_SMALL_FILE)).unwrap();
    let why = read(sha256.path(), vec![], &mut GitCache::default()).unwrap_err();
    assert!(why.contains("SHA-256"), "{why}");
    // One byte more: not read at all, so its object format is not seen.
    std::fs::write(&config, padded(repo::MAX_SMALL_FILE + 1)).unwrap();
    assert!(read(sha256.path(), vec![], &mut GitCache::default()).is_ok());
}

/// A repository whose index holds `dir/a.md` at each of `stages` (its
/// stage 0 removed: a conflict), beside a clean `dir/b.md`.
fn conflicted(stages: &[u8]) -> tempfile::TempDir {
    let dir = repo(&[("dir/a.md", "a\n"), ("dir/b.md", "b\n")]);
    let root = dir.path();
    let blob = git(root, &["rev-parse", "HEAD:dir/a.md"]);
    let mut info = format!("0 {}\tdir/a.md\n", "0".repeat(40));
    for stage in stages {
        info += &format!("100644 {blob} {stage}\tdir/a.md\n");
    }
    git_with_input(root, &["update-index", "--index-info"], &info);
    dir
}

/// [`git`] with `input` on its standard input.
fn git_with_input(dir: &Path, args: &[&str], input: &str) -> String {
    use std::io::Write;
    let mut child = git_command(dir, args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "git {args:?}");
    String::from_utf8_lossy(&output.stdout).trim().to_string()
}

#[test]
fn a_conflict_with_one_stage_in_the_index_is_unmerged() {
    // "Added by us" (git status's AU): stage 2 alone, no stage 0.
    let dir = conflicted(&[2]);
    let root = dir.path();
    assert!(git(root, &["status", "--porcelain"]).contains("AU dir/a.md"));
    let unmerged = "unmerged: a conflict is not resolved";
    assert_eq!(state(root, "dir/a.md"), (Fact::Yes, changed(unmerged)));
    assert_eq!(
        state(root, "dir/").1,
        changed(&format!("dir/a.md: {unmerged}"))
    );
}

/// A repository whose HEAD holds `keep.md` and `count` files under
/// `many/` (none of them in the index or on disk), its trees made by
/// `git mktree`: no file is written.
fn head_with_many(count: usize) -> tempfile::TempDir {
    let dir = repo(&[("keep.md", "keep\n")]);
    let root = dir.path();
    let keep = git(root, &["rev-parse", "HEAD:keep.md"]);
    let listing: String = (0..count)
        .map(|i| format!("100644 blob {keep}\t{i}.md\n"))
        .collect();
    let many = git_with_input(root, &["mktree"], &listing);
    let top = git_with_input(
        root,
        &["mktree"],
        &format!("040000 tree {many}\tmany\n100644 blob {keep}\tkeep.md\n"),
    );
    let commit = git(root, &["commit-tree", &top, "-p", "HEAD", "-m", "many"]);
    git(root, &["update-ref", "HEAD", &commit]);
    dir
}

#[test]
fn a_folder_with_more_files_than_are_listed_is_undecided() {
    // HEAD's `many/` holds one file more than a folder's listing takes.
    let dir = head_with_many(worktree::MAX_UNDER_FOLDER + 1);
    let root = dir.path();
    assert_eq!(
        undecided(root, "many/"),
        format!(
            "more than {} files under it: not compared",
            worktree::MAX_UNDER_FOLDER
        )
    );
}

#[cfg(unix)]
#[test]
fn a_tracked_symlink_is_compared_by_its_target_and_its_type() {
    let dir = repo(&[("target.md", "t\n")]);
    let root = dir.path();
    let link = root.join("link");
    std::os::unix::fs::symlink("target.md", &link).unwrap();
    git(root, &["add", "link"]);
    git(root, &["commit", "-q", "-m", "link"]);
    assert_eq!(state(root, "link"), (Fact::Yes, Worktree::Clean));
    std::fs::remove_file(&link).unwrap();
    std::os::unix::fs::symlink("elsewhere.md", &link).unwrap();
    assert_eq!(state(root, "link").1, changed("modified in the worktree"));
    // A file holding the link's target: the same blob, another type.
    std::fs::remove_file(&link).unwrap();
    write(root, "link", "target.md");
    assert_eq!(
        state(root, "link").1,
        changed("its type changed in the worktree")
    );
    assert!(git(root, &["status", "--porcelain"]).contains("T link"));
}

#[test]
fn a_conflict_with_every_stage_in_a_folder_is_one_unmerged_path() {
    // Base, ours and theirs (git status's UU), followed by a clean file.
    let dir = conflicted(&[1, 2, 3]);
    let root = dir.path();
    assert!(git(root, &["status", "--porcelain"]).contains("UU dir/a.md"));
    assert_eq!(
        state(root, "dir/").1,
        changed("dir/a.md: unmerged: a conflict is not resolved")
    );
}

#[test]
fn a_folder_with_as_many_files_as_are_listed_is_compared() {
    // HEAD's `many/` holds exactly as many files as a folder's listing takes.
    let dir = head_with_many(worktree::MAX_UNDER_FOLDER);
    let root = dir.path();
    assert_eq!(
        state(root, "many/"),
        (Fact::No, changed("many/0.md: deleted in the index"))
    );
}

#[test]
fn untracked_files_up_to_the_walks_limit_are_listed_and_one_more_is_undecided() {
    let dir = repo(&[("keep.md", "keep\n")]);
    let root = dir.path();
    // The walk counts the top, `many/` and the files in it.
    std::fs::create_dir(root.join("many")).unwrap();
    for i in 0..worktree::MAX_UNDER_FOLDER - 2 {
        std::fs::write(root.join(format!("many/{i}.md")), "").unwrap();
    }
    assert_eq!(state(root, "many/").1, changed("many/0.md: untracked"));
    std::fs::write(root.join("many/one-more.md"), "").unwrap();
    let too_many = format!(
        "more than {} files under it: not compared",
        worktree::MAX_UNDER_FOLDER
    );
    // Untracked, as nothing under it is in the index.
    assert_eq!(
        state(root, "many/"),
        (Fact::No, Worktree::Undecided(too_many))
    );
}

#[test]
fn a_change_in_a_folder_outweighs_an_undecided_path_before_it() {
    let dir = repo(&[("d/a.md", "a\n"), ("d/b.md", "b\n")]);
    let root = dir.path();
    write(root, ".git/info/attributes", "d/a.md ident\n");
    assert!(undecided(root, "d/").starts_with("d/a.md: "));
    write(root, "d/c.md", "c\n");
    assert_eq!(state(root, "d/").1, changed("d/c.md: untracked"));
}
