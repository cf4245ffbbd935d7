//! The threads the CLI and the server lend the core (which starts none of
//! its own): rayon pools whose threads have the stack an analysis may need,
//! and [`OnPool`], the core's `RunAll` over one.

use std::sync::OnceLock;

/// A pool whose threads have the stack an analysis may need.
pub fn analysis_pool() -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .stack_size(report_core::ANALYSIS_STACK_BYTES)
        .build()
        .expect("the analysis threads start")
}

/// The server's pool for the pieces of a large opening's parse and the
/// line index of its first diagnostics, made at the first opening, and
/// shared by every document.
pub fn opening_pool() -> &'static rayon::ThreadPool {
    static POOL: OnceLock<rayon::ThreadPool> = OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .stack_size(report_core::ANALYSIS_STACK_BYTES)
            .thread_name(|n| format!("opening-{n}"))
            .build()
            .expect("the opening threads start")
    })
}

/// Runs the core's jobs (an analysis's pieces and runs of entries) on the
/// pool's threads.
pub struct OnPool<'p>(pub &'p rayon::ThreadPool);

impl report_core::RunAll for OnPool<'_> {
    fn run_all<'s>(&self, jobs: Vec<Box<dyn FnOnce() + Send + 's>>) {
        self.0.scope(|scope| {
            for job in jobs {
                scope.spawn(move |_| job());
            }
        });
    }
}

impl OnPool<'_> {
    /// The parse and the checks on this pool: a job per thread.
    pub fn threads(&self) -> report_core::Threads<'_> {
        report_core::Threads::Parallel {
            runner: self,
            threads: self.0.current_num_threads(),
        }
    }

    /// The parse on this pool, the checks on the calling thread (see
    /// `report_core::Threads::ParseOnly`).
    pub fn parse_only(&self) -> report_core::Threads<'_> {
        report_core::Threads::ParseOnly {
            runner: self,
            threads: self.0.current_num_threads(),
        }
    }
}
