//! The JSON-RPC transport over stdio, in place of `tower-lsp-server`'s own.
//! Its reader stops for good after one frame it cannot decode (its framed
//! reader ends on the first error), so one malformed message would end the
//! server; and its read buffer keeps the size of the largest message for the
//! life of the process (a 50 MB `didOpen`, 50 MB for good). Ours frames the
//! input itself, replaces each broken message with a request to
//! [`INVALID_MESSAGE_METHOD`] (whose handler replies with the JSON-RPC error
//! the client should see), and shrinks its buffer after a large message. The
//! service is driven exactly as `tower-lsp-server` drives it: up to four
//! handlers at once, first polled in the order their messages arrived.

use futures::channel::mpsc as channel;
use futures::future::{self, BoxFuture, FutureExt};
use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tower_lsp_server::jsonrpc::{Request, Response};
use tower_service::Service;

/// Handlers run at once, as in `tower-lsp-server`.
const MAX_CONCURRENCY: usize = 4;

/// The method a broken message is rewritten to.
pub const INVALID_MESSAGE_METHOD: &str = "report-lsp/invalidMessage";

/// Frames larger than this are skipped, not buffered.
const MAX_FRAME_BYTES: usize = 1 << 30;

const CONTENT_LENGTH: &[u8] = b"content-length:";

/// Why a frame was rejected: the JSON-RPC error to answer with.
#[derive(Clone, Debug, PartialEq)]
pub struct Rejection {
    pub code: i64,
    pub message: String,
    /// The id of the broken request, when it could be read.
    pub id: Option<Value>,
}

impl Rejection {
    fn parse_error(message: impl Into<String>) -> Rejection {
        Rejection {
            code: -32700,
            message: message.into(),
            id: None,
        }
    }
}

pub fn frame(body: &[u8]) -> Vec<u8> {
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body);
    out
}

/// What one step of the framer found in the buffer.
#[derive(Debug, PartialEq)]
enum Step {
    /// More input is needed.
    NeedMore,
    /// Drop this many bytes of garbage before a header.
    Skip(usize),
    /// A complete frame of `len` bytes whose body (from `body`) is good.
    Pass { len: usize, body: usize, kind: Kind },
    /// A broken frame of `len` bytes (headers and body) to replace.
    Reject { len: usize, rejection: Rejection },
    /// A frame too large to buffer: drop its header, then skip `body` bytes as they come.
    Oversized { header: usize, body: usize },
}

/// Looks at the start of `buffer` (`at_eof`: no more input will come).
fn step(buffer: &[u8], at_eof: bool) -> Step {
    if buffer.is_empty() {
        return Step::NeedMore;
    }
    // Resynchronize on the next header when the buffer does not start with one.
    let Some(start) = find_ascii_case_insensitive(buffer, CONTENT_LENGTH) else {
        return match at_eof {
            true => Step::Skip(buffer.len()),
            // Keep a tail that may be the start of a header split across reads.
            false if buffer.len() > CONTENT_LENGTH.len() => {
                Step::Skip(buffer.len() - CONTENT_LENGTH.len())
            }
            false => Step::NeedMore,
        };
    };
    if start > 0 {
        return Step::Skip(start);
    }
    let Some(header_end) = find(buffer, b"\r\n\r\n") else {
        return match at_eof || buffer.len() > 8192 {
            true => Step::Skip(CONTENT_LENGTH.len()),
            false => Step::NeedMore,
        };
    };
    let headers = &buffer[..header_end];
    let body_start = header_end + 4;
    let length = std::str::from_utf8(headers).ok().and_then(|headers| {
        headers.split("\r\n").find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.trim()
                .eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse::<usize>().ok())?
        })
    });
    let Some(length) = length else {
        return Step::Reject {
            len: body_start,
            rejection: Rejection::parse_error(
                "the Content-Length header is missing or not a number",
            ),
        };
    };
    if length > MAX_FRAME_BYTES {
        return Step::Oversized {
            header: body_start,
            body: length,
        };
    }
    if buffer.len() < body_start + length {
        return match at_eof {
            true => Step::Reject {
                len: buffer.len(),
                rejection: Rejection::parse_error("the input ended inside a message body"),
            },
            false => Step::NeedMore,
        };
    }
    let body = &buffer[body_start..body_start + length];
    match check_body(body) {
        Ok(kind) => Step::Pass {
            len: body_start + length,
            body: body_start,
            kind,
        },
        Err(rejection) => Step::Reject {
            len: body_start + length,
            rejection,
        },
    }
}

/// The fields of a JSON-RPC message that decide whether the transport can
/// take it. Everything else is skipped without being built (`IgnoredAny`), so
/// checking a 50 MB `didOpen` allocates nothing of its size.
#[derive(serde::Deserialize)]
struct Envelope {
    jsonrpc: Option<String>,
    /// `Some(Value::Null)` for `"id": null`, None when absent.
    #[serde(default, deserialize_with = "present")]
    id: Option<Value>,
    method: Option<Value>,
    params: Option<Shape>,
    /// Present even when null (`"result": null` is a valid response).
    #[serde(default)]
    result: Presence,
    #[serde(default)]
    error: Presence,
}

fn present<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    <Value as serde::Deserialize>::deserialize(deserializer).map(Some)
}

/// Whether a key was there, whatever its value.
#[derive(Default)]
struct Presence(bool);

impl<'de> serde::Deserialize<'de> for Presence {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Presence, D::Error> {
        <serde::de::IgnoredAny as serde::Deserialize>::deserialize(deserializer)
            .map(|_| Presence(true))
    }
}

/// Whether a value is a container, read without building it.
enum Shape {
    Container,
    Scalar,
}

impl<'de> serde::Deserialize<'de> for Shape {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Shape, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Shape;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Shape, A::Error> {
                while map
                    .next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?
                    .is_some()
                {}
                Ok(Shape::Container)
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Shape, A::Error> {
                while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
                Ok(Shape::Container)
            }
            fn visit_bool<E>(self, _: bool) -> Result<Shape, E> {
                Ok(Shape::Scalar)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Shape, E> {
                Ok(Shape::Scalar)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Shape, E> {
                Ok(Shape::Scalar)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Shape, E> {
                Ok(Shape::Scalar)
            }
            fn visit_str<E>(self, _: &str) -> Result<Shape, E> {
                Ok(Shape::Scalar)
            }
            fn visit_unit<E>(self) -> Result<Shape, E> {
                Ok(Shape::Scalar)
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

/// Which side a message comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Request,
    Response,
}

/// A body the transport can decode: a JSON object that is a JSON-RPC 2.0 message.
fn check_body(body: &[u8]) -> Result<Kind, Rejection> {
    let envelope: Envelope = match serde_json::from_slice(body) {
        Ok(envelope) => envelope,
        Err(error) if error.is_data() => {
            return Err(Rejection {
                code: -32600,
                message: format!("the message is not a JSON-RPC object: {error}"),
                id: None,
            });
        }
        Err(error) => {
            return Err(Rejection::parse_error(format!(
                "the message is not JSON: {error}"
            )));
        }
    };
    let usable_id = envelope
        .id
        .clone()
        .filter(|id| id.is_string() || id.is_number());
    let invalid = |message: &str| Rejection {
        code: -32600,
        message: message.to_string(),
        id: usable_id.clone(),
    };
    if envelope.jsonrpc.as_deref() != Some("2.0") {
        return Err(invalid("the message lacks \"jsonrpc\": \"2.0\""));
    }
    let id_ok = envelope
        .id
        .as_ref()
        .is_none_or(|id| id.is_string() || id.is_number() || id.is_null());
    let is_request = envelope.method.as_ref().is_some_and(Value::is_string);
    let is_response = envelope.id.is_some() && (envelope.result.0 || envelope.error.0);
    if !id_ok || !(is_request || is_response) {
        return Err(invalid(
            "the message is neither a request, a notification nor a response",
        ));
    }
    // The transport decodes params into typed structures; only objects and arrays are valid.
    if matches!(envelope.params, Some(Shape::Scalar)) {
        return Err(invalid("\"params\" must be an object or an array"));
    }
    Ok(if is_request {
        Kind::Request
    } else {
        Kind::Response
    })
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn find_ascii_case_insensitive(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|w| w.eq_ignore_ascii_case(needle))
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
}

impl<R: AsyncRead + Unpin> Reader<R> {
    pub fn new(input: R) -> Reader<R> {
        Reader {
            input,
            buffer: Vec::with_capacity(64 * 1024),
            chunk: vec![0; 64 * 1024],
            at_eof: false,
            skip_body: 0,
            serial: 0,
        }
    }

    /// The next message, or None at the end of the input.
    pub async fn next(&mut self) -> std::io::Result<Option<Incoming>> {
        loop {
            if self.skip_body > 0 {
                let dropped = self.skip_body.min(self.buffer.len());
                self.buffer.drain(..dropped);
                self.skip_body -= dropped;
            }
            if self.skip_body == 0 {
                match step(&self.buffer, self.at_eof) {
                    Step::NeedMore => {}
                    Step::Skip(n) => {
                        self.buffer.drain(..n);
                        continue;
                    }
                    Step::Pass { len, body, kind } => {
                        let parsed = match kind {
                            Kind::Request => serde_json::from_slice(&self.buffer[body..len])
                                .map(Incoming::Request),
                            Kind::Response => serde_json::from_slice(&self.buffer[body..len])
                                .map(Incoming::Response),
                        };
                        self.consume(len);
                        return Ok(Some(match parsed {
                            Ok(message) => message,
                            // Checked shapes the transport types still refuse (an odd id, say).
                            Err(error) => self.reject(Rejection {
                                code: -32600,
                                message: format!(
                                    "the message is not a valid JSON-RPC message: {error}"
                                ),
                                id: None,
                            }),
                        }));
                    }
                    Step::Reject { len, rejection } => {
                        self.consume(len);
                        return Ok(Some(self.reject(rejection)));
                    }
                    Step::Oversized { header, body } => {
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

    fn consume(&mut self, len: usize) {
        self.buffer.drain(..len);
        // Do not keep the memory of a huge message (a didOpen of a big report) for good.
        if self.buffer.capacity() > 1 << 20 && self.buffer.len() < 1 << 16 {
            self.buffer.shrink_to(1 << 16);
        }
    }

    fn reject(&mut self, rejection: Rejection) -> Incoming {
        self.serial += 1;
        let id = rejection
            .id
            .clone()
            .unwrap_or_else(|| json!(format!("report-lsp-invalid-{}", self.serial)));
        let request = json!({
            "jsonrpc": "2.0",
            "id": id,
            "method": INVALID_MESSAGE_METHOD,
            "params": {"code": rejection.code, "message": rejection.message},
        });
        Incoming::Request(serde_json::from_value(request).expect("a well-formed request"))
    }
}

/// Serves `service` over `input`/`output` until the client exits or the input ends.
pub async fn serve<I, O, S>(
    input: I,
    mut output: O,
    mut service: S,
    socket: tower_lsp_server::ClientSocket,
    notifications: channel::UnboundedReceiver<Vec<u8>>,
) where
    I: AsyncRead + Unpin,
    O: AsyncWrite + Unpin,
    S: Service<Request, Response = Option<Response>>,
    S::Future: Send + 'static,
    S::Error: std::fmt::Display + Send,
{
    let (client_requests, mut client_responses) = socket.split();
    let (client_requests, stop_client_requests) = futures::stream::abortable(client_requests);
    let (frames, mut frames_out) = channel::unbounded::<Vec<u8>>();
    let (mut tasks, tasks_out) = channel::channel::<BoxFuture<'static, Option<Response>>>(64);

    let responses = {
        let frames = frames.clone();
        tasks_out
            .buffer_unordered(MAX_CONCURRENCY)
            .filter_map(future::ready)
            .for_each(move |response| {
                let _ = frames.unbounded_send(frame(
                    &serde_json::to_vec(&response).expect("responses serialize"),
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
        let _ = frames.unbounded_send(frame(
            &serde_json::to_vec(&request).expect("requests serialize"),
        ));
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
    let read = async move {
        let mut reader = Reader::new(input);
        loop {
            let message = match reader.next().await {
                Ok(Some(message)) => message,
                Ok(None) => break,
                Err(error) => {
                    eprintln!("report-lsp: reading the input failed: {error}");
                    break;
                }
            };
            match message {
                Incoming::Request(request) => {
                    // The protocol says the server exits right after `exit`; some clients keep stdin open.
                    let exit = request.method() == "exit";
                    if future::poll_fn(|cx| service.poll_ready(cx)).await.is_err() {
                        break;
                    }
                    let call = service.call(request);
                    let task = async move {
                        call.await.unwrap_or_else(|error| {
                            eprintln!("report-lsp: {error}");
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
    };
    futures::join!(read, responses, server_requests, notifications, write);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every message read from `input`, as JSON.
    async fn run(input: &[u8]) -> Vec<Value> {
        read_all(input).await
    }

    async fn read_all<R: AsyncRead + Unpin>(input: R) -> Vec<Value> {
        let mut reader = Reader::new(input);
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
            let (_, bodies) = tokio::join!(feeder, read_all(reader));
            bodies
        });
        assert_eq!(bodies.len(), 1);
        assert_eq!(bodies[0]["method"], "x");
    }
}
