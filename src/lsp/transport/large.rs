//! Large messages (a `didOpen` or a whole-text `didChange` of a big report)
//! decoded as their bytes come, with one scan of their texts. `serde_json`
//! builds an escaped string in a scratch buffer and then copies it into
//! the value: for a 40 MB report that is the frame, the scratch and the
//! string at once; it reads a string byte by byte; and it starts only once
//! the whole frame is read. Here ([`Lifting`]) each piece of the body is
//! read as it comes, on a thread beside the reads: the literal of each
//! `text` member (where LSP puts documents' texts) is unescaped into a
//! text of its own, and the rest of the body, a few hundred bytes, is
//! copied for `serde_json` to decode; the texts then go back where they
//! were. Whatever this cannot read is put back as it was in meaning
//! ([`Lifted::restore`]) for `serde_json` to judge: only a text literal
//! that `serde_json` refuses too is refused here.

use std::ops::Range;

use serde_json::Value;

/// Frames from this size on are decoded here.
pub const LARGE_FRAME_BYTES: usize = 1 << 20;

/// A frame whose texts [`Lifting`] did not lift out.
#[derive(Debug)]
pub enum NotLifted {
    /// Not read here: the body, meaning what it meant (its texts lifted so
    /// far written back as literals), for `serde_json` to decode.
    Untouched(Vec<u8>),
    /// A text's literal is one `serde_json` refuses too, which says why.
    Broken(String),
}

/// A body whose texts are lifted out: what is left of it is checked and
/// decoded as any small message, and the texts go back into the value.
#[derive(Debug)]
pub struct Lifted {
    /// The body without its texts, each replaced by the number of its place.
    rest: Vec<u8>,
    texts: Vec<String>,
    /// Where each text's number is in `rest`.
    places: Vec<Range<usize>>,
}

/// Why a text is refused: what `serde_json` refuses in a string.
const BROKEN_TEXT: &str = "the message is not JSON: a \"text\" member's string holds a raw control character, a bad escape, a lone surrogate or invalid UTF-8, or is not closed";

impl Lifted {
    /// The body without its texts, each replaced by a short string.
    pub fn rest(&self) -> &[u8] {
        &self.rest
    }

    /// The JSON value of the whole body. When what is left is not JSON, the
    /// body put back ([`NotLifted::Untouched`]), for the caller to decode the
    /// usual way, which says what is wrong.
    pub fn into_value(self) -> Result<Value, NotLifted> {
        let Ok(mut value) = serde_json::from_slice::<Value>(&self.rest) else {
            return Err(self.restore());
        };
        let mut texts = self.texts;
        put_back(&mut value, &mut texts);
        Ok(value)
    }

    /// The body with each text written back as a literal where its own
    /// was: the same JSON as before, for `serde_json`.
    pub fn restore(self) -> NotLifted {
        let length = self.rest.len() + self.texts.iter().map(|t| t.len() + 2).sum::<usize>();
        let mut body = Vec::with_capacity(length);
        let mut copied = 0;
        for (place, text) in self.places.iter().zip(&self.texts) {
            body.extend_from_slice(&self.rest[copied..place.start]);
            // Writing a string into a Vec cannot fail.
            let _ = serde_json::to_writer(&mut body, text);
            copied = place.end;
        }
        body.extend_from_slice(&self.rest[copied..]);
        NotLifted::Untouched(body)
    }
}

/// How far an escape reaches: `\uD83D\uDE00` is twelve bytes.
const LONGEST_ESCAPE: usize = 12;

/// Where [`Lifting`] is in the body.
#[derive(Clone, Debug, PartialEq)]
enum Place {
    /// Between strings. `key`: the string that just ended, in `rest`,
    /// until the next byte past the blanks says whether it is a key.
    Between { key: Option<Range<usize>> },
    /// After the key `text` and its colon: a string next is a text.
    AfterTextKey,
    /// In a string that is not a text, copied as it is; from `start` in `rest`.
    InString { start: usize },
    /// In a text's string, unescaped into the last text.
    InText,
}

/// A large body read piece by piece, in any pieces, as it comes
/// ([`Lifting::feed`]): the same [`Lifted`] whatever the pieces. Only
/// strings are read: the structure is left to `serde_json`, which refuses
/// a body whose structure this misread (a `"text":` inside an array).
#[derive(Debug)]
pub struct Lifting {
    rest: Vec<u8>,
    /// Checked as UTF-8 once whole: in one pass, not run by run.
    texts: Vec<Vec<u8>>,
    places: Vec<Range<usize>>,
    place: Place,
    /// The bytes from an escape the end of a piece cut, to read with the
    /// next piece's first.
    carry: Vec<u8>,
    /// Something this does not read came: the rest is copied as it is.
    not_here: bool,
    /// A text's literal `serde_json` refuses: the rest is not read.
    broken: bool,
    /// How many of the body's bytes have not been fed yet.
    unfed: usize,
    /// How many come after the bytes being read: with an escape's, room
    /// enough for the rest of a text still open at their end, which is
    /// never longer than its literal ([`Lifting::make_room`]).
    after: usize,
    /// Whether the open text made room for the rest of the body: it gives
    /// back what it did not use when it closes.
    made_room: bool,
}

impl Lifting {
    /// A body of `length` bytes, none fed yet.
    pub fn new(length: usize) -> Lifting {
        Lifting {
            rest: Vec::new(),
            texts: Vec::new(),
            places: Vec::new(),
            place: Place::Between { key: None },
            carry: Vec::new(),
            not_here: false,
            broken: false,
            unfed: length,
            after: 0,
            made_room: false,
        }
    }

    /// Reads the next piece of the body.
    pub fn feed(&mut self, piece: &[u8]) {
        self.unfed = self.unfed.saturating_sub(piece.len());
        let mut piece = piece;
        if !self.carry.is_empty() {
            // The cut escape, with enough of this piece to read it whole.
            let had = self.carry.len();
            let taken = piece.len().min(LONGEST_ESCAPE);
            let mut window = std::mem::take(&mut self.carry);
            window.extend_from_slice(&piece[..taken]);
            self.after = self.unfed + (piece.len() - taken);
            let read = self.read(&window, false);
            if read <= had {
                // Still cut: this piece, all in the window, was shorter than an escape.
                self.carry = window.split_off(read);
                return;
            }
            piece = &piece[read - had..];
        }
        self.after = self.unfed;
        let read = self.read(piece, false);
        self.carry.extend_from_slice(&piece[read..]);
    }

    /// The body read: its texts lifted out, or put back as they were
    /// where this cannot read it.
    pub fn finish(mut self) -> Result<Lifted, NotLifted> {
        let carry = std::mem::take(&mut self.carry);
        self.read(&carry, true);
        if self.broken || self.place == Place::InText {
            return Err(NotLifted::Broken(BROKEN_TEXT.to_string()));
        }
        let mut texts = Vec::with_capacity(self.texts.len());
        for mut text in std::mem::take(&mut self.texts) {
            text.shrink_to_fit();
            match String::from_utf8(text) {
                Ok(text) => texts.push(text),
                Err(_) => return Err(NotLifted::Broken(BROKEN_TEXT.to_string())),
            }
        }
        let lifted = Lifted {
            rest: self.rest,
            texts,
            places: self.places,
        };
        // A string not closed, or a key this does not read.
        match self.not_here || matches!(self.place, Place::InString { .. }) {
            true => Err(lifted.restore()),
            false => Ok(lifted),
        }
    }

    /// Reads `bytes` as far as it can tell what they are: all of them,
    /// but for an escape cut at their end, unless `at_end`. How many it read.
    fn read(&mut self, bytes: &[u8], at_end: bool) -> usize {
        let mut at = 0;
        while at < bytes.len() {
            if self.broken {
                return bytes.len();
            }
            if self.not_here {
                self.rest.extend_from_slice(&bytes[at..]);
                return bytes.len();
            }
            match &self.place {
                Place::Between { key: Some(key) } => {
                    let key = key.clone();
                    let Some(next) = self.copy_blanks(bytes, at) else {
                        return bytes.len();
                    };
                    at = next;
                    self.place = Place::Between { key: None };
                    // A key: the next thing past the blanks is a colon.
                    if bytes[at] != b':' {
                        continue;
                    }
                    let literal = &self.rest[key];
                    // A key `text` spelt with escapes would keep its string
                    // here, where a number could pass for a lifted one's:
                    // left to serde_json.
                    if memchr::memchr(b'\\', literal).is_some()
                        && !serde_json::from_slice::<String>(literal).is_ok_and(|key| key != "text")
                    {
                        self.not_here = true;
                        continue;
                    }
                    if literal == b"\"text\"" {
                        self.rest.push(b':');
                        at += 1;
                        self.place = Place::AfterTextKey;
                    }
                }
                Place::Between { key: None } => {
                    let Some(quote) = memchr::memchr(b'"', &bytes[at..]) else {
                        self.rest.extend_from_slice(&bytes[at..]);
                        return bytes.len();
                    };
                    self.rest.extend_from_slice(&bytes[at..=at + quote]);
                    at += quote + 1;
                    self.place = Place::InString {
                        start: self.rest.len() - 1,
                    };
                }
                Place::AfterTextKey => {
                    let Some(next) = self.copy_blanks(bytes, at) else {
                        return bytes.len();
                    };
                    at = next;
                    if bytes[at] != b'"' {
                        self.place = Place::Between { key: None };
                        continue;
                    }
                    at += 1;
                    let number = format!("\"{}\"", self.texts.len());
                    self.places
                        .push(self.rest.len()..self.rest.len() + number.len());
                    self.rest.extend_from_slice(number.as_bytes());
                    self.texts.push(Vec::new());
                    self.place = Place::InText;
                }
                Place::InString { start } => {
                    let start = *start;
                    let Some(found) = memchr::memchr2(b'"', b'\\', &bytes[at..]) else {
                        self.rest.extend_from_slice(&bytes[at..]);
                        return bytes.len();
                    };
                    let found = at + found;
                    if bytes[found] == b'"' {
                        self.rest.extend_from_slice(&bytes[at..=found]);
                        at = found + 1;
                        self.place = Place::Between {
                            key: Some(start..self.rest.len()),
                        };
                    } else if found + 1 < bytes.len() || at_end {
                        // An escape: what it escapes cannot end the string.
                        let end = (found + 2).min(bytes.len());
                        self.rest.extend_from_slice(&bytes[at..end]);
                        at = end;
                    } else {
                        self.rest.extend_from_slice(&bytes[at..found]);
                        return found;
                    }
                }
                Place::InText => match self.read_text(&bytes[at..], at_end) {
                    Ok(read) => at += read,
                    // Cut in an escape: read with the next piece.
                    Err(cut) => {
                        at += cut;
                        break;
                    }
                },
            }
        }
        if self.place == Place::InText && !self.broken {
            self.make_room();
        }
        at
    }

    /// Makes room in the open text for all that may still come of it,
    /// once: a text that goes on past a piece is copied at most once
    /// (a piece of it), never as it grows (the copies made a whole-text
    /// replace's peak 16 MiB higher). Only the open text has such room: a
    /// body of many texts reserves no more.
    fn make_room(&mut self) {
        if let Some(text) = self.texts.last_mut() {
            text.reserve_exact(self.after + LONGEST_ESCAPE);
            self.made_room = true;
        }
    }

    /// Copies the blanks from `at`: where the next other byte is, if any.
    fn copy_blanks(&mut self, bytes: &[u8], at: usize) -> Option<usize> {
        let blanks = bytes[at..].iter().position(|b| !b.is_ascii_whitespace());
        let end = blanks.map_or(bytes.len(), |blanks| at + blanks);
        self.rest.extend_from_slice(&bytes[at..end]);
        blanks.map(|_| end)
    }

    /// Unescapes the text's literal from the start of `bytes` up to its
    /// closing quote (then past it) or the end of `bytes`; how many bytes
    /// it read; or where an escape the end of `bytes` cuts starts, the
    /// text written up to it. A text of JSON holds an escaped
    /// quote every few bytes, too often to jump from one to the next.
    fn read_text(&mut self, bytes: &[u8], at_end: bool) -> Result<usize, usize> {
        let text = self.texts.last_mut().expect("a text is being read");
        let mut at = 0;
        loop {
            // The plain bytes up to the next quote, backslash or control.
            let run = plain_run(&bytes[at..]);
            text.extend_from_slice(&bytes[at..at + run]);
            at += run;
            match bytes.get(at) {
                None => return Ok(at),
                Some(b'"') => {
                    if std::mem::take(&mut self.made_room) {
                        text.shrink_to_fit();
                    }
                    self.place = Place::Between { key: None };
                    return Ok(at + 1);
                }
                Some(b'\\') => {
                    // The escapes a JSON text is full of stand for one byte.
                    let one = match bytes.get(at + 1) {
                        Some(b'"') => Some(b'"'),
                        Some(b'\\') => Some(b'\\'),
                        Some(b'n') => Some(b'\n'),
                        _ => None,
                    };
                    if let Some(byte) = one {
                        text.push(byte);
                        at += 2;
                        continue;
                    }
                    let whole = at_end
                        || bytes.len() - at >= LONGEST_ESCAPE
                        || bytes.get(at + 1).is_some_and(|&b| b != b'u');
                    if !whole {
                        return Err(at);
                    }
                    let Some((plain, next)) = escape(bytes, at) else {
                        self.broken = true;
                        return Ok(bytes.len());
                    };
                    text.extend_from_slice(plain.encode_utf8(&mut [0; 4]).as_bytes());
                    at = next;
                }
                Some(_) => {
                    self.broken = true;
                    return Ok(bytes.len());
                }
            }
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

    /// `body` lifted as it comes in pieces that end at `cuts`.
    fn lift_in(body: &[u8], cuts: &[usize]) -> Result<Lifted, NotLifted> {
        let mut lifting = Lifting::new(body.len());
        let mut from = 0;
        for &cut in cuts.iter().chain([&body.len()]) {
            let cut = cut.clamp(from, body.len());
            lifting.feed(&body[from..cut]);
            from = cut;
        }
        lifting.finish()
    }

    fn lift(body: &[u8]) -> Result<Lifted, NotLifted> {
        lift_in(body, &[])
    }

    /// The JSON value of `body`, lifted: None where it is left to
    /// `serde_json` or refused.
    fn decode(body: &[u8]) -> Option<Value> {
        lift(body).ok()?.into_value().ok()
    }

    /// What a lift ends in, to compare: the same whatever the pieces.
    fn outcome(lifted: Result<Lifted, NotLifted>) -> String {
        match lifted {
            Ok(lifted) => format!("{:?} {:?} {:?}", lifted.rest, lifted.texts, lifted.places),
            Err(not) => format!("{not:?}"),
        }
    }

    /// What a reader makes of `body` through [`lift`]: the value, or
    /// `serde_json`'s verdict on the frame given back, or a refusal; each
    /// must be what `serde_json` makes of the body itself.
    fn agrees_with_serde_json(body: &[u8]) -> Result<(), String> {
        let theirs = serde_json::from_slice::<Value>(body).ok();
        let frame = match lift(body) {
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
        let body = format!("{{\"text\": {literal}}}");
        assert_eq!(
            decode(body.as_bytes()),
            Some(serde_json::json!({"text": expected}))
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
        let Err(NotLifted::Untouched(frame)) = lift(body) else {
            panic!("given back");
        };
        assert_ne!(
            &frame[..],
            &body[..],
            "its texts were lifted, then written back"
        );
        agrees_with_serde_json(body).unwrap();
    }

    /// A text is written where it was first made, whatever the pieces: never
    /// copied as it grows; once closed, it holds no more than itself.
    #[test]
    fn a_text_is_made_once() {
        // With escapes (some pieces end in one) and without any.
        for piece in ["{\"k\": \"路\"}\n", "plain 路😀 text "] {
            let text = piece.repeat(LONG_STRING_BYTES / 8);
            let body = serde_json::to_vec(&serde_json::json!({"params": {"text": text}})).unwrap();
            for size in [4095, 4096] {
                let mut lifting = Lifting::new(body.len());
                let mut made = None;
                for piece in body.chunks(size) {
                    lifting.feed(piece);
                    if lifting.place != Place::InText {
                        continue;
                    }
                    let now = lifting.texts.first().map(|t| (t.as_ptr(), t.capacity()));
                    assert!(made.is_none() || now == made, "moved or grown");
                    made = made.or(now);
                }
                let (_, room) = made.expect("a text");
                assert!(room >= text.len() && room <= body.len(), "{room}");
                let lifted = lifting.finish().expect("lifted");
                assert_eq!(
                    (lifted.texts[0].len(), lifted.texts[0].capacity()),
                    (text.len(), text.len())
                );
            }
        }
    }

    /// A body of many texts, each open across pieces, reserves room for
    /// one at a time: each reserving the rest of the body aborted the
    /// server on a body of 200 000 texts that said it was of 1 GiB, and
    /// texts that kept what they did not use held 80 times the body.
    #[test]
    fn many_texts_reserve_room_for_one_at_a_time() {
        let mut body = br#"{"pad": ""#.to_vec();
        body.resize(body.len() + (1 << 20), b'p');
        body.extend_from_slice(br#"", "params":{"contentChanges":["#);
        let mut cuts = Vec::new();
        for i in 0..50_000 {
            body.extend_from_slice(br#"{"text":""#);
            cuts.push(body.len());
            body.extend_from_slice(format!(r#"{}"}},"#, "x".repeat(i % 7)).as_bytes());
        }
        body.extend_from_slice(br#"{"text":""}]}}"#);
        for said in [body.len(), 1 << 30] {
            let mut lifting = Lifting::new(said);
            let (mut from, mut closed, mut closed_room) = (0, 0, 0);
            for &cut in cuts.iter().chain([&body.len()]) {
                lifting.feed(&body[from..cut]);
                from = cut;
                // A closed text's room is for good: counted once.
                while closed + 1 < lifting.texts.len() {
                    closed_room += lifting.texts[closed].capacity();
                    closed += 1;
                }
                let room = closed_room + lifting.texts.last().map_or(0, Vec::capacity);
                assert!(room <= said + 2 * body.len(), "{room} bytes reserved");
            }
            let value = lifting.finish().expect("lifted").into_value().unwrap();
            assert_eq!(
                value["params"]["contentChanges"].as_array().map(Vec::len),
                Some(50_001)
            );
        }
    }

    /// Every escape cut at every place by the end of a piece, and pieces
    /// of every length from one byte: the same as the body read whole.
    #[test]
    fn pieces_of_any_length_read_as_the_whole() {
        let bodies = [
            r#"{"a": "x\"", "text": "\u00e9\uD83D\uDE00\/\u0041\n\"\\\t\r\b\f路😀", "b": {"text" :  "\\"}}"#,
            r#"{"te\u0078t": "0", "text": "lifted"}"#,
            r#"{"n\u0061me": "x\\", "text": "a \"quoted\" text"}"#,
            r#"{"text": "\uD83D\u0041"}"#,
            r#"{"text": "abc\uD83D"#,
            r#"{"text": "abc\"#,
            r#"{"a": "abc\"#,
            r#"{"text": 1, "b": "text", "c": ["text", "d"], "text"   :   "e"}"#,
        ];
        // Not UTF-8: a character cut short before the quote, a stray byte.
        let not_utf8 = [
            &b"{\"text\": \"ab\xe8\xb7\"}"[..],
            b"{\"text\": \"ab\xffcd\"}",
        ];
        for body in bodies.map(str::as_bytes).into_iter().chain(not_utf8) {
            agrees_with_serde_json(body).unwrap();
            let whole = outcome(lift(body));
            for cut in 0..=body.len() {
                assert_eq!(
                    outcome(lift_in(body, &[cut])),
                    whole,
                    "cut at {cut} of {:?}",
                    String::from_utf8_lossy(body)
                );
            }
            for every in 1..=LONGEST_ESCAPE + 1 {
                let cuts: Vec<usize> = (every..body.len()).step_by(every).collect();
                assert_eq!(outcome(lift_in(body, &cuts)), whole, "pieces of {every}");
            }
        }
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

        /// Any body, broken or not, cut anywhere: the same as read whole.
        #[test]
        fn any_pieces_read_as_the_whole(value in values(), cuts in proptest::collection::vec(0.0..1.0f64, 0..6), at in 0.0..1.0f64, byte in proptest::prelude::any::<u8>(), broken in proptest::prelude::any::<bool>()) {
            let mut body = serde_json::to_vec(&value).unwrap();
            if broken {
                let at = ((body.len() as f64 * at) as usize).min(body.len() - 1);
                body[at] = byte;
            }
            let mut cuts: Vec<usize> = cuts.iter().map(|c| (body.len() as f64 * c) as usize).collect();
            cuts.sort_unstable();
            proptest::prop_assert_eq!(outcome(lift_in(&body, &cuts)), outcome(lift(&body)));
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
