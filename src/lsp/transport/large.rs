//! Large messages (a `didOpen` or a whole-text `didChange` of a big report)
//! decoded with one copy of their texts. `serde_json` builds an escaped
//! string in a scratch buffer and then copies it into the value: for a
//! 40 MB report that is the frame, the scratch and the string at once. Here
//! the value of each `text` member (where LSP puts documents' texts) is
//! taken raw (borrowed from the frame, checked in the same single pass) and
//! unescaped straight into its own `String`.

use serde::de::{DeserializeSeed, Error as _, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// Frames from this size on are decoded here.
pub const LARGE_FRAME_BYTES: usize = 1 << 20;

/// The JSON value of `body`; None when it is not JSON this can decode (the
/// caller then decodes it the usual way, which says what is wrong).
pub fn decode(body: &[u8]) -> Option<Value> {
    let mut deserializer = serde_json::Deserializer::from_slice(body);
    let value = TextsRaw.deserialize(&mut deserializer).ok()?;
    deserializer.end().ok()?;
    Some(value)
}

/// A value as `serde_json` builds it, but for the `text` members inside.
struct TextsRaw;

impl<'de> DeserializeSeed<'de> for TextsRaw {
    type Value = Value;

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for TextsRaw {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, value: bool) -> Result<Value, E> {
        Ok(Value::Bool(value))
    }

    fn visit_i64<E>(self, value: i64) -> Result<Value, E> {
        Ok(Value::from(value))
    }

    fn visit_u64<E>(self, value: u64) -> Result<Value, E> {
        Ok(Value::from(value))
    }

    fn visit_f64<E>(self, value: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(value).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, value: &str) -> Result<Value, E> {
        Ok(Value::String(value.to_string()))
    }

    fn visit_string<E>(self, value: String) -> Result<Value, E> {
        Ok(Value::String(value))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(TextsRaw)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut members = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let value = match key.as_str() {
                "text" => {
                    let raw: &'de RawValue = map.next_value()?;
                    match raw.get().starts_with('"') {
                        true => unescape(raw.get())
                            .map(Value::String)
                            .ok_or_else(|| A::Error::custom("a lone surrogate"))?,
                        false => serde_json::from_str(raw.get()).map_err(A::Error::custom)?,
                    }
                }
                _ => map.next_value_seed(TextsRaw)?,
            };
            // The last of repeated keys wins, as in serde_json's own values.
            members.insert(key, value);
        }
        Ok(Value::Object(members))
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

    const LONG_STRING_BYTES: usize = 100_000;

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
            format!("{{\"text\": \"{long}\\uD83D\"}}"),
            format!("{{\"text\": \"{long}\\uDE00\"}}"),
            format!("{{\"text\": \"{long}\\uD83D\\u0041\"}}"),
            format!("{{\"text\": \"{long}\\q\"}}"),
            format!("{{\"text\": \"{long}\" ,}}"),
            format!("{{\"text\": \"{long}\n\"}}"),
            format!("{{\"text\": \"{long}\"}} x"),
        ] {
            assert!(serde_json::from_str::<Value>(&bad).is_err(), "{bad:.40}");
            assert_eq!(decode(bad.as_bytes()), None, "{:?}", &bad[bad.len() - 12..]);
        }
    }

    #[test]
    fn repeated_keys_keep_the_last_as_serde_json_does() {
        let body = br#"{"a": 1, "b": [2], "a": 3, "text": "x", "text": [1, {"text": null}]}"#;
        let expected: Value = serde_json::from_slice(body).unwrap();
        assert_eq!(decode(body), Some(expected));
    }
}
