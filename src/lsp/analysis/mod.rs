//! The analysis threads. Each open document belongs to one of a few
//! analysis threads ([`pool::MAX_ANALYSIS_THREADS`], started as documents
//! open, each taking the least loaded), which owns its `DocumentHost`,
//! brings it up to date with each change, publishes the diagnostics, and
//! runs the requests that read it. A thread handles its messages in arrival
//! order, so a request sees every change sent before it; a document's
//! analysis never waits behind another's unless more documents are open
//! than there are threads. The message loop talks to them through an
//! [`AnalysisPool`] handle only (held beside the project reader's and the
//! search's, `services.rs`).
//!
//! `pool` is that handle and the router that picks each document's thread;
//! `job` the messages a thread takes; `worker` a thread's loop; `state` what
//! it keeps per document; `publish` what it sends the client.

mod job;
mod pool;
mod publish;
mod state;
mod worker;

pub use job::JobRope;
pub use pool::AnalysisPool;
pub use publish::{capped, too_many_summary};
pub use state::DocState;
