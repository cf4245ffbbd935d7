//! Document URIs that are not validly percent-encoded (a stray `%`, a raw
//! space or non-ASCII letter), which the protocol types refuse: the message
//! would be dropped without a word (a `didOpen` lost, a hover answered
//! "unexpected character"). What can be read is encoded properly and taken,
//! with a log line saying so; what cannot is passed on as it is (a request
//! then gets its error reply) and logged.

use std::str::FromStr;

use serde_json::Value;
use tower_lsp_server::jsonrpc::Request;
use tower_lsp_server::ls_types::Uri;

/// What became of a message's document URI.
pub enum Checked {
    /// No URI, or a valid one: the message unchanged.
    Fine(Request),
    /// Passed on, with a line for `window/logMessage` (`warning`: whether
    /// the URI was refused rather than repaired).
    Logged {
        request: Request,
        message: String,
        refused: bool,
    },
}

/// Checks `params.textDocument.uri` of `request`, repairing its encoding.
pub fn check(request: Request) -> Checked {
    let uri = request
        .params()
        .and_then(|p| p.get("textDocument"))
        .and_then(|d| d.get("uri"))
        .and_then(Value::as_str);
    let Some(uri) = uri else {
        return Checked::Fine(request);
    };
    if Uri::from_str(uri).is_ok() {
        return Checked::Fine(request);
    }
    let original = uri.to_string();
    let repaired = encode_properly(&original);
    if Uri::from_str(&repaired).is_err() {
        let message = format!(
            "{}: the document URI {original:?} is not a valid URI, even percent-encoded; the message is refused",
            request.method()
        );
        return Checked::Logged {
            request,
            message,
            refused: true,
        };
    }
    let message = format!(
        "{}: the document URI {original:?} is not validly percent-encoded; it is read as {repaired:?}",
        request.method()
    );
    let (method, id, params) = request.into_parts();
    let mut params = params.expect("the URI was found in the params");
    params["textDocument"]["uri"] = Value::String(repaired);
    let mut builder = Request::build(method).params(params);
    if let Some(id) = id {
        builder = builder.id(id);
    }
    Checked::Logged {
        request: builder.finish(),
        message,
        refused: false,
    }
}

/// `uri` with every `%` that starts no escape written `%25`, and every byte
/// a URI may not hold raw (spaces, controls, non-ASCII, `"<>\^`{|}`) escaped.
fn encode_properly(uri: &str) -> String {
    let bytes = uri.as_bytes();
    let mut out = String::with_capacity(uri.len() + 8);
    for (i, &byte) in bytes.iter().enumerate() {
        let escape_follows = byte == b'%'
            && bytes.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
            && bytes.get(i + 2).is_some_and(u8::is_ascii_hexdigit);
        let raw_ok = byte.is_ascii_graphic() && !b"\"<>\\^`{|}".contains(&byte);
        if escape_follows || (raw_ok && byte != b'%') {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stray_percent_signs_spaces_and_letters_are_escaped() {
        assert_eq!(
            encode_properly("file:///tmp/a%zz b%41é.json"),
            "file:///tmp/a%25zz%20b%41%C3%A9.json"
        );
        assert!(Uri::from_str(&encode_properly("file:///tmp/a%zz b%41é.json")).is_ok());
    }
}
