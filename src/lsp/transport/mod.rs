//! The JSON-RPC transport over stdio, in place of `tower-lsp-server`'s own.
//! Its reader stops for good after one frame it cannot decode (its framed
//! reader ends on the first error), so one malformed message would end the
//! server; and its read buffer keeps the size of the largest message for the
//! life of the process (a 50 MB `didOpen`, 50 MB for good). Ours frames the
//! input itself, replaces each broken message with a request to
//! [`INVALID_MESSAGE_METHOD`] (whose handler replies with the JSON-RPC error
//! the client should see), and never buffers a large message's body, which
//! is decoded as it comes (`streamed`). The
//! service is driven exactly as `tower-lsp-server` drives it: up to four
//! handlers at once, first polled in the order their messages arrived.

mod framing;
mod large;
mod liberal;
mod streamed;
mod uri_repair;

use std::sync::Arc;

use futures::channel::mpsc as channel;
use futures::future::{self, BoxFuture, FutureExt};
use futures::{SinkExt, StreamExt};
use serde_json::json;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tower_lsp_server::jsonrpc::{Id, Request, Response};
use tower_service::Service;

pub use framing::INVALID_MESSAGE_METHOD;
use framing::{Framed, Kind, LargeBody, MAX_FRAME_BYTES, Rejection, frame, step};
use large::{Lifted, NotLifted};
use streamed::{READ_BYTES, Streamed};

use crate::lsp::foreground::{Busy, Foreground};

/// Starts the id given to a broken message whose own id could not be read,
/// so that its handler can answer; the reply goes out with `"id": null`, as
/// JSON-RPC says (a made-up id would leave a client waiting on its own).
/// The NUL keeps it apart from any id a client sends.
const MADE_UP_ID_PREFIX: &str = "\u{0}report-lsp-invalid-";

/// `response` with the id its request came with: null for a made-up one.
fn with_true_id(response: Response) -> Response {
    let (id, body) = response.into_parts();
    match &id {
        Id::String(made_up) if made_up.starts_with(MADE_UP_ID_PREFIX) => {
            Response::from_parts(Id::Null, body)
        }
        _ => Response::from_parts(id, body),
    }
}

/// A request or notification of the server's, as the wire carries it. A
/// method without params (`workspace/inlayHint/refresh`,
/// `workspace/diagnostic/refresh`) is built with `"params": null`, which
/// the base protocol does not allow (`params?: array | object`): the key is
/// left out instead.
fn server_message_body(request: &Request) -> Vec<u8> {
    let mut message = serde_json::to_value(request).expect("requests serialize");
    if let Some(fields) = message.as_object_mut()
        && fields.get("params").is_some_and(serde_json::Value::is_null)
    {
        fields.remove("params");
    }
    serde_json::to_vec(&message).expect("requests serialize")
}

/// Where the session stands, for answering what the service never sees.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    BeforeInitialize,
    Serving,
    ShutDown,
}

/// The answer to a `$/` request, when `request` is one: the server
/// implements none, and the protocol says such a request is answered with
/// `MethodNotFound` (only `$/` notifications may go unanswered), or, as any
/// request, with `ServerNotInitialized` before `initialize` and
/// `InvalidRequest` after `shutdown`. `tower-lsp-server` would drop it,
/// leaving the client waiting.
fn unimplemented_dollar_request(request: &Request, phase: Phase) -> Option<serde_json::Value> {
    let id = request.id()?;
    let method = request.method();
    let (code, message) = match phase {
        Phase::BeforeInitialize => (-32002, "the server is not initialized yet".to_string()),
        Phase::Serving => (-32601, format!("the server has no request {method}")),
        Phase::ShutDown => (-32600, "the server is shut down".to_string()),
    };
    method
        .starts_with("$/")
        .then(|| json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}))
}

/// Handlers run at once, as in `tower-lsp-server`.
const MAX_CONCURRENCY: usize = 4;

/// How large the server asks its input pipe to be. A pipe holds 64 KiB
/// unless widened: the editor writing a large frame (a didOpen of a
/// 37.6 MB report) then blocks every 64 KiB until the reader has taken
/// them, and the two wait on each other about 600 times. With 1 MiB, the
/// frame's last byte came 33–35 ms after the editor's write, not 56.
pub const INPUT_PIPE_BYTES: usize = 1 << 20;

/// Widens standard input to [`INPUT_PIPE_BYTES`] where it is a narrower
/// pipe (Linux); never narrows one. Where it is no pipe, or the system's
/// limits refuse, it stays as it was.
pub fn widen_input_pipe() {
    #[cfg(target_os = "linux")]
    // SAFETY: fcntl on standard input only reads or resizes a pipe's
    // buffer; on anything that is not a pipe it fails and changes nothing.
    unsafe {
        let size = libc::fcntl(0, libc::F_GETPIPE_SZ);
        if size >= 0 && (size as usize) < INPUT_PIPE_BYTES {
            libc::fcntl(0, libc::F_SETPIPE_SZ, INPUT_PIPE_BYTES as libc::c_int);
        }
    }
}

/// A message from the client.
#[derive(Debug)]
pub enum Incoming {
    Request(Request),
    Response(Response),
}

/// Reads framed messages, repairing what cannot be decoded.
pub struct Reader<R> {
    input: R,
    buffer: Vec<u8>,
    chunk: Vec<u8>,
    at_eof: bool,
    /// Bytes of an oversized body still to drop.
    skip_body: usize,
    /// Numbers the ids made up for broken messages.
    serial: u64,
    /// Told of each large message from its header on (see `foreground`).
    foreground: Option<Arc<Foreground>>,
    /// The large message being read, until the caller takes it with the message.
    busy: Option<Busy>,
    /// The large body being read, lifted as it comes.
    streamed: Option<Streamed>,
    /// Whether it is lifted on a thread beside the reads (where one can be
    /// had), not by the reader itself.
    lift_beside: bool,
}

impl<R: AsyncRead + Unpin> Reader<R> {
    pub fn new(input: R) -> Reader<R> {
        Reader {
            input,
            buffer: Vec::with_capacity(READ_BYTES),
            chunk: vec![0; READ_BYTES],
            at_eof: false,
            skip_body: 0,
            serial: 0,
            foreground: None,
            busy: None,
            streamed: None,
            lift_beside: true,
        }
    }

    /// Tells `foreground` of each large message while it is read, and
    /// hands the caller its [`Busy`] with it ([`Reader::busy`]).
    pub fn with_foreground(mut self, foreground: Arc<Foreground>) -> Reader<R> {
        self.foreground = Some(foreground);
        self
    }

    /// The [`Busy`] of the large message just returned: the caller drops
    /// it once the message is handled.
    pub fn busy(&mut self) -> Option<Busy> {
        self.busy.take()
    }

    /// The next message, or None at the end of the input.
    pub async fn next(&mut self) -> std::io::Result<Option<Incoming>> {
        loop {
            if let Some(streamed) = &mut self.streamed {
                if streamed.left == 0 {
                    let lifted = self.streamed.take().expect("a body").finish().await;
                    return Ok(Some(self.large(lifted)));
                }
                if self.at_eof {
                    self.streamed = None;
                    let rejection = Rejection::parse_error("the input ended inside a message body");
                    return Ok(Some(self.reject(rejection)));
                }
                let read = self.input.read(&mut self.chunk).await?;
                if read == 0 {
                    self.at_eof = true;
                    continue;
                }
                // What follows the body is the next message's.
                let body = read.min(streamed.left);
                self.buffer.extend_from_slice(&self.chunk[body..read]);
                streamed.feed(&mut self.chunk, body).await;
                continue;
            }
            if self.skip_body > 0 {
                let dropped = self.skip_body.min(self.buffer.len());
                self.buffer.drain(..dropped);
                self.skip_body -= dropped;
            }
            if self.skip_body == 0 {
                match step(&self.buffer, self.at_eof) {
                    Framed::NeedMore => {}
                    Framed::Large { header, length } => {
                        if self.busy.is_none() {
                            self.busy = self.foreground.as_ref().map(|f| f.enter());
                        }
                        self.consume(header);
                        let mut streamed = Streamed::start(length, self.lift_beside);
                        let len = self.buffer.len().min(length);
                        let mut read: Vec<u8> = self.buffer.drain(..len).collect();
                        streamed.feed(&mut read, len).await;
                        self.streamed = Some(streamed);
                        continue;
                    }
                    Framed::Body { frame, .. } => {
                        let missing = frame.saturating_sub(self.buffer.len());
                        self.buffer.reserve_exact(missing);
                    }
                    Framed::Skip(n) => {
                        self.buffer.drain(..n);
                        continue;
                    }
                    Framed::Pass { len, body, kind } => {
                        let parsed = decode(kind, &self.buffer[body..len]);
                        self.consume(len);
                        return Ok(Some(self.message(parsed)));
                    }
                    Framed::Reject { len, rejection } => {
                        self.consume(len);
                        return Ok(Some(self.reject(rejection)));
                    }
                    Framed::Oversized { header, body } => {
                        self.consume(header);
                        self.skip_body = body;
                        let message = format!(
                            "a message of {body} bytes is larger than the {MAX_FRAME_BYTES} bytes accepted"
                        );
                        return Ok(Some(self.reject(Rejection::parse_error(message))));
                    }
                }
            }
            if self.at_eof {
                return Ok(None);
            }
            let read = self.input.read(&mut self.chunk).await?;
            if read == 0 {
                self.at_eof = true;
            }
            self.buffer.extend_from_slice(&self.chunk[..read]);
        }
    }

    /// A large body's message, checked and decoded.
    fn large(&mut self, lifted: Result<Lifted, NotLifted>) -> Incoming {
        let parsed = match framing::check_large(lifted) {
            Ok(LargeBody::Request(value)) => serde_json::from_value(value).map(Incoming::Request),
            Ok(LargeBody::Plain(kind, body)) => decode(kind, &body),
            Err(rejection) => return self.reject(rejection),
        };
        self.message(parsed)
    }

    /// The message decoded, or the rejection of shapes the transport types
    /// still refuse (an odd id, say).
    fn message(&mut self, parsed: serde_json::Result<Incoming>) -> Incoming {
        match parsed {
            Ok(message) => message,
            Err(error) => self.reject(Rejection {
                code: -32600,
                message: format!("the message is not a valid JSON-RPC message: {error}"),
                id: None,
            }),
        }
    }

    fn consume(&mut self, len: usize) {
        self.buffer.drain(..len);
        // Do not keep the memory of a message of near a megabyte for good
        // (a larger one's body never comes here).
        if self.buffer.capacity() > 1 << 20 && self.buffer.len() < 1 << 16 {
            self.buffer.shrink_to(READ_BYTES);
        }
    }

    fn reject(&mut self, rejection: Rejection) -> Incoming {
        self.serial += 1;
        let id = rejection
            .id
            .clone()
            .unwrap_or_else(|| json!(format!("{MADE_UP_ID_PREFIX}{}", self.serial)));
        let request = json!({
            "jsonrpc": "2.0",
            "id": id,
            "method": INVALID_MESSAGE_METHOD,
            "params": {"code": rejection.code, "message": rejection.message},
        });
        Incoming::Request(serde_json::from_value(request).expect("a well-formed request"))
    }
}

/// A checked body of `kind`, decoded.
fn decode(kind: Kind, body: &[u8]) -> serde_json::Result<Incoming> {
    match kind {
        Kind::Request => serde_json::from_slice(body).map(Incoming::Request),
        Kind::Response => serde_json::from_slice(body).map(Incoming::Response),
    }
}

/// How serving ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// `exit` after `shutdown`, or the input ended.
    Clean,
    /// `exit` without `shutdown` first: the protocol asks for exit code 1.
    ExitWithoutShutdown,
}

/// Serves `service` over `input`/`output` until the client exits or the input ends.
pub async fn serve<I, O, S>(
    input: I,
    mut output: O,
    mut service: S,
    socket: tower_lsp_server::ClientSocket,
    notifications: channel::UnboundedReceiver<Vec<u8>>,
    foreground: Option<Arc<Foreground>>,
) -> End
where
    I: AsyncRead + Unpin,
    O: AsyncWrite + Unpin,
    S: Service<Request, Response = Option<Response>>,
    S::Future: Send + 'static,
    S::Error: std::fmt::Display + Send,
{
    let mut end = End::Clean;
    let (client_requests, mut client_responses) = socket.split();
    let (client_requests, stop_client_requests) = futures::stream::abortable(client_requests);
    let (frames, mut frames_out) = channel::unbounded::<Vec<u8>>();
    let log_frames = frames.clone();
    let answer_frames = frames.clone();
    let (mut tasks, tasks_out) = channel::channel::<BoxFuture<'static, Option<Response>>>(64);

    let responses = {
        let frames = frames.clone();
        tasks_out
            .buffer_unordered(MAX_CONCURRENCY)
            .filter_map(future::ready)
            .for_each(move |response| {
                let _ = frames.unbounded_send(frame(
                    &serde_json::to_vec(&with_true_id(response)).expect("responses serialize"),
                ));
                future::ready(())
            })
    };
    // Notifications the server serialized itself (diagnostics): framed as they are.
    let (notifications, stop_notifications) = futures::stream::abortable(notifications);
    let notifications = {
        let frames = frames.clone();
        notifications.for_each(move |body| {
            let _ = frames.unbounded_send(frame(&body));
            future::ready(())
        })
    };
    let server_requests = client_requests.for_each(move |request| {
        let _ = frames.unbounded_send(frame(&server_message_body(&request)));
        future::ready(())
    });
    let write = async move {
        while let Some(bytes) = frames_out.next().await {
            if output
                .write_all(&bytes)
                .await
                .and(output.flush().await)
                .is_err()
            {
                break;
            }
        }
    };
    let read = async {
        let mut shutdown_asked = false;
        let mut initialize_asked = false;
        let mut reader = Reader::new(input);
        if let Some(foreground) = foreground {
            reader = reader.with_foreground(foreground);
        }
        loop {
            let message = match reader.next().await {
                Ok(Some(message)) => message,
                Ok(None) => break,
                Err(error) => {
                    eprintln!("report-lsp: reading the input failed: {error}");
                    tracing::error!("reading the input failed: {error}");
                    break;
                }
            };
            // A large message is busy until its handler is done (the task below).
            let busy = reader.busy();
            match message {
                Incoming::Request(request) => {
                    let request = match uri_repair::check(liberal::accept(request)) {
                        uri_repair::Checked::Fine(request) => request,
                        uri_repair::Checked::Logged {
                            request,
                            message,
                            refused,
                        } => {
                            eprintln!("report-lsp: {message}");
                            tracing::error!("{message}");
                            let log = json!({
                                "jsonrpc": "2.0",
                                "method": "window/logMessage",
                                // 1 is an error, 2 a warning.
                                "params": {"type": if refused { 1 } else { 2 }, "message": message},
                            });
                            let _ = log_frames.unbounded_send(frame(log.to_string().as_bytes()));
                            request
                        }
                    };
                    let phase = match (initialize_asked, shutdown_asked) {
                        (false, _) => Phase::BeforeInitialize,
                        (true, false) => Phase::Serving,
                        (true, true) => Phase::ShutDown,
                    };
                    initialize_asked |= request.method() == "initialize";
                    if let Some(answer) = unimplemented_dollar_request(&request, phase) {
                        let _ = answer_frames.unbounded_send(frame(answer.to_string().as_bytes()));
                        continue;
                    }
                    // The protocol says the server exits right after `exit`; some clients keep stdin open.
                    let exit = request.method() == "exit";
                    shutdown_asked |= request.method() == "shutdown";
                    if exit && !shutdown_asked {
                        end = End::ExitWithoutShutdown;
                    }
                    if future::poll_fn(|cx| service.poll_ready(cx)).await.is_err() {
                        break;
                    }
                    let call = service.call(request);
                    let task = async move {
                        let _busy = busy;
                        call.await.unwrap_or_else(|error| {
                            eprintln!("report-lsp: {error}");
                            tracing::error!("{error}");
                            None
                        })
                    };
                    if tasks.send(task.boxed()).await.is_err() || exit {
                        break;
                    }
                }
                Incoming::Response(response) => {
                    let _ = client_responses.send(response).await;
                }
            }
        }
        tasks.close_channel();
        stop_client_requests.abort();
        stop_notifications.abort();
        // The writer ends once every sender is gone.
        drop(log_frames);
        drop(answer_frames);
    };
    futures::join!(read, responses, server_requests, notifications, write);
    end
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;

    /// Every message read from `input`, as JSON, the same with large bodies lifted
    /// beside the reads and by the reader itself.
    async fn run(input: &[u8]) -> Vec<Value> {
        let beside = read_all(input, true).await;
        assert_eq!(read_all(input, false).await, beside);
        beside
    }

    async fn read_all<R: AsyncRead + Unpin>(input: R, lift_beside: bool) -> Vec<Value> {
        let mut reader = Reader::new(input);
        reader.lift_beside = lift_beside;
        let mut bodies = Vec::new();
        while let Some(message) = reader.next().await.unwrap() {
            bodies.push(match message {
                Incoming::Request(request) => serde_json::to_value(request).unwrap(),
                Incoming::Response(response) => serde_json::to_value(response).unwrap(),
            });
        }
        bodies
    }

    fn rt() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
    }

    fn framed(body: &[u8]) -> Vec<u8> {
        let mut frame = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
        frame.extend_from_slice(body);
        frame
    }

    /// A large message is busy from its header until the caller drops what
    /// it hands over with it, whatever it held (a didOpen, a broken body, a
    /// frame cut off by the end of the input); a small one never is.
    #[test]
    fn each_large_message_is_busy_until_its_handler_is_done() {
        let text = "x".repeat(large::LARGE_FRAME_BYTES);
        let open = json!({"jsonrpc": "2.0", "method": "textDocument/didOpen",
            "params": {"textDocument": {"uri": "file:///a.json", "languageId": "json", "version": 1, "text": text}}});
        let small = json!({"jsonrpc": "2.0", "method": "initialized", "params": {}});
        let broken = format!("{{\"jsonrpc\": \"2.0\", \"method\": \"x\", \"params\": \"{text}");
        let mut cut =
            format!("Content-Length: {}\r\n\r\n", 2 * large::LARGE_FRAME_BYTES).into_bytes();
        cut.extend_from_slice(text.as_bytes());
        let cases: [(&str, Vec<u8>, bool); 4] = [
            ("a didOpen", framed(open.to_string().as_bytes()), true),
            (
                "a small message",
                framed(small.to_string().as_bytes()),
                false,
            ),
            ("a broken large body", framed(broken.as_bytes()), true),
            ("a frame cut off by the end", cut, true),
        ];
        for (what, input, large) in cases {
            let foreground = Arc::new(Foreground::default());
            let mut reader = Reader::new(&input[..]).with_foreground(foreground.clone());
            let message = rt().block_on(reader.next()).unwrap();
            assert!(message.is_some(), "{what}: a message");
            let busy = reader.busy();
            assert_eq!(busy.is_some(), large, "{what}");
            assert_eq!(foreground.is_busy(), large, "{what}");
            drop(busy);
            assert!(!foreground.is_busy(), "{what}: done with it");
        }
    }

    #[test]
    fn a_server_request_without_params_leaves_the_key_out() {
        let refresh = Request::build("workspace/inlayHint/refresh")
            .id(7)
            .params(Value::Null)
            .finish();
        let body: Value = serde_json::from_slice(&server_message_body(&refresh)).unwrap();
        assert_eq!(
            body,
            json!({"jsonrpc": "2.0", "id": 7, "method": "workspace/inlayHint/refresh"})
        );
        let log = Request::build("window/logMessage")
            .params(json!({"type": 3, "message": "m"}))
            .finish();
        let body: Value = serde_json::from_slice(&server_message_body(&log)).unwrap();
        assert_eq!(body["params"]["message"], "m");
    }

    #[test]
    fn only_a_dollar_request_gets_an_answer_of_the_transports() {
        let request: Request = serde_json::from_value(
            json!({"jsonrpc": "2.0", "id": 5, "method": "$/anything", "params": {}}),
        )
        .unwrap();
        let answer = unimplemented_dollar_request(&request, Phase::Serving).unwrap();
        assert_eq!(answer["id"], 5);
        assert_eq!(answer["error"]["code"], -32601);
        let early = unimplemented_dollar_request(&request, Phase::BeforeInitialize).unwrap();
        assert_eq!(early["error"]["code"], -32002);
        let late = unimplemented_dollar_request(&request, Phase::ShutDown).unwrap();
        assert_eq!(late["error"]["code"], -32600);
        let notification: Request = serde_json::from_value(
            json!({"jsonrpc": "2.0", "method": "$/setTrace", "params": {"value": "off"}}),
        )
        .unwrap();
        assert!(unimplemented_dollar_request(&notification, Phase::Serving).is_none());
        let plain: Request =
            serde_json::from_value(json!({"jsonrpc": "2.0", "id": 6, "method": "shutdown"}))
                .unwrap();
        assert!(unimplemented_dollar_request(&plain, Phase::Serving).is_none());
    }

    #[test]
    fn good_frames_pass_untouched() {
        let good = frame(br#"{"jsonrpc": "2.0", "id": 1, "method": "x", "params": {}}"#);
        let mut input = good.clone();
        input.extend(frame(br#"{"jsonrpc":"2.0","method":"n"}"#));
        let bodies = rt().block_on(run(&input));
        assert_eq!(bodies.len(), 2);
        assert_eq!(bodies[0]["id"], 1);
        assert_eq!(bodies[1]["method"], "n");
    }

    #[test]
    fn a_body_still_coming_announces_its_frame_and_is_read_whole() {
        let text = "路😀\n\"".repeat(200_000);
        let body =
            serde_json::to_vec(&json!({"jsonrpc": "2.0", "method": "n", "params": {"text": text}}))
                .unwrap();
        let framed = frame(&body);
        // Large: lifted as it comes, from its header on.
        assert!(framed.len() > large::LARGE_FRAME_BYTES);
        for end in [framed.len() - body.len(), framed.len() - 1, framed.len()] {
            assert_eq!(
                step(&framed[..end], false),
                Framed::Large {
                    header: framed.len() - body.len(),
                    length: body.len(),
                }
            );
        }
        let small = frame(&body[..1000]);
        assert_eq!(
            step(&small[..small.len() - 1], false),
            Framed::Body {
                frame: small.len(),
                length: 1000,
            }
        );
        let bodies = rt().block_on(run(&framed));
        assert_eq!(bodies.len(), 1);
        assert_eq!(bodies[0]["params"]["text"], text);
    }

    #[test]
    fn large_frames_are_checked_and_refused_as_small_ones() {
        let text = "{\"k\": \"路\"}\n".repeat(large::LARGE_FRAME_BYTES / 8);
        let good = json!({"jsonrpc": "2.0", "method": "n", "params": {"text": text}});
        let mut input = frame(&serde_json::to_vec(&good).unwrap());
        for broken in [
            json!({"jsonrpc": "1.0", "method": "n", "params": {"text": text}}),
            json!({"jsonrpc": "2.0", "id": 4, "method": "n", "params": 3, "text": text}),
            json!({"jsonrpc": "2.0", "params": {"text": text}}),
        ] {
            input.extend(frame(&serde_json::to_vec(&broken).unwrap()));
        }
        // A raw control character in the text, and a frame cut short.
        let literal = serde_json::to_string(&text).unwrap();
        let with_control = format!("{}\u{1}\"", &literal[..literal.len() - 1]);
        let raw =
            format!(r#"{{"jsonrpc": "2.0", "method": "n", "params": {{"text": {with_control}}}}}"#);
        let mut lifting = large::Lifting::new(raw.len());
        lifting.feed(raw.as_bytes());
        assert!(lifting.finish().is_err());
        input.extend(frame(raw.as_bytes()));
        let cut = serde_json::to_vec(&good).unwrap();
        input.extend(frame(&cut[..cut.len() - 2]));
        let bodies = rt().block_on(run(&input));
        assert_eq!(bodies[0], good);
        let codes: Vec<&Value> = bodies[1..].iter().map(|b| &b["params"]["code"]).collect();
        assert_eq!(codes, [-32600, -32600, -32600, -32700, -32700]);
        assert!(
            bodies[1..]
                .iter()
                .all(|b| b["method"] == INVALID_MESSAGE_METHOD)
        );
    }

    #[test]
    fn broken_frames_become_invalid_message_requests() {
        let mut input = frame(b"{not json");
        input.extend(frame(b"[1, 2]"));
        input.extend(frame(br#"{"jsonrpc": "2.0", "id": 7, "method": 3}"#));
        input.extend(frame(
            b"{\"jsonrpc\": \"2.0\", \"id\": 8, \"method\": \"\xff\"}",
        ));
        input.extend(b"Content-Type: x\r\n\r\n");
        input.extend(b"garbage before a header ");
        input.extend(frame(br#"{"jsonrpc": "2.0", "id": 9, "method": "ok"}"#));
        let bodies = rt().block_on(run(&input));
        let methods: Vec<&str> = bodies
            .iter()
            .map(|b| b["method"].as_str().unwrap())
            .collect();
        // Four broken bodies; the header block without Content-Length and the garbage
        // have no frame to answer for, so they are skipped up to the next header.
        assert_eq!(
            methods,
            [
                INVALID_MESSAGE_METHOD,
                INVALID_MESSAGE_METHOD,
                INVALID_MESSAGE_METHOD,
                INVALID_MESSAGE_METHOD,
                "ok"
            ]
        );
        assert_eq!(bodies[0]["params"]["code"], -32700);
        assert_eq!(bodies[1]["params"]["code"], -32600);
        // The broken request's own id is kept, so the client can match the error.
        assert_eq!(bodies[2]["id"], 7);
    }

    #[test]
    fn a_short_content_length_resynchronizes_on_the_next_header() {
        let body = br#"{"jsonrpc": "2.0", "method": "initialized", "params": {}}"#;
        let mut input = format!("Content-Length: {}\r\n\r\n", body.len() - 10).into_bytes();
        input.extend_from_slice(body);
        input.extend(frame(br#"{"jsonrpc": "2.0", "id": 2, "method": "ok"}"#));
        let bodies = rt().block_on(run(&input));
        assert_eq!(bodies.last().unwrap()["method"], "ok");
        assert_eq!(bodies[0]["method"], INVALID_MESSAGE_METHOD);
    }

    #[test]
    fn responses_with_null_results_and_null_ids_pass() {
        let mut input = frame(br#"{"jsonrpc": "2.0", "id": 0, "result": null}"#);
        input.extend(frame(
            br#"{"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "x"}}"#,
        ));
        let bodies = rt().block_on(run(&input));
        assert_eq!(bodies.len(), 2);
        assert!(
            bodies.iter().all(|b| b.get("method").is_none()),
            "{bodies:?}"
        );
    }

    #[test]
    fn oversized_frames_are_skipped_without_buffering() {
        let mut input = format!("Content-Length: {}\r\n\r\n", MAX_FRAME_BYTES + 1).into_bytes();
        input.extend(vec![b' '; 1000]);
        let bodies = rt().block_on(run(&input));
        assert_eq!(bodies.len(), 1);
        assert_eq!(bodies[0]["method"], INVALID_MESSAGE_METHOD);
    }

    #[test]
    fn frames_split_across_reads_are_reassembled() {
        let input = frame(br#"{"jsonrpc": "2.0", "id": 1, "method": "x"}"#);
        let (mut writer, reader) = tokio::io::duplex(4);
        let bodies = rt().block_on(async move {
            let feeder = async move {
                for byte in input {
                    writer.write_all(&[byte]).await.unwrap();
                }
                drop(writer);
            };
            let (_, bodies) = tokio::join!(feeder, read_all(reader, true));
            bodies
        });
        assert_eq!(bodies.len(), 1);
        assert_eq!(bodies[0]["method"], "x");
    }

    /// Large bodies in reads of any size, each with the next message in
    /// its last read, then one the input cuts short: every byte where it
    /// belongs, whoever lifts them.
    #[test]
    fn large_bodies_come_in_reads_of_any_size() {
        let text = "路😀 \"q\" \\ \u{1}\n".repeat(large::LARGE_FRAME_BYTES / 16);
        let open = json!({"jsonrpc": "2.0", "method": "n", "params": {"text": text}});
        let small = json!({"jsonrpc": "2.0", "id": 2, "method": "x"});
        let mut input = Vec::new();
        for message in [&open, &small, &open, &small] {
            input.extend(frame(&serde_json::to_vec(message).unwrap()));
        }
        let cut = frame(&serde_json::to_vec(&open).unwrap());
        input.extend(&cut[..cut.len() / 2]);
        for (size, lift_beside) in [(7, true), (4096, false), (65_537, true), (1 << 20, false)] {
            let (mut writer, reader) = tokio::io::duplex(size);
            let input = input.clone();
            let bodies = rt().block_on(async move {
                let feeder = async move {
                    for piece in input.chunks(size) {
                        writer.write_all(piece).await.unwrap();
                    }
                    drop(writer);
                };
                let (_, bodies) = tokio::join!(feeder, read_all(reader, lift_beside));
                bodies
            });
            assert_eq!(bodies.len(), 5, "reads of {size}");
            assert_eq!([&bodies[0], &bodies[2]], [&open, &open], "reads of {size}");
            assert_eq!(
                [&bodies[1]["id"], &bodies[3]["id"]],
                [2, 2],
                "reads of {size}"
            );
            assert_eq!(bodies[4]["params"]["code"], -32700, "reads of {size}");
        }
    }
}
