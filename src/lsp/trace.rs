//! The client's trace: `$/setTrace` (and `trace` at `initialize`) says how
//! much of report-lsp's own `tracing` events go to the client as
//! `$/logTrace`. `messages`: those at the `logLevel` setting or above.
//! `verbose`: those at debug level too, whatever `logLevel` says, each with
//! its level, target and thread as the notification's `verbose` text: what
//! a user attaches to a bug report (each analysis, workspace pass and
//! publication is timed at debug level), with no second setting to find.
//! `off`: none.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU8, Ordering};

use tower_lsp_server::Client;
use tower_lsp_server::ls_types::{self as lsp, notification::LogTrace};
use tracing::Level;
use tracing::field::{Field, Visit};
use tracing::level_filters::LevelFilter;
use tracing_subscriber::layer::{Context, Layer};

const OFF: u8 = 0;
const MESSAGES: u8 = 1;
const VERBOSE: u8 = 2;

/// The trace, the level, and where to send: one per process, as the server is.
static TRACE: AtomicU8 = AtomicU8::new(OFF);
/// A `LevelFilter` as a rank: 0 off … 5 trace.
static LEVEL: AtomicU8 = AtomicU8::new(3);
/// Where events go: one task sends them all, so they arrive in order.
static SINK: Mutex<Option<tokio::sync::mpsc::UnboundedSender<lsp::LogTraceParams>>> =
    Mutex::new(None);

/// The client events go to, from a task on the runtime its messages are sent from.
pub fn connect(client: Client, runtime: tokio::runtime::Handle) {
    let (send, mut received) = tokio::sync::mpsc::unbounded_channel();
    runtime.spawn(async move {
        while let Some(params) = received.recv().await {
            client.send_notification::<LogTrace>(params).await;
        }
    });
    *sink() = Some(send);
}

/// `$/setTrace`'s value, or `trace` at `initialize`.
pub fn set_trace(value: lsp::TraceValue) {
    let rank = match value {
        lsp::TraceValue::Off => OFF,
        lsp::TraceValue::Messages => MESSAGES,
        lsp::TraceValue::Verbose => VERBOSE,
    };
    TRACE.store(rank, Ordering::Relaxed);
}

/// The `logLevel` setting.
pub fn set_level(level: LevelFilter) {
    LEVEL.store(rank(level), Ordering::Relaxed);
}

fn sink()
-> std::sync::MutexGuard<'static, Option<tokio::sync::mpsc::UnboundedSender<lsp::LogTraceParams>>> {
    // A panic while it was held left a sender, which is still good.
    SINK.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn rank(level: LevelFilter) -> u8 {
    match level.into_level() {
        None => 0,
        Some(Level::ERROR) => 1,
        Some(Level::WARN) => 2,
        Some(Level::INFO) => 3,
        Some(Level::DEBUG) => 4,
        Some(Level::TRACE) => 5,
    }
}

/// The layer that sends events to the client.
pub struct ClientTrace;

impl<S: tracing::Subscriber> Layer<S> for ClientTrace {
    /// The libraries' events are never ours to send: their callsites are
    /// off for this layer once and for all.
    fn register_callsite(
        &self,
        meta: &'static tracing::Metadata<'static>,
    ) -> tracing::subscriber::Interest {
        match crate::log::is_ours(meta.target()) {
            true => tracing::subscriber::Interest::always(),
            false => tracing::subscriber::Interest::never(),
        }
    }

    fn on_event(&self, event: &tracing::Event<'_>, _: Context<'_, S>) {
        let trace = TRACE.load(Ordering::Relaxed);
        let meta = event.metadata();
        let level = match trace {
            VERBOSE => LEVEL.load(Ordering::Relaxed).max(rank(LevelFilter::DEBUG)),
            _ => LEVEL.load(Ordering::Relaxed),
        };
        if trace == OFF
            || !crate::log::is_ours(meta.target())
            || rank(LevelFilter::from_level(*meta.level())) > level
        {
            return;
        }
        let Some(send) = sink().clone() else {
            return;
        };
        let mut fields = Fields::default();
        event.record(&mut fields);
        let verbose = (trace == VERBOSE).then(|| {
            let thread = std::thread::current();
            format!(
                "{} {} (thread {})",
                meta.level(),
                meta.target(),
                thread.name().unwrap_or("unnamed")
            )
        });
        let params = lsp::LogTraceParams {
            message: fields.text,
            verbose,
        };
        let _ = send.send(params);
    }
}

/// An event's message, then its other fields as `name=value`.
#[derive(Default)]
struct Fields {
    text: String,
}

impl Visit for Fields {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        let part = match field.name() {
            "message" => format!("{value:?}"),
            name => format!("{name}={value:?}"),
        };
        if !self.text.is_empty() {
            self.text.push(' ');
        }
        self.text.push_str(&part);
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        match field.name() {
            "message" => self.record_debug(field, &format_args!("{value}")),
            _ => self.record_debug(field, &value),
        }
    }
}
