//! Where an analysis runs: the caller's choice. The core starts no thread
//! (it also runs where there are none, as WebAssembly): a caller with
//! threads lends them, through [`RunAll`].

/// Runs jobs that depend on nothing of each other, at once or in turn: what
/// a caller with threads lends the core. Each job runs exactly once, and
/// `run_all` returns when all have; a job that panics is resumed by it.
pub trait RunAll: Sync {
    fn run_all<'s>(&self, jobs: Vec<Box<dyn FnOnce() + Send + 's>>);
}

/// Where a report's parse and its entries' checks run.
#[derive(Clone, Copy, Default)]
pub enum Threads<'a> {
    /// On the calling thread.
    #[default]
    OneThread,
    /// In jobs handed to `runner` together, then joined in order, into
    /// what one thread gives (`threads`: how many threads `runner` has; the
    /// work is cut into a few pieces per thread, so that a thread slowed
    /// for a while leaves some to the others): the text of a large report
    /// cut between its entries, which the parser reads from the front while
    /// the other threads parse pieces from the back (`syntax::parse_split`),
    /// and from a few thousand entries the entries' checks in runs of
    /// consecutive entries (each entry's checks read the entry alone; at
    /// 50 000 entries they take about 100 ms of one core).
    Parallel {
        runner: &'a dyn RunAll,
        threads: usize,
    },
    /// The parse as `Parallel`'s, the checks on the calling thread: the
    /// server's openings. The facts the checks make live as long as the
    /// document, and glibc keeps the heap of the thread that made them
    /// once they are freed: a 50 MB report closed left 16 to 22 MB over
    /// the server's baseline when its entries were checked on other
    /// threads, 8 to 11 MB when only parsed there, 6 to 8 MB on one thread
    /// (`tests/protocol.rs`). The parse's records are a few large blocks,
    /// handed back whole. (Measured before the server kept one heap for
    /// all its threads, `lsp::memory::one_heap`.) Under that one heap two
    /// threads check no faster than one, as they contend on it (50 000
    /// entries: 111–166 ms on two, 116–180 on one); the parse allocates
    /// a handful of times in all.
    ParseOnly {
        runner: &'a dyn RunAll,
        threads: usize,
    },
}

impl<'a> Threads<'a> {
    /// The runner and how many threads it has, if one is lent (`ParseOnly`'s
    /// too): for the parse's pieces and what else is built in parts (the
    /// line index, whose parts are joined on the calling thread).
    pub fn lent(self) -> Option<(&'a dyn RunAll, usize)> {
        match self {
            Threads::OneThread => None,
            Threads::Parallel { runner, threads } | Threads::ParseOnly { runner, threads } => {
                Some((runner, threads))
            }
        }
    }

    /// The runner and how many threads for the checks, if they are lent one.
    pub fn for_checks(self) -> Option<(&'a dyn RunAll, usize)> {
        match self {
            Threads::OneThread | Threads::ParseOnly { .. } => None,
            Threads::Parallel { runner, threads } => Some((runner, threads)),
        }
    }
}

impl std::fmt::Debug for Threads<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Threads::OneThread => f.write_str("OneThread"),
            Threads::Parallel { threads, .. } => write!(f, "Parallel {{ threads: {threads} }}"),
            Threads::ParseOnly { threads, .. } => write!(f, "ParseOnly {{ threads: {threads} }}"),
        }
    }
}
