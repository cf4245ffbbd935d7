//! A guard in front of the JSON-RPC transport. `tower-lsp-server` stops
//! reading for good after one frame it cannot decode (its framed reader ends
//! on the first error), so one malformed message would end the server. This
//! layer frames stdin itself, passes well-formed messages through untouched,
//! and replaces each broken one with a request to [`INVALID_MESSAGE_METHOD`],
//! whose handler replies with the JSON-RPC error the client should see.

use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

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

    /// The well-formed request that stands for the broken frame.
    fn to_request(&self, serial: u64) -> Vec<u8> {
        let id = self
            .id
            .clone()
            .unwrap_or_else(|| json!(format!("report-lsp-invalid-{serial}")));
        let body = json!({
            "jsonrpc": "2.0",
            "id": id,
            "method": INVALID_MESSAGE_METHOD,
            "params": {"code": self.code, "message": self.message},
        });
        frame(body.to_string().as_bytes())
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
    /// A complete frame of `len` bytes whose body is good.
    Pass { len: usize },
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
        Ok(()) => Step::Pass {
            len: body_start + length,
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

/// A body the transport can decode: a JSON object that is a JSON-RPC 2.0 message.
fn check_body(body: &[u8]) -> Result<(), Rejection> {
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
    Ok(())
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn find_ascii_case_insensitive(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|w| w.eq_ignore_ascii_case(needle))
}

/// Copies frames from `input` to `output`, repairing what the transport cannot take.
pub async fn guard<R, W>(mut input: R, mut output: W) -> std::io::Result<()>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut buffer: Vec<u8> = Vec::with_capacity(64 * 1024);
    let mut chunk = vec![0u8; 64 * 1024];
    let mut at_eof = false;
    let mut skip_body = 0usize;
    let mut serial = 0u64;
    loop {
        if skip_body > 0 {
            let dropped = skip_body.min(buffer.len());
            buffer.drain(..dropped);
            skip_body -= dropped;
        }
        if skip_body == 0 {
            match step(&buffer, at_eof) {
                Step::NeedMore => {}
                Step::Skip(n) => {
                    buffer.drain(..n);
                    continue;
                }
                Step::Pass { len } => {
                    output.write_all(&buffer[..len]).await?;
                    output.flush().await?;
                    buffer.drain(..len);
                    // Do not keep the memory of a huge frame (a didOpen of a big report) for good.
                    if buffer.capacity() > 1 << 20 && buffer.len() < 1 << 16 {
                        buffer.shrink_to(1 << 16);
                    }
                    continue;
                }
                Step::Reject { len, rejection } => {
                    serial += 1;
                    output.write_all(&rejection.to_request(serial)).await?;
                    output.flush().await?;
                    buffer.drain(..len);
                    continue;
                }
                Step::Oversized { header, body } => {
                    serial += 1;
                    let rejection = Rejection::parse_error(format!(
                        "a message of {body} bytes is larger than the {MAX_FRAME_BYTES} bytes accepted"
                    ));
                    output.write_all(&rejection.to_request(serial)).await?;
                    output.flush().await?;
                    buffer.drain(..header);
                    skip_body = body;
                    continue;
                }
            }
        }
        if at_eof {
            return output.shutdown().await;
        }
        let read = input.read(&mut chunk).await?;
        if read == 0 {
            at_eof = true;
        }
        buffer.extend_from_slice(&chunk[..read]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn run(input: &[u8]) -> Vec<Value> {
        let mut output = Vec::new();
        guard(input, &mut output).await.unwrap();
        let mut bodies = Vec::new();
        let mut rest = &output[..];
        while !rest.is_empty() {
            let Step::Pass { len } = step(rest, true) else {
                panic!(
                    "the guard wrote a frame the transport cannot take: {:?}",
                    String::from_utf8_lossy(rest)
                );
            };
            let header_end = find(rest, b"\r\n\r\n").unwrap() + 4;
            bodies.push(serde_json::from_slice(&rest[header_end..len]).unwrap());
            rest = &rest[len..];
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
            let mut output = Vec::new();
            let (_, result) = tokio::join!(feeder, guard(reader, &mut output));
            result.unwrap();
            output
        });
        assert!(
            String::from_utf8(bodies)
                .unwrap()
                .ends_with(r#"{"jsonrpc": "2.0", "id": 1, "method": "x"}"#)
        );
    }
}
