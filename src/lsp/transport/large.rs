//! Large messages (a `didOpen` or a whole-text `didChange` of a big report)
//! decoded with no second copy of their texts, and one scan of them.
//! `serde_json` builds an escaped string in a scratch buffer and then copies
//! it into the value: for a 40 MB report that is the frame, the scratch and
//! the string at once; and it reads a string byte by byte. Here the literal
//! of each `text` member (where LSP puts documents' texts) is unescaped in
//! place, in the frame's own bytes (an escape is never shorter than what it
//! stands for), and the largest text then becomes a `String` of the frame's
//! own allocation; `serde_json` decodes what is left, a few hundred bytes,
//! and the texts go back where they were. Whatever this cannot read is put
//! back as it was in meaning ([`Lifted::restore`]) for `serde_json` to
//! judge: only a text literal that `serde_json` refuses too is refused here.

use serde_json::Value;

/// Frames from this size on are decoded here.
pub const LARGE_FRAME_BYTES: usize = 1 << 20;

/// A frame whose texts [`lift`] did not lift out.
#[derive(Debug)]
pub enum NotLifted {
    /// Not read here: the frame, whose body means what it meant (its texts
    /// lifted so far written back as literals), for `serde_json` to decode.
    Untouched(Vec<u8>),
    /// A text's literal is one `serde_json` refuses too, which says why.
    Broken(String),
}

/// A frame whose texts are unescaped in place: what is left of its body is
/// checked and decoded as any small message, and the texts go back into
/// the value.
#[derive(Debug)]
pub struct Lifted {
    /// The body without its texts, each replaced by the number of its place.
    rest: Vec<u8>,
    frame: Vec<u8>,
    texts: Vec<InPlace>,
}

/// A text unescaped in place: `len` bytes from `start`, where its literal
/// opened and ran up to `literal_end` (past its closing quote).
#[derive(Clone, Copy, Debug)]
struct InPlace {
    start: usize,
    len: usize,
    literal_end: usize,
}

impl InPlace {
    fn text<'a>(&self, frame: &'a [u8]) -> Option<&'a str> {
        std::str::from_utf8(&frame[self.start..self.start + self.len]).ok()
    }
}

/// Why a text is refused: what `serde_json` refuses in a string.
const BROKEN_TEXT: &str = "the message is not JSON: a \"text\" member's string holds a raw control character, a bad escape, a lone surrogate or invalid UTF-8, or is not closed";

impl Lifted {
    /// The body without its texts, each replaced by a short string.
    pub fn rest(&self) -> &[u8] {
        &self.rest
    }

    /// The JSON value of the whole body. When what is left is not JSON, the
    /// frame put back ([`NotLifted::Untouched`]), for the caller to decode the
    /// usual way, which says what is wrong.
    pub fn into_value(self) -> Result<Value, NotLifted> {
        let Ok(mut value) = serde_json::from_slice::<Value>(&self.rest) else {
            return Err(self.restore());
        };
        let Lifted {
            mut frame, texts, ..
        } = self;
        // The largest text takes the frame's allocation: moved to its
        // front, not copied into a new one.
        let largest = (0..texts.len()).max_by_key(|&i| texts[i].len);
        let mut strings = Vec::with_capacity(texts.len());
        for (i, text) in texts.iter().enumerate() {
            let string = match Some(i) == largest {
                true => String::new(),
                false => match text.text(&frame) {
                    Some(text) => text.to_string(),
                    None => return Err(NotLifted::Broken(BROKEN_TEXT.to_string())),
                },
            };
            strings.push(string);
        }
        if let Some(i) = largest {
            let InPlace { start, len, .. } = texts[i];
            frame.copy_within(start..start + len, 0);
            frame.truncate(len);
            match String::from_utf8(frame) {
                Ok(text) => strings[i] = text,
                Err(_) => return Err(NotLifted::Broken(BROKEN_TEXT.to_string())),
            }
        }
        put_back(&mut value, &mut strings);
        Ok(value)
    }

    /// The frame with each text written back as a literal where its own
    /// was (`serde_json`'s escaping is never longer than any other, and
    /// blanks fill the rest): the same JSON as before, for `serde_json`.
    pub fn restore(self) -> NotLifted {
        let Lifted {
            mut frame, texts, ..
        } = self;
        for text in texts {
            let Some(literal) = text.text(&frame).and_then(|t| serde_json::to_vec(t).ok()) else {
                return NotLifted::Broken(BROKEN_TEXT.to_string());
            };
            let region = &mut frame[text.start..text.literal_end];
            region[..literal.len()].copy_from_slice(&literal);
            region[literal.len()..].fill(b' ');
        }
        NotLifted::Untouched(frame)
    }
}

/// The frame with its body (from `body`) read: its texts lifted out, or
/// put back as they were where this cannot read it.
pub fn lift(mut frame: Vec<u8>, body: usize) -> Result<Lifted, NotLifted> {
    let mut lifted = Lifted {
        rest: Vec::new(),
        frame: Vec::new(),
        texts: Vec::new(),
    };
    let read = lift_texts(&mut frame, body, &mut lifted);
    lifted.frame = frame;
    match read {
        Read::Lifted => Ok(lifted),
        Read::NotHere => Err(lifted.restore()),
        Read::Broken => Err(NotLifted::Broken(BROKEN_TEXT.to_string())),
    }
}

/// How [`lift_texts`] ended.
enum Read {
    Lifted,
    /// Something this does not read: left to `serde_json`.
    NotHere,
    /// A text's literal that `serde_json` refuses too, partly rewritten.
    Broken,
}

/// Unescapes in place the literal of every `text` member's string value
/// in `bytes[body..]`, noting each in `lifted`, and writes the rest of the
/// body there, with the number of each text's place for its literal. Only
/// strings are read: the structure is left to `serde_json`, which refuses
/// a frame whose structure this misread (a `"text":` inside an array).
fn lift_texts(bytes: &mut [u8], body: usize, lifted: &mut Lifted) -> Read {
    // Copied up to here; reading from `at`.
    let (mut copied, mut at) = (body, body);
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
            lifted.rest.extend_from_slice(&bytes[copied..start]);
            let Some((len, end)) = unescape_in_place(bytes, start) else {
                return Read::Broken;
            };
            let place = lifted.texts.len();
            lifted
                .rest
                .extend_from_slice(format!("\"{place}\"").as_bytes());
            lifted.texts.push(InPlace {
                start,
                len,
                literal_end: end + 1,
            });
            at = end + 1;
            copied = at;
            continue;
        }
        let Some(end) = literal_end(bytes, start) else {
            return Read::NotHere;
        };
        at = end + 1;
        // A key: the next thing past the blanks is a colon.
        let Some(colon) = bytes[at..]
            .iter()
            .position(|b| !b.is_ascii_whitespace())
            .filter(|&i| bytes[at + i] == b':')
        else {
            continue;
        };
        let literal = &bytes[start..=end];
        // A key `text` spelt with escapes would keep its string here, where
        // a number could pass for a lifted one's: left to serde_json.
        if memchr::memchr(b'\\', literal).is_some()
            && !serde_json::from_slice::<String>(literal).is_ok_and(|key| key != "text")
        {
            return Read::NotHere;
        }
        if literal == b"\"text\"" {
            after_text_key = true;
            at += colon + 1;
        }
    }
    lifted.rest.extend_from_slice(&bytes[copied..]);
    Read::Lifted
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

/// Unescapes the string literal opening at `start` in place, in one pass:
/// its characters are written from `start` on (an escape is longer than
/// the character it stands for, so the writing never overtakes the
/// reading). Its length and the offset of its closing quote; None where
/// `serde_json` refuses it (a raw control character, a bad escape, a lone
/// surrogate, no closing quote), the literal then partly rewritten. A text
/// of JSON holds an escaped quote every few bytes, too often to jump from
/// one to the next.
fn unescape_in_place(bytes: &mut [u8], start: usize) -> Option<(usize, usize)> {
    let mut written = start;
    let mut at = start + 1;
    loop {
        // The plain bytes up to the next quote, backslash or control.
        let run = at;
        at += plain_run(&bytes[at..]);
        // Until the first escape the text is where it belongs.
        if written != run {
            bytes.copy_within(run..at, written);
        }
        written += at - run;
        match *bytes.get(at)? {
            b'"' => return Some((written - start, at)),
            b'\\' => {
                // The escapes a JSON text is full of stand for one byte.
                let one = match bytes.get(at + 1) {
                    Some(b'"') => Some(b'"'),
                    Some(b'\\') => Some(b'\\'),
                    Some(b'n') => Some(b'\n'),
                    _ => None,
                };
                if let Some(byte) = one {
                    bytes[written] = byte;
                    written += 1;
                    at += 2;
                    continue;
                }
                let (plain, next) = escape(bytes, at)?;
                let encoded = plain.encode_utf8(&mut [0; 4]).len();
                plain.encode_utf8(&mut bytes[written..written + encoded]);
                written += encoded;
                at = next;
            }
            _ => return None,
        }
    }
}

/// How many bytes from the start of `bytes` are plain in a string literal:
/// neither a quote, a backslash nor a control character. Eight at a time:
/// 48 ms a byte at a time for a 42 MB frame, 30 so (its escapes are many).
fn plain_run(bytes: &[u8]) -> usize {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    // The high bit of each byte that is zero, or of one above such a byte
    // (a borrow): the lowest set is always a true zero.
    let zero = |word: u64| word.wrapping_sub(ONES) & !word & HIGHS;
    let mut at = 0;
    while let Some(eight) = bytes.get(at..at + 8) {
        let word = u64::from_le_bytes(eight.try_into().expect("eight bytes"));
        let below_space = word.wrapping_sub(ONES * 0x20) & !word & HIGHS;
        let found = zero(word ^ (ONES * u64::from(b'"')))
            | zero(word ^ (ONES * u64::from(b'\\')))
            | below_space;
        if found != 0 {
            // Little-endian: the lowest byte is the first.
            return at + found.trailing_zeros() as usize / 8;
        }
        at += 8;
    }
    let rest = &bytes[at..];
    at + rest
        .iter()
        .position(|&b| matches!(b, b'"' | b'\\' | 0..0x20))
        .unwrap_or(rest.len())
}

/// The character of the escape at `at` (its backslash), and where what
/// follows it starts.
fn escape(bytes: &[u8], at: usize) -> Option<(char, usize)> {
    let plain = match *bytes.get(at + 1)? {
        b'"' => '"',
        b'\\' => '\\',
        b'/' => '/',
        b'b' => '\u{8}',
        b'f' => '\u{c}',
        b'n' => '\n',
        b'r' => '\r',
        b't' => '\t',
        b'u' => {
            let unit = hex4(bytes.get(at + 2..)?)?;
            let plain = match unit {
                0xD800..=0xDBFF => {
                    let low = bytes.get(at + 6..)?.strip_prefix(b"\\u").and_then(hex4)?;
                    if !(0xDC00..=0xDFFF).contains(&low) {
                        return None;
                    }
                    let plain = char::from_u32(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))?;
                    return Some((plain, at + 12));
                }
                _ => char::from_u32(unit)?,
            };
            return Some((plain, at + 6));
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

/// Four hex digits at the start of `bytes`.
fn hex4(bytes: &[u8]) -> Option<u32> {
    let digits = bytes.get(..4)?;
    if !digits.iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    u32::from_str_radix(std::str::from_utf8(digits).ok()?, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The JSON value of `body`, lifted: None where it is left to
    /// `serde_json` or refused.
    fn decode(body: &[u8]) -> Option<Value> {
        lift(body.to_vec(), 0).ok()?.into_value().ok()
    }

    /// What a reader makes of `body` through [`lift`]: the value, or
    /// `serde_json`'s verdict on the frame given back, or a refusal; each
    /// must be what `serde_json` makes of the body itself.
    fn agrees_with_serde_json(body: &[u8]) -> Result<(), String> {
        let theirs = serde_json::from_slice::<Value>(body).ok();
        let frame = match lift(body.to_vec(), 0) {
            Ok(lifted) => match lifted.into_value() {
                Ok(ours) if Some(&ours) == theirs.as_ref() => return Ok(()),
                Ok(ours) => return Err(format!("lifted {ours:?}, serde_json {theirs:?}")),
                Err(NotLifted::Untouched(frame)) => frame,
                Err(NotLifted::Broken(_)) if theirs.is_none() => return Ok(()),
                Err(NotLifted::Broken(why)) => {
                    return Err(format!("refused what serde_json takes: {why}"));
                }
            },
            Err(NotLifted::Untouched(frame)) => frame,
            Err(NotLifted::Broken(_)) if theirs.is_none() => return Ok(()),
            Err(NotLifted::Broken(why)) => {
                return Err(format!("refused what serde_json takes: {why}"));
            }
        };
        let given_back = serde_json::from_slice::<Value>(&frame).ok();
        match given_back == theirs {
            true => Ok(()),
            false => Err(format!("given back {given_back:?}, serde_json {theirs:?}")),
        }
    }

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
        let mut bytes = literal.clone().into_bytes();
        let (len, end) = unescape_in_place(&mut bytes, 0).unwrap();
        assert_eq!(
            (&bytes[..len], end),
            (expected.as_bytes(), literal.len() - 1)
        );
    }

    #[test]
    fn a_plain_run_ends_at_the_first_quote_backslash_or_control() {
        let slow = |bytes: &[u8]| {
            let end = bytes
                .iter()
                .position(|&b| matches!(b, b'"' | b'\\' | 0..0x20));
            end.unwrap_or(bytes.len())
        };
        // Every byte at every place of a word and past it, after plain
        // bytes of every kind (a borrow from a match flags the bytes above).
        for len in 0..20 {
            for fill in [b'a', 0x80, 0xff, 0x21, 0x5d] {
                for at in 0..len {
                    for byte in 0..=255u8 {
                        let mut bytes = vec![fill; len];
                        bytes[at] = byte;
                        if at + 1 < len {
                            bytes[at + 1] = 0;
                        }
                        assert_eq!(plain_run(&bytes), slow(&bytes), "{bytes:?}");
                    }
                }
            }
        }
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
            agrees_with_serde_json(bad.as_bytes()).unwrap();
        }
    }

    #[test]
    fn a_text_key_spelt_with_escapes_is_left_to_serde_json() {
        let body = br#"{"te\u0078t": "0", "text": "lifted"}"#;
        assert_eq!(decode(body), None);
        let body = br#"{"n\u0061me": "x", "text": "a \"quoted\" text"}"#;
        let expected: Value = serde_json::from_slice(body).unwrap();
        assert_eq!(decode(body), Some(expected));
        // Found after texts were unescaped in place: they are written back.
        let body = br#"{"text": "\u00e9\/\uD83D\uDE00 \"q\" \u0001", "a": [{"text": "\n"}], "t\u0065xt": 1}"#;
        assert_eq!(decode(body), None);
        let Err(NotLifted::Untouched(frame)) = lift(body.to_vec(), 0) else {
            panic!("given back");
        };
        assert_ne!(
            &frame[..],
            &body[..],
            "its texts were lifted, then written back"
        );
        agrees_with_serde_json(body).unwrap();
    }

    #[test]
    fn the_largest_text_keeps_the_frames_allocation() {
        let text = "{\"k\": \"路\"}\n".repeat(LONG_STRING_BYTES / 8);
        let message =
            serde_json::json!({"params": {"changes": [{"text": "small"}, {"text": text}]}});
        let frame = serde_json::to_vec(&message).unwrap();
        let (room, at) = (frame.capacity(), frame.as_ptr());
        let lifted = lift(frame, 0).expect("lifted");
        let value = lifted.into_value().unwrap();
        assert_eq!(value, message);
        let Value::String(big) = &value["params"]["changes"][1]["text"] else {
            panic!("a string");
        };
        assert_eq!((big.as_ptr(), big.capacity()), (at, room), "no second copy");
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
        /// or is given back meaning what it meant, or refused only where
        /// serde_json refuses it; it never panics.
        #[test]
        fn a_broken_frame_is_never_misread(value in values(), at in 0.0..1.0f64, byte in proptest::prelude::any::<u8>()) {
            let mut body = serde_json::to_vec(&value).unwrap();
            let at = ((body.len() as f64 * at) as usize).min(body.len() - 1);
            body[at] = byte;
            if let Err(why) = agrees_with_serde_json(&body) {
                proptest::prop_assert!(false, "{}: {:?}", why, String::from_utf8_lossy(&body));
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
