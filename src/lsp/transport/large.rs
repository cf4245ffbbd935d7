//! Large messages (a `didOpen` or a whole-text `didChange` of a big report)
//! decoded with one copy of their big strings. `serde_json` builds an
//! escaped string in a scratch buffer and then copies it into the value: for
//! a 40 MB report that is the frame, the scratch and the string at once.
//! Here the frame is split into raw values (borrowed, not copied), and each
//! long string is unescaped straight into its own `String`.

use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// Frames from this size on are decoded here.
pub const LARGE_FRAME_BYTES: usize = 1 << 20;

/// Strings from this size on (quotes and escapes included) are unescaped here.
const LONG_STRING_BYTES: usize = 64 << 10;

/// The JSON value of `body`; None when it is not JSON this can decode (the
/// caller then decodes it the usual way, which says what is wrong).
pub fn decode(body: &[u8]) -> Option<Value> {
    let raw: &RawValue = serde_json::from_slice(body).ok()?;
    value_of(raw)
}

/// `raw` as a value, its long strings unescaped in one pass. The depth is
/// bounded by `serde_json`'s own limit, met when `raw` was read.
fn value_of(raw: &RawValue) -> Option<Value> {
    let text = raw.get();
    match text.as_bytes().first()? {
        b'{' => {
            let members: Vec<(String, &RawValue)> = serde_json::from_str::<Members>(text).ok()?.0;
            let mut map = Map::new();
            for (key, value) in members {
                // The last of repeated keys wins, as serde_json's own decoding has it.
                map.insert(key, value_of(value)?);
            }
            Some(Value::Object(map))
        }
        b'[' => {
            let items: Vec<&RawValue> = serde_json::from_str(text).ok()?;
            items
                .into_iter()
                .map(value_of)
                .collect::<Option<_>>()
                .map(Value::Array)
        }
        b'"' if text.len() >= LONG_STRING_BYTES => unescape(text).map(Value::String),
        _ => serde_json::from_str(text).ok(),
    }
}

/// An object's members in order, their values left raw.
struct Members<'a>(Vec<(String, &'a RawValue)>);

impl<'de: 'a, 'a> serde::Deserialize<'de> for Members<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Members<'de>;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object")
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Self::Value, A::Error> {
                let mut members = Vec::new();
                while let Some(member) = map.next_entry::<String, &'de RawValue>()? {
                    members.push(member);
                }
                Ok(Members(members))
            }
        }
        deserializer.deserialize_map(Visit)
    }
}

/// The string a JSON string literal (quotes included, valid JSON) stands
/// for; None for a lone surrogate, which `serde_json` refuses too.
fn unescape(literal: &str) -> Option<String> {
    let inner = literal.strip_prefix('"')?.strip_suffix('"')?;
    let mut out = String::with_capacity(inner.len());
    let mut rest = inner;
    while let Some(at) = memchr::memchr(b'\\', rest.as_bytes()) {
        out.push_str(&rest[..at]);
        let escape = *rest.as_bytes().get(at + 1)?;
        rest = &rest[at + 2..];
        let plain = match escape {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let (unit, after) = hex4(rest)?;
                rest = after;
                match unit {
                    0xD800..=0xDBFF => {
                        let (low, after) = hex4(rest.strip_prefix("\\u")?)?;
                        if !(0xDC00..=0xDFFF).contains(&low) {
                            return None;
                        }
                        rest = after;
                        char::from_u32(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))?
                    }
                    _ => char::from_u32(unit)?,
                }
            }
            _ => return None,
        };
        out.push(plain);
    }
    out.push_str(rest);
    out.shrink_to_fit();
    Some(out)
}

/// Four hex digits at the start of `text`, and what follows them.
fn hex4(text: &str) -> Option<(u32, &str)> {
    let digits = text.get(..4)?;
    if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    Some((u32::from_str_radix(digits, 16).ok()?, &text[4..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_strings_decode_as_serde_json_decodes_them() {
        let piece = "line \"quoted\" \\ back/slash\ttab\u{1}路😀\u{2028}\r\n";
        let text = piece.repeat(LONG_STRING_BYTES / piece.len() + 10);
        let message = serde_json::json!({
            "jsonrpc": "2.0",
            "method": "textDocument/didOpen",
            "params": {"textDocument": {"uri": "file:///a/路.json", "version": 3, "text": text},
                       "nested": [[1, 2.5, -0.0, 1e300, null, true], {"k": "v"}]}
        });
        let body = serde_json::to_vec(&message).unwrap();
        assert_eq!(decode(&body), Some(message));
        // Escapes serde_json does not write: \u forms, surrogate pairs, \/.
        let literal = format!(
            "\"{}\\u00e9\\uD83D\\uDE00\\/\\u0041\"",
            "x".repeat(LONG_STRING_BYTES)
        );
        let expected: String = serde_json::from_str(&literal).unwrap();
        assert_eq!(unescape(&literal), Some(expected));
    }

    #[test]
    fn what_serde_json_refuses_is_left_to_it() {
        let long = "x".repeat(LONG_STRING_BYTES);
        for bad in [
            format!("{{\"a\": \"{long}\\uD83D\"}}"),
            format!("{{\"a\": \"{long}\\uDE00\"}}"),
            format!("{{\"a\": \"{long}\\uD83D\\u0041\"}}"),
            format!("{{\"a\": \"{long}\\q\"}}"),
            format!("{{\"a\": \"{long}\" ,}}"),
            format!("{{\"a\": \"{long}\n\"}}"),
        ] {
            assert!(serde_json::from_str::<Value>(&bad).is_err(), "{bad:.40}");
            assert_eq!(decode(bad.as_bytes()), None, "{:?}", &bad[bad.len() - 12..]);
        }
    }

    #[test]
    fn repeated_keys_keep_the_last_as_serde_json_does() {
        let body = br#"{"a": 1, "b": [2], "a": 3}"#;
        let expected: Value = serde_json::from_slice(body).unwrap();
        assert_eq!(decode(body), Some(expected));
    }
}
