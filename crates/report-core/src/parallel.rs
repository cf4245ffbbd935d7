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
    /// In about `chunks` jobs handed to `runner` together, then joined in
    /// order, into what one thread gives: the text of a large report cut
    /// between its entries and parsed in pieces (`syntax::parse_split`),
    /// and from a few thousand entries the entries' checks in runs of
    /// consecutive entries (each entry's checks read the entry alone; at
    /// 50 000 entries they take about 100 ms of one core). (The server
    /// does not: glibc keeps the heap of the thread that made the entries'
    /// facts when they are freed, so a document closed would not give that
    /// memory back.)
    Parallel {
        runner: &'a dyn RunAll,
        chunks: usize,
    },
}

impl<'a> Threads<'a> {
    /// The runner and how many jobs, for `Parallel`.
    pub fn lent(self) -> Option<(&'a dyn RunAll, usize)> {
        match self {
            Threads::OneThread => None,
            Threads::Parallel { runner, chunks } => Some((runner, chunks)),
        }
    }
}

impl std::fmt::Debug for Threads<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Threads::OneThread => f.write_str("OneThread"),
            Threads::Parallel { chunks, .. } => write!(f, "Parallel {{ chunks: {chunks} }}"),
        }
    }
}
