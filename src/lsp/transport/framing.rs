//! Framing and checking of incoming bytes, with no I/O: where each
//! `Content-Length` frame starts and ends, and whether its body is a
//! JSON-RPC message the server can take, or what error to answer instead.

use serde_json::Value;

use super::large::{LARGE_FRAME_BYTES, Lifted, NotLifted};

/// The method a broken message is rewritten to.
pub const INVALID_MESSAGE_METHOD: &str = "report-lsp/invalidMessage";

/// Frames larger than this are skipped, not buffered.
pub const MAX_FRAME_BYTES: usize = 1 << 30;

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
    pub fn parse_error(message: impl Into<String>) -> Rejection {
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
pub enum Framed {
    /// More input is needed.
    NeedMore,
    /// A header is read and its body of `length` bytes, under
    /// [`LARGE_FRAME_BYTES`], is still coming: the frame will take `frame`
    /// bytes (room for it is made once, not doubled as it grows).
    Body { frame: usize, length: usize },
    /// Drop this many bytes of garbage before a header.
    Skip(usize),
    /// A complete frame of `len` bytes whose body (from `body`) is good.
    Pass { len: usize, body: usize, kind: Kind },
    /// A header of `header` bytes, and a body of `length` bytes from
    /// [`LARGE_FRAME_BYTES`] on, whole or still coming: to lift as it comes
    /// ([`super::large::Lifting`]) and check with [`check_large`].
    Large { header: usize, length: usize },
    /// A broken frame of `len` bytes (headers and body) to replace.
    Reject { len: usize, rejection: Rejection },
    /// A frame too large to buffer: drop its header, then skip `body` bytes as they come.
    Oversized { header: usize, body: usize },
}

/// Looks at the start of `buffer` (`at_eof`: no more input will come).
pub fn step(buffer: &[u8], at_eof: bool) -> Framed {
    if buffer.is_empty() {
        return Framed::NeedMore;
    }
    // Resynchronize on the next header when the buffer does not start with one.
    let Some(start) = find_ascii_case_insensitive(buffer, CONTENT_LENGTH) else {
        return match at_eof {
            true => Framed::Skip(buffer.len()),
            // Keep a tail that may be the start of a header split across reads.
            false if buffer.len() > CONTENT_LENGTH.len() => {
                Framed::Skip(buffer.len() - CONTENT_LENGTH.len())
            }
            false => Framed::NeedMore,
        };
    };
    if start > 0 {
        return Framed::Skip(start);
    }
    let Some(header_end) = find(buffer, b"\r\n\r\n") else {
        return match at_eof || buffer.len() > 8192 {
            true => Framed::Skip(CONTENT_LENGTH.len()),
            false => Framed::NeedMore,
        };
    };
    let headers = &buffer[..header_end];
    // A second Content-Length in one block: the block before it never ended
    // (no blank line); drop it, so the frame that follows is read whole.
    if let Some(next) = find_ascii_case_insensitive(&headers[1..], CONTENT_LENGTH) {
        return Framed::Skip(next + 1);
    }
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
        return Framed::Reject {
            len: body_start,
            rejection: Rejection::parse_error(
                "the Content-Length header is missing or not a number",
            ),
        };
    };
    if length > MAX_FRAME_BYTES {
        return Framed::Oversized {
            header: body_start,
            body: length,
        };
    }
    if length >= LARGE_FRAME_BYTES {
        return Framed::Large {
            header: body_start,
            length,
        };
    }
    if buffer.len() < body_start + length {
        return match at_eof {
            true => Framed::Reject {
                len: buffer.len(),
                rejection: Rejection::parse_error("the input ended inside a message body"),
            },
            false => Framed::Body {
                frame: body_start + length,
                length,
            },
        };
    }
    match check_body(&buffer[body_start..body_start + length]) {
        Ok(kind) => Framed::Pass {
            len: body_start + length,
            body: body_start,
            kind,
        },
        Err(rejection) => Framed::Reject {
            len: body_start + length,
            rejection,
        },
    }
}

/// A large body checked, as [`step`] checks a small one.
#[derive(Debug)]
pub enum LargeBody {
    /// A request or notification, decoded with its texts lifted out.
    Request(Value),
    /// A good body of this kind, given back, to decode the usual way.
    Plain(Kind, Vec<u8>),
}

/// Checks and decodes a large body without reading its texts twice:
/// serde_json would read 40 MB of a report's text byte by byte only to
/// skip it, then again to decode it. Its texts are lifted out (see
/// [`super::large`]) and what is left checked; what is wrong with it is
/// said of the body itself.
pub fn check_large(lifted: Result<Lifted, NotLifted>) -> Result<LargeBody, Rejection> {
    let given_back = match lifted {
        Ok(lifted) => match check_body(lifted.rest()) {
            Ok(Kind::Request) => match lifted.into_value() {
                Ok(value) => return Ok(LargeBody::Request(value)),
                Err(given_back) => given_back,
            },
            _ => lifted.restore(),
        },
        Err(given_back) => given_back,
    };
    match given_back {
        NotLifted::Untouched(body) => {
            let kind = check_body(&body)?;
            Ok(LargeBody::Plain(kind, body))
        }
        NotLifted::Broken(why) => Err(Rejection::parse_error(why)),
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
pub enum Kind {
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
