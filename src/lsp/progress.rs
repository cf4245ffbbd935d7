//! Work-done progress (`$/progress`) for the server's own long passes (the
//! workspace checks, the search for reports): a token asked of the client,
//! then begin, reports and end, sent in order with the publications.

use std::sync::mpsc;
use std::time::{Duration, Instant};

use tower_lsp_server::Client;
use tower_lsp_server::ls_types as lsp;

use super::session::Session;

/// How a thread asks the client to show progress: the client handle and
/// the runtime its requests run on.
#[derive(Clone)]
pub struct ProgressClient {
    pub client: Client,
    pub runtime: tokio::runtime::Handle,
}

/// How long the client may take to create a progress token before the
/// pass goes on without one.
const CREATE_TIMEOUT: Duration = Duration::from_secs(5);
/// Reports sent at most this often (the last one is always sent).
const REPORT_EVERY: Duration = Duration::from_millis(100);

/// One pass's `$/progress`: created with `window/workDoneProgress/create`,
/// then begin, reports (files checked of total) and end, sent in order with
/// the publications.
pub struct Progress<'s> {
    session: &'s Session,
    token: lsp::NumberOrString,
    title: &'static str,
    /// What `done` and `total` count ("files checked").
    unit: &'static str,
    began: bool,
    last: Option<(Instant, u32)>,
}

impl<'s> Progress<'s> {
    /// Asks the client for the token and waits (bounded) for its answer;
    /// None when it refuses or does not answer in time.
    pub fn start(
        client: &ProgressClient,
        session: &'s Session,
        token: String,
        title: &'static str,
        unit: &'static str,
    ) -> Option<Progress<'s>> {
        let token = lsp::NumberOrString::String(token);
        let (answered, answer) = mpsc::channel();
        let request = client.client.clone();
        let params = lsp::WorkDoneProgressCreateParams {
            token: token.clone(),
        };
        client.runtime.spawn(async move {
            let created = request
                .send_request::<lsp::request::WorkDoneProgressCreate>(params)
                .await
                .is_ok();
            let _ = answered.send(created);
        });
        if !answer.recv_timeout(CREATE_TIMEOUT).unwrap_or(false) {
            return None;
        }
        Some(Progress {
            session,
            token,
            title,
            unit,
            began: false,
            last: None,
        })
    }

    fn send(&self, value: lsp::WorkDoneProgress) {
        self.session.publisher.notify(
            "$/progress",
            lsp::ProgressParams {
                token: self.token.clone(),
                value: lsp::ProgressParamsValue::WorkDone(value),
            },
        );
    }

    pub fn report(&mut self, done: usize, total: usize) {
        let percentage = (done * 100).checked_div(total).unwrap_or(100) as u32;
        let message = Some(format!("{done} of {total} {}", self.unit));
        if !self.began {
            self.began = true;
            self.send(lsp::WorkDoneProgress::Begin(lsp::WorkDoneProgressBegin {
                title: self.title.into(),
                cancellable: Some(false),
                message,
                percentage: Some(percentage),
            }));
            self.last = Some((Instant::now(), percentage));
            return;
        }
        let due = match self.last {
            Some((at, was)) => done == total || (was != percentage && at.elapsed() >= REPORT_EVERY),
            None => true,
        };
        if !due
            || self
                .last
                .is_some_and(|(_, was)| was == percentage && done != total)
        {
            return;
        }
        self.last = Some((Instant::now(), percentage));
        self.send(lsp::WorkDoneProgress::Report(lsp::WorkDoneProgressReport {
            cancellable: Some(false),
            message,
            percentage: Some(percentage),
        }));
    }

    pub fn end(self) {
        self.send(lsp::WorkDoneProgress::End(lsp::WorkDoneProgressEnd {
            message: Some("done".into()),
        }));
    }
}
