//! Large messages (a `didOpen` or a whole-text `didChange` of a big report)
//! decoded with one copy of their texts, and one scan of them. `serde_json`
//! builds an escaped string in a scratch buffer and then copies it into the
//! value: for a 40 MB report that is the frame, the scratch and the string
//! at once; and it reads a string byte by byte. Here the literal of each
//! `text` member (where LSP puts documents' texts) is found by jumping
//! from quote to backslash, lifted out of the frame and unescaped straight
//! into its own `String`; `serde_json` decodes what is left, a frame of a
//! few hundred bytes, and the texts go back where they were.

use serde_json::Value;

/// Frames from this size on are decoded here.
pub const LARGE_FRAME_BYTES: usize = 1 << 20;

/// A body with its texts lifted out: what is left is checked and decoded
/// as any small message, and the texts go back into the value.
#[derive(Debug, PartialEq)]
pub struct Lifted {
    rest: String,
    texts: Vec<String>,
}

impl Lifted {
    /// The body without its texts, each replaced by a short string.
    pub fn rest(&self) -> &[u8] {
        self.rest.as_bytes()
    }

    /// The JSON value of the whole body; None when what is left is not
    /// JSON (the caller then decodes the body the usual way, which says
    /// what is wrong).
    pub fn into_value(self) -> Option<Value> {
        let Lifted { rest, mut texts } = self;
        let mut value: Value = serde_json::from_str(&rest).ok()?;
        put_back(&mut value, &mut texts);
        Some(value)
    }
}

/// `body` with its texts lifted out; None when this cannot read it.
pub fn lift(body: &[u8]) -> Option<Lifted> {
    let body = std::str::from_utf8(body).ok()?;
    let (rest, texts) = lift_texts(body)?;
    Some(Lifted { rest, texts })
}

/// The JSON value of `body`, as [`Lifted::into_value`] gives it.
#[cfg(test)]
fn decode(body: &[u8]) -> Option<Value> {
    lift(body)?.into_value()
}

/// `body` with the literal of every `text` member's string value replaced
/// by the number of its place in the list, and that list, unescaped. Only
/// strings are read: the structure is left to `serde_json`, which refuses
/// a frame whose structure this misread (a `"text":` inside an array).
fn lift_texts(body: &str) -> Option<(String, Vec<String>)> {
    let bytes = body.as_bytes();
    let mut rest = String::new();
    let mut texts = Vec::new();
    // Copied up to here; reading from `at`.
    let (mut copied, mut at) = (0, 0);
    // After the key `text` and its colon: the next string is a text.
    let mut after_text_key = false;
    while let Some(found) = memchr::memchr(b'"', &bytes[at..]) {
        let start = at + found;
        // Between strings: structure, where a colon ends a key and anything
        // else the wait for a text.
        let between = &bytes[at..start];
        if after_text_key && between.iter().any(|b| !b.is_ascii_whitespace()) {
            after_text_key = false;
        }
        if after_text_key {
            after_text_key = false;
            let (text, end) = read_string(body, start)?;
            rest.push_str(&body[copied..start]);
            rest.push_str(&format!("\"{}\"", texts.len()));
            texts.push(text);
            at = end + 1;
            copied = at;
            continue;
        }
        let end = literal_end(bytes, start)?;
        let literal = &body[start..=end];
        at = end + 1;
        // A key: the next thing past the blanks is a colon.
        let Some(colon) = bytes[at..]
            .iter()
            .position(|b| !b.is_ascii_whitespace())
            .filter(|&i| bytes[at + i] == b':')
        else {
            continue;
        };
        // A key `text` spelt with escapes would keep its string here, where
        // a number could pass for a lifted one's: left to serde_json.
        if literal.contains('\\') && read_string(body, start).is_none_or(|(key, _)| key == "text") {
            return None;
        }
        if literal == "\"text\"" {
            after_text_key = true;
            at += colon + 1;
        }
    }
    rest.push_str(&body[copied..]);
    Some((rest, texts))
}

/// The offset of the quote that ends the string literal opening at `start`.
fn literal_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut at = start + 1;
    loop {
        let found = at + memchr::memchr2(b'"', b'\\', &bytes[at..])?;
        match bytes[found] {
            b'"' => return Some(found),
            // An escape: what it escapes cannot end the string.
            _ => at = found + 2,
        }
        if at > bytes.len() {
            return None;
        }
    }
}

/// The string of the literal opening at `start`, and the offset of its
/// closing quote, in one pass: a text of JSON holds an escaped quote every
/// few bytes, too often to jump from one to the next. None where
/// `serde_json` refuses it: a raw control character, a bad escape, a lone
/// surrogate.
fn read_string(body: &str, start: usize) -> Option<(String, usize)> {
    let bytes = body.as_bytes();
    let mut out = String::with_capacity(1024);
    let mut run = start + 1;
    let mut at = run;
    loop {
        // The plain bytes up to the next quote, backslash or control.
        while at < bytes.len() && !matches!(bytes[at], b'"' | b'\\' | 0..0x20) {
            at += 1;
        }
        out.push_str(&body[run..at]);
        match *bytes.get(at)? {
            b'"' => {
                out.shrink_to_fit();
                return Some((out, at));
            }
            b'\\' => {
                let (plain, next) = escape(body, at)?;
                out.push(plain);
                at = next;
                run = at;
            }
            _ => return None,
        }
    }
}

/// The character of the escape at `at` (its backslash), and where what
/// follows it starts.
fn escape(body: &str, at: usize) -> Option<(char, usize)> {
    let plain = match *body.as_bytes().get(at + 1)? {
        b'"' => '"',
        b'\\' => '\\',
        b'/' => '/',
        b'b' => '\u{8}',
        b'f' => '\u{c}',
        b'n' => '\n',
        b'r' => '\r',
        b't' => '\t',
        b'u' => {
            let (unit, after) = hex4(body.get(at + 2..)?)?;
            let plain = match unit {
                0xD800..=0xDBFF => {
                    let (low, after) = hex4(after.strip_prefix("\\u")?)?;
                    if !(0xDC00..=0xDFFF).contains(&low) {
                        return None;
                    }
                    let plain = char::from_u32(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))?;
                    return Some((plain, body.len() - after.len()));
                }
                _ => char::from_u32(unit)?,
            };
            return Some((plain, body.len() - after.len()));
        }
        _ => return None,
    };
    Some((plain, at + 2))
}

/// Puts each lifted text back in the `text` member that holds its number.
fn put_back(value: &mut Value, texts: &mut [String]) {
    match value {
        Value::Object(members) => {
            for (key, member) in members.iter_mut() {
                let lifted = match member {
                    Value::String(place) if key == "text" => place.parse::<usize>().ok(),
                    _ => None,
                };
                match lifted.and_then(|i| texts.get_mut(i)) {
                    Some(text) => *member = Value::String(std::mem::take(text)),
                    None => put_back(member, texts),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|item| put_back(item, texts)),
        _ => {}
    }
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
        assert_eq!(
            read_string(&literal, 0),
            Some((expected, literal.len() - 1))
        );
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
    fn a_text_key_spelt_with_escapes_is_left_to_serde_json() {
        let body = br#"{"te\u0078t": "0", "text": "lifted"}"#;
        assert_eq!(decode(body), None);
        let body = br#"{"n\u0061me": "x", "text": "a \"quoted\" text"}"#;
        let expected: Value = serde_json::from_slice(body).unwrap();
        assert_eq!(decode(body), Some(expected));
    }

    /// Values with `text` members at any depth, holding strings of every
    /// kind (quotes, backslashes, controls, non-ASCII) or other values.
    fn values() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let piece = prop::sample::select(vec![
            "a", "\"", "\\", "\n", "\u{1}", "路", "😀", "text", "\":", "/", " ",
        ]);
        let string = prop::collection::vec(piece, 0..12).prop_map(|p| Value::String(p.concat()));
        let leaf = prop_oneof![
            string,
            Just(Value::Null),
            any::<i32>().prop_map(Value::from),
            any::<bool>().prop_map(Value::Bool),
        ];
        leaf.prop_recursive(4, 40, 5, |inner| {
            let key = prop::sample::select(vec!["text", "uri", "a", "text\"", "\"text"]);
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::vec((key, inner), 0..4).prop_map(|members| {
                    Value::Object(
                        members
                            .into_iter()
                            .map(|(k, v)| (k.to_string(), v))
                            .collect(),
                    )
                }),
            ]
        })
    }

    proptest::proptest! {
        #[test]
        fn any_value_decodes_as_serde_json_decodes_it(value in values(), pretty in proptest::prelude::any::<bool>()) {
            let body = match pretty {
                true => serde_json::to_vec_pretty(&value).unwrap(),
                false => serde_json::to_vec(&value).unwrap(),
            };
            proptest::prop_assert_eq!(decode(&body), Some(value));
        }

        /// A frame with one byte changed decodes as serde_json decodes it,
        /// or is left to it; it never panics.
        #[test]
        fn a_broken_frame_is_never_misread(value in values(), at in 0.0..1.0f64, byte in proptest::prelude::any::<u8>()) {
            let mut body = serde_json::to_vec(&value).unwrap();
            let at = ((body.len() as f64 * at) as usize).min(body.len() - 1);
            body[at] = byte;
            let theirs = serde_json::from_slice::<Value>(&body).ok();
            if let Some(ours) = decode(&body) {
                proptest::prop_assert_eq!(Some(ours), theirs);
            }
        }
    }

    #[test]
    fn repeated_keys_keep_the_last_as_serde_json_does() {
        let body = br#"{"a": 1, "b": [2], "a": 3, "text": "x", "text": [1, {"text": null}]}"#;
        let expected: Value = serde_json::from_slice(body).unwrap();
        assert_eq!(decode(body), Some(expected));
    }
}
