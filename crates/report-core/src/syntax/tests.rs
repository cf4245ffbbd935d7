//! The parser's tests: text in, tree and errors out.

use super::*;

fn error_of(text: &str) -> SyntaxError {
    let parse = parse(text);
    assert!(!parse.errors.is_empty(), "{text:?} parsed without errors");
    parse.errors[0].clone()
}

fn message_of(text: &str) -> String {
    match error_of(text).kind {
        SyntaxErrorKind::Invalid(message) => message,
        other => panic!("{text:?}: {other:?}"),
    }
}

#[test]
fn builds_a_positioned_tree() {
    let text = r#"{"a": [1, "x\u00e9"], "b": {"c": null}}"#;
    let parse = parse(text);
    let root = parse.root().unwrap();
    let a = root.member("a").unwrap();
    assert_eq!(&text[a.key_range.as_range()], "\"a\"");
    assert_eq!(&text[a.value.range().as_range()], r#"[1, "x\u00e9"]"#);
    assert_eq!(root.lookup("/a/1").unwrap().as_str(), Some("xé"));
    assert_eq!(root.lookup("/a/0").unwrap().value(), Value::Number("1"));
    assert_eq!(root.lookup("/b/c").unwrap().json_type(), JsonType::Null);
    assert_eq!(root.lookup("/a/01"), None);
    assert_eq!(root.lookup(""), Some(root));
    assert_eq!(
        root.members().unwrap().map(|m| m.key).collect::<Vec<_>>(),
        ["a", "b"]
    );
    assert_eq!(root.get("b").unwrap().members().unwrap().count(), 1);
    assert_eq!(parse.tree.as_ref().unwrap().len(), 6);
}

#[test]
fn escaped_keys_and_strings_are_decoded() {
    let text = r#"{"a\/b": {"~": "\ud83d\ude00\n"}, "plain": "x"}"#;
    let parse = parse(text);
    let root = parse.root().unwrap();
    assert_eq!(root.lookup("/a~1b/~0").unwrap().as_str(), Some("😀\n"));
    assert_eq!(root.members().unwrap().next().unwrap().key, "a/b");
}

#[test]
fn empty_containers_and_scalars_at_the_root() {
    for (text, json_type) in [
        ("{}", JsonType::Object),
        ("[]", JsonType::Array),
        (" 1 ", JsonType::Number),
        ("\"s\"", JsonType::String),
        ("[[], {}]", JsonType::Array),
    ] {
        let parse = parse(text);
        assert!(parse.errors.is_empty(), "{text:?}: {:?}", parse.errors);
        assert_eq!(parse.root().unwrap().json_type(), json_type, "{text:?}");
    }
    let parse = parse("[[], {}, [1]]");
    let items: Vec<_> = parse
        .root()
        .unwrap()
        .items()
        .unwrap()
        .map(|n| n.json_type())
        .collect();
    assert_eq!(items, [JsonType::Array, JsonType::Object, JsonType::Array]);
}

#[test]
fn path_to_descends_to_the_innermost_node() {
    let text = r#"{"a": [1, {"b": true}]}"#;
    let parse = parse(text);
    let path = parse.root().unwrap().path_to(text.find("true").unwrap());
    let keys: Vec<_> = path.iter().map(|(m, _)| m.map(|m| m.key)).collect();
    assert_eq!(keys, [None, Some("a"), None, Some("b")]);
}

#[test]
fn every_leniency_is_rejected_with_a_clear_message() {
    let cases = [
        ("{\"a\": 1,}", "trailing commas are not allowed"),
        ("[1,]", "trailing commas are not allowed"),
        ("{\"a\": 1 // c\n}", "comments are not allowed in JSON"),
        ("{a: 1}", "keys must be double-quoted strings, found `a`"),
        ("{\"a\": 'x'}", "single-quoted strings are not allowed"),
        ("{\"a\": 0x1F}", "hexadecimal numbers are not allowed"),
        ("{\"a\": +1}", "unary plus on numbers is not allowed"),
        (
            "{\"a\": .5}",
            "leading or trailing decimal points on numbers are not allowed",
        ),
        (
            "{\"a\": 5.}",
            "leading or trailing decimal points on numbers are not allowed",
        ),
        ("{\"a\": NaN}", "unexpected `NaN`; expected a JSON value"),
        ("{\"a\": 1 \"b\": 2}", "expected a comma"),
        ("{\"a\": 01}", "expected a comma"),
        (
            "{\"a\": \"x\ty\"}",
            "a raw tab inside a string; write it as \\t",
        ),
        (
            "{} {}",
            "more than one JSON value: a report is a single object",
        ),
        ("{\"a\" 1}", "expected a colon after the key"),
        ("[1}", "mismatched bracket: expected `,` or `]`"),
        ("{\"a\": [1, 2}", "mismatched bracket: expected `,` or `]`"),
        ("{\"a\": }", "expected a value, found `}`"),
        ("[\"abc", "unterminated string literal"),
        (
            "{\"a\": [1, 2",
            "unterminated array: the text ends before it is closed",
        ),
        (
            "{\"a\": 1",
            "unterminated object: the text ends before it is closed",
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(message_of(text), expected, "{text:?}");
    }
    for text in [
        "{\"a\": \"x\u{1}y\"}",
        "\u{b}{}",
        "\u{c}{}",
        "\u{feff}{}",
        "{\"a\": \"\\ud800\"}",
        "{\"a\": \"\\x41\"}",
    ] {
        assert!(
            matches!(error_of(text).kind, SyntaxErrorKind::Invalid(_)),
            "{text:?}"
        );
    }
}

#[test]
fn empty_text_is_its_own_error() {
    for text in ["", "  \n"] {
        assert_eq!(error_of(text).kind, SyntaxErrorKind::Empty);
    }
}

#[test]
fn duplicate_keys_point_at_the_repeat_and_the_first() {
    let text = r#"{"a": 1, "b": 2, "a": 3}"#;
    let error = error_of(text);
    assert_eq!(error.range, TextRange::new(17, 20));
    assert_eq!(
        error.kind,
        SyntaxErrorKind::DuplicateKey {
            key: "a".into(),
            first: TextRange::new(1, 4)
        }
    );
    // The last occurrence wins, as in the consumers' parsers.
    let parse = parse(text);
    assert_eq!(
        parse.root().unwrap().get("a").unwrap().value(),
        Value::Number("3")
    );
}

#[test]
fn duplicate_keys_are_found_in_large_objects_and_not_across_objects() {
    let mut text = String::from("{");
    for i in 0..40 {
        text.push_str(&format!("\"k{i}\": {{\"k{i}\": 1}}, "));
    }
    text.push_str("\"k3\": 0}");
    let parse = parse(&text);
    assert_eq!(parse.errors.len(), 1, "{:?}", parse.errors);
    assert!(
        matches!(parse.errors[0].kind, SyntaxErrorKind::DuplicateKey { ref key, .. } if key == "k3")
    );
    // Past the linear scan too, the last occurrence wins.
    let root = parse.root().unwrap();
    assert_eq!(root.get("k3").unwrap().value(), Value::Number("0"));
    assert!(root.get("k4").unwrap().is_object());
}

#[test]
fn a_huge_object_is_checked_in_linear_time() {
    let mut text = String::from("{");
    for i in 0..200_000 {
        text.push_str(&format!("\"k{i}\": {i},"));
    }
    text.push_str("\"end\": 0}");
    let parse = parse(&text);
    assert!(parse.errors.is_empty());
    assert_eq!(parse.root().unwrap().members().unwrap().count(), 200_001);
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let text = "[".repeat(100_000);
    assert_eq!(error_of(&text).kind, SyntaxErrorKind::NestingTooDeep);
    let text = format!(
        "{}{}",
        "[".repeat(MAX_NESTING_DEPTH),
        "]".repeat(MAX_NESTING_DEPTH)
    );
    assert!(parse(&text).errors.is_empty());
}

#[test]
fn error_ranges_stay_on_character_boundaries() {
    for text in ["{\"é\": é}", "{\"a\": \"é", "[1, 2 é]"] {
        let error = error_of(text);
        assert!(
            text.is_char_boundary(error.range.start) && text.is_char_boundary(error.range.end),
            "{text:?}"
        );
    }
}

/// Every error of `text`, as messages (duplicate keys shown by key).
fn messages(text: &str) -> Vec<String> {
    parse(text)
        .errors
        .iter()
        .map(|e| match &e.kind {
            SyntaxErrorKind::Invalid(message) => message.clone(),
            other => format!("{other:?}"),
        })
        .collect()
}

/// Each class of text strict JSON accepts, in small cases of our own.
#[test]
fn strict_json_is_accepted_in_every_form() {
    for text in [
        "-0",
        "0.5e-3",
        "1E+2",
        "-1.25e10",
        "1e999",
        "123456789012345678901234567890",
        r#""\"\\\/\b\f\n\r\t""#,
        r#""\u0000\u001f\u00e9\uD834\uDD1E""#,
        "\"é 日本 😀 \u{2028} \u{7f}\"",
        "\"\"",
        "{\"\": 1}",
        "[[[]], {}, [{}], {\"a\": []}]",
        " \t\r\n[ 1 , 2 ]\r\n ",
        "true",
        "null",
        "[false, true, null]",
        "{\"a\": {\"b\": {\"c\": [1, \"x\", null]}}}",
    ] {
        let parse = parse(text);
        assert!(parse.errors.is_empty(), "{text:?}: {:?}", parse.errors);
        let root = parse.root().unwrap();
        assert!(!root.is_broken() && !root.is_incomplete(), "{text:?}");
    }
    assert_eq!(
        parse(r#""\uD834\uDD1E""#).root().unwrap().as_str(),
        Some("𝄞")
    );
}

/// Each class of text strict JSON rejects: every one is an error.
#[test]
fn every_kind_of_invalid_json_is_rejected() {
    for text in [
        // Numbers.
        "-",
        "1.",
        ".1",
        "+1",
        "1e",
        "1e+",
        "0x10",
        "Infinity",
        "-Infinity",
        "NaN",
        "1.5.3",
        "12px",
        "- 1",
        "[01]",
        "[-01]",
        "2.e3",
        // Literals.
        "tru",
        "True",
        "nul",
        "falsey",
        "[true false]",
        // Strings.
        "\"abc",
        "\"a\\x\"",
        "\"\\'\"",
        "\"\\U0041\"",
        "\"\\u12\"",
        "\"\\u12zz\"",
        "\"\\",
        "'a'",
        "\"\\uDD1E\"",
        "\"\\uD834x\"",
        // Structure.
        "[1,]",
        "[,1]",
        "[1,,2]",
        "{\"a\":1,}",
        "{,}",
        "{\"a\"}",
        "{\"a\" 1}",
        "{1:1}",
        "{'a':1}",
        "[\"a\" \"b\"]",
        "[1]]",
        "[1",
        "{",
        "]",
        "}",
        "[}",
        "{]",
        ":",
        ",",
        "[1]x",
        "{} {}",
        "[1] 2",
        "{\"a\" : : 1}",
        "{:1}",
        "{\"a\":1 \"b\":2}",
        // What is no whitespace, and what is no JSON at all.
        "// c\n1",
        "/* c */ 1",
        "\u{feff}1",
        "\u{b}1",
        "\u{c}1",
        "\u{a0}1",
        "1\u{0}",
        "#",
        "\u{3000}",
        "",
    ] {
        assert!(!parse(text).errors.is_empty(), "{text:?} was accepted");
    }
}

/// Invariant 1: a raw control character inside a string is an error,
/// line feed and carriage return included, and the message says how to
/// escape it.
#[test]
fn raw_control_characters_in_strings_say_how_to_escape_them() {
    for byte in 0u8..0x20 {
        let text = format!("[\"a{}b\"]", byte as char);
        let messages = messages(&text);
        let expected = match byte {
            b'\n' => "\\n".to_string(),
            b'\r' => "\\r".to_string(),
            b'\t' => "\\t".to_string(),
            _ => format!("\\u{byte:04x}"),
        };
        assert_eq!(messages.len(), 1, "U+{byte:04X}: {messages:?}");
        assert!(
            messages[0].contains(&expected),
            "U+{byte:04X}: {messages:?}"
        );
    }
    // The value is still what is written: the string breaks nothing.
    let parse = parse("{\"op\": \"re\nwrite\", \"b\": 1}");
    let root = parse.root().unwrap();
    assert_eq!(root.get("op").unwrap().as_str(), Some("re\nwrite"));
    assert!(!root.is_broken());
}

/// The members of an object as `key=value` (`key=!` for an error node).
fn shape(node: Node<'_>) -> String {
    let render = |n: Node<'_>| match n.value() {
        Value::Error if n.is_missing() => "!missing".to_string(),
        Value::Error => "!".to_string(),
        Value::Object => format!("{{{}}}", shape(n)),
        Value::Array => format!(
            "[{}]",
            n.items()
                .unwrap()
                .map(|i| match i.value() {
                    Value::Object => format!("{{{}}}", shape(i)),
                    Value::Error => "!".into(),
                    _ => n.tree.text()[i.range().as_range()].to_string(),
                })
                .collect::<Vec<_>>()
                .join(" ")
        ),
        _ => n.tree.text()[n.range().as_range()].to_string(),
    };
    match node.members() {
        Some(members) => members
            .map(|m| format!("{}={}", m.key, render(m.value)))
            .collect::<Vec<_>>()
            .join(" "),
        None => render(node),
    }
}

/// Each way of breaking JSON: one error, and the tree a reader would see.
#[test]
fn each_break_gives_one_error_and_the_tree_around_it() {
    let cases = [
        // Missing comma, extra comma, missing colon, missing value.
        ("{\"a\": 1 \"b\": 2}", "a=1 b=2", "expected a comma"),
        ("{\"a\": 1,, \"b\": 2}", "a=1 b=2", "an extra comma"),
        (
            "{\"a\" 1, \"b\": 2}",
            "a=1 b=2",
            "expected a colon after the key",
        ),
        (
            "{\"a\": , \"b\": 2}",
            "a=!missing b=2",
            "expected a value, found `,`",
        ),
        (
            "{\n  \"a\": \n  \"b\": 2}",
            "a=!missing b=2",
            "expected a value after the colon",
        ),
        (
            "{\"a\"\n  \"b\": 2}",
            "a=!missing b=2",
            "expected a colon after the key",
        ),
        // Unterminated strings: a value being typed, a key being typed.
        (
            "{\"a\": \"de\n  \"b\": 2}",
            "a=! b=2",
            "unterminated string literal: the line ends before its closing `\"`; a line break inside a string is written \\n",
        ),
        (
            "{\"a\": 1,\n  \"b\n  \"c\": 2}",
            "a=1 b=!missing c=2",
            "unterminated string literal: the line ends before its closing `\"`; a line break inside a string is written \\n",
        ),
        (
            "{\"a\": \"n, \"b\": 2}",
            "a=! b=2",
            "unterminated string literal: it has no closing `\"` before the next string",
        ),
        (
            "{\"a\": \"n \"b\": 2}",
            "a=! b=2",
            "unterminated string literal: it has no closing `\"` before the next string",
        ),
        // Missing brackets.
        (
            "{\"e\": [{\"x\": 1, {\"x\": 2}]}",
            "e=[{x=1} {x=2}]",
            "expected `}`: the object is not closed before the next item",
        ),
        (
            "{\"e\": [{\"x\": 1}, \"x\": 2}]}",
            "e=[{x=1} {x=2}]",
            "expected `{` before this key",
        ),
        (
            "{\n  \"s\":\n    \"x\": 1, \"y\": 2},\n  \"b\": 3}",
            "s={x=1 y=2} b=3",
            "expected `{` before this key",
        ),
        (
            "{\"a\": \"b\": 2}",
            "a=!missing b=2",
            "expected a value after the colon",
        ),
        (
            "{\"a\": [\"x\", \"b\": 2}",
            "a=[\"x\"] b=2",
            "expected `]`: the array is not closed before this key",
        ),
        (
            "{\"a\": [1, 2}",
            "a=[1 2]",
            "mismatched bracket: expected `,` or `]`",
        ),
        (
            "{\"e\": [{\"x\": 1\n]}",
            "e=[{x=1}]",
            "mismatched bracket: expected `,` or `}`",
        ),
        (
            "{\"a\": {\"x\": 1}}, \"b\": 2}",
            "a={x=1} b=2",
            "this bracket closes the document too early: more follows after it",
        ),
        // Stray characters.
        (
            "{\"a\": foo, \"b\": 2}",
            "a=! b=2",
            "unexpected `foo`; expected a JSON value",
        ),
        (
            "{\"a\": 2026-11-29T18:42:07Z\", \"b\": 2}",
            "a=! b=2",
            "unexpected `2026-11-29T18:42:07Z\"`; expected a JSON value (is a string missing its opening quote?)",
        ),
        (
            "{\"a\": 1, @@ \"b\": 2}",
            "a=1 b=2",
            "keys must be double-quoted strings, found `@@`",
        ),
        (
            "{\"a\": 1 @@, \"b\": 2}",
            "a=1 b=2",
            "unexpected `@@`; expected `,` or `}`",
        ),
        (
            "{a: 1, \"b\": 2}",
            "a=1 b=2",
            "keys must be double-quoted strings, found `a`",
        ),
        // Errors that break nothing.
        (
            "{\"a\": 1, \"b\": 2,}",
            "a=1 b=2",
            "trailing commas are not allowed",
        ),
        (
            "{\"a\": 1, /* c */ \"b\": 2}",
            "a=1 b=2",
            "comments are not allowed in JSON",
        ),
    ];
    for (text, expected_shape, expected_message) in cases {
        let parse = parse(text);
        let root = parse.root().unwrap();
        assert_eq!(shape(root), expected_shape, "{text:?}");
        assert_eq!(messages(text), [expected_message], "{text:?}");
        check_ranges(&parse);
    }
    // Only what made the parser guess breaks the containers around it.
    assert!(!parse("{\"a\": [1, 2,]}").root().unwrap().is_broken());
    let parse = parse("{\"e\": [{\"x\": 1, {\"x\": 2}]}");
    let items: Vec<_> = parse
        .root()
        .unwrap()
        .lookup("/e")
        .unwrap()
        .items()
        .unwrap()
        .collect();
    assert!(items[0].is_broken() && !items[1].is_broken());
    assert!(parse.root().unwrap().is_broken() && !parse.root().unwrap().is_incomplete());
}

#[test]
fn a_value_skipped_where_a_key_belongs_may_be_items_of_the_array_around() {
    // The `{` may open the array's next item, whose object lost its `}`:
    // the objects out to the array, and the array, may lack what they hold.
    let text = "{\"e\": [{\"k\": {\"x\": 1, {\"y\": 2}}, {\"z\": 3}], \"p\": 1}";
    let parsed = parse(text);
    let root = parsed.root().unwrap();
    let array = root.get("e").unwrap();
    assert!(array.is_incomplete(), "{:?}", messages(text));
    let first = array.items().unwrap().next().unwrap();
    assert!(first.is_incomplete());
    assert!(first.get("k").unwrap().is_incomplete());
    // Outside the array nothing is lost.
    assert!(!root.is_incomplete());
    assert_eq!(root.get("p").unwrap().value(), Value::Number("1"));
}

#[test]
fn a_root_split_off_by_an_error_may_lack_what_follows() {
    // A stray `}` ends the root, and its last member is skipped as a
    // second value: the root is incomplete, so no check calls it missing.
    let text = "{\"a\": {\"b\": 1}},\n\"c\": [] }";
    let parsed = parse(text);
    assert!(parsed.root().unwrap().is_incomplete());
    let text = "{\"a\": {\"b\": 1}}}\n\"c\": [] }";
    let parsed = parse(text);
    let root = parsed.root().unwrap();
    assert!(root.is_incomplete(), "{:?}", messages(text));
    assert!(root.get("c").is_none());
    // A complete root stays complete.
    assert!(!parse("{\"a\": 1}").root().unwrap().is_incomplete());
}

#[test]
fn unclosed_text_keeps_what_it_holds_and_is_incomplete() {
    let text = "{\"e\": [{\"x\": 1}, {\"x\": 2, \"y\": [3";
    let parse = parse(text);
    assert_eq!(
        messages(text),
        ["unterminated array: the text ends before it is closed"]
    );
    let root = parse.root().unwrap();
    assert_eq!(shape(root), "e=[{x=1} {x=2 y=[3]}]");
    assert!(root.is_incomplete());
    let entries = root.get("e").unwrap();
    assert!(!entries.items().unwrap().next().unwrap().is_broken());
    assert_eq!(root.range().end, text.len());
    // Truncated inside a string: that is the one error.
    assert_eq!(messages("{\"e\": [\"ab"), ["unterminated string literal"]);
}

/// What a completion needs from half-typed text: the member being typed, and its value.
#[test]
fn a_half_typed_value_is_found_by_its_path() {
    for (text, missing) in [
        ("{\"entries\": [{\"path\": \"a\", \"op_type\": \"de", false),
        ("{\"entries\": [{\"path\": \"a\", \"op_type\": ", true),
        (
            "{\"entries\": [{\"path\": \"a\", \"op_type\": \n  }]}",
            true,
        ),
    ] {
        let parse = parse(text);
        let offset = text.trim_end_matches(['\n', ' ', '}', ']']).len();
        let path = parse.root().unwrap().path_to(offset);
        let keys: Vec<_> = path.iter().map(|(m, _)| m.map(|m| m.key)).collect();
        assert_eq!(
            keys,
            [None, Some("entries"), None, Some("op_type")],
            "{text:?}"
        );
        let value = path.last().unwrap().1;
        assert!(value.is_error(), "{text:?}");
        assert_eq!(value.is_missing(), missing, "{text:?}");
    }
}

/// Every node lies inside the text and inside its parent, in order; the
/// root's arrays, and they alone, list their items, and the list holds
/// what walking from sibling to sibling finds.
pub(super) fn check_ranges(parse: &Parse) {
    let Some(tree) = &parse.tree else { return };
    let len = tree.text().len();
    let root = tree.root();
    let mut listed = 0;
    let mut stack = vec![(root, None)];
    while let Some((node, parent)) = stack.pop() {
        let chased = node.chased_children();
        if node.is_listed() {
            listed += chased.len();
        }
        assert_eq!(
            node.is_listed(),
            node.is_array() && root.is_object() && parent == Some(root),
            "{node:?} in {parent:?}"
        );
        assert_eq!(node.children().collect::<Vec<_>>(), chased, "{node:?}");
        assert_eq!(node.children().count(), chased.len());
        for nth in [
            0,
            chased.len() / 2,
            chased.len().saturating_sub(1),
            chased.len(),
        ] {
            let mut children = node.children();
            assert_eq!(children.nth(nth), chased.get(nth).copied());
            // What is left after it.
            let rest = chased.get(nth + 1..).unwrap_or_default();
            let (low, high) = children.size_hint();
            assert!(low <= rest.len() && high.is_none_or(|high| high >= rest.len()));
            assert_eq!(children.collect::<Vec<_>>(), rest);
        }
        let range = node.range();
        assert!(range.start <= range.end && range.end <= len, "{range:?}");
        let mut previous_end = range.start;
        for child in node.children() {
            let r = child.range();
            assert!(
                r.start >= previous_end && r.end <= range.end,
                "{r:?} in {range:?}"
            );
            if let Some(members) = node.members() {
                let _ = members.count();
                let m = child.as_member();
                assert!(
                    m.key_range.start >= previous_end && m.key_range.end <= r.start,
                    "{:?} before {r:?}",
                    m.key_range
                );
            }
            previous_end = r.end;
            stack.push((child, Some(node)));
        }
    }
    // Nothing else is listed.
    assert_eq!(tree.listed_items.len(), listed);
    for error in &parse.errors {
        assert!(error.range.end <= len);
    }
}

#[test]
fn a_container_past_its_limit_of_errors_shows_in_the_count() {
    // Four missing commas in one array: three are reported, and the count
    // says some may be held back.
    let held_back = parse("[1 2 3 4 5]");
    assert_eq!(held_back.errors.len(), recovery::MAX_ERRORS_PER_CONTAINER);
    assert!(!recovery::every_error_reported(held_back.errors.len()));
    // Below the limit, every one is listed.
    let all = parse("[1 2 3]");
    assert_eq!(all.errors.len(), 2);
    assert!(recovery::every_error_reported(all.errors.len()));
}

#[test]
fn bad_input_gives_a_bounded_number_of_errors() {
    let mut rng = fastrand::Rng::with_seed(5);
    let alphabet: Vec<char> = "{}[],:\"'\\ \n\t1-.eE0tfnu#@xé😀/*".chars().collect();
    let garbage: String = (0..1 << 20)
        .map(|_| alphabet[rng.usize(..alphabet.len())])
        .collect();
    let line = "x!".repeat(1 << 19);
    for text in [
        "[".repeat(100_000),
        "{".repeat(100_000),
        "]".repeat(100_000),
        "{\"a\":[".repeat(50_000),
        ",".repeat(100_000),
        "\"".repeat(100_001),
        garbage,
        format!("{{\"a\": {line}}}"),
        format!("[{line}"),
    ] {
        let parse = parse(&text);
        assert!(parse.root().is_some());
        let syntax = parse
            .errors
            .iter()
            .filter(|e| !matches!(e.kind, SyntaxErrorKind::DuplicateKey { .. }))
            .count();
        assert!((1..=MAX_SYNTAX_ERRORS).contains(&syntax), "{syntax} errors");
        check_ranges(&parse);
    }
    // A member that lost its colon, then turns out to be followed by a key.
    check_ranges(&parse("{\"a\": 1, \"k\" \"v\" /**/ : 2}"));
    // A listed array's last item turns out to be a key: the array is closed before it.
    let unlisted = parse("{\"entries\": [1, \"k\": 2, \"more\": [{}, [3]]}");
    assert_eq!(unlisted.errors.len(), 1, "{:?}", unlisted.errors);
    let root = unlisted.root().unwrap();
    assert_eq!(root.get("entries").unwrap().items().unwrap().count(), 1);
    assert_eq!(
        root.lookup("/k").and_then(|k| k.source().parse().ok()),
        Some(2)
    );
    check_ranges(&unlisted);
    for _ in 0..3000 {
        let len = rng.usize(0..40);
        let text: String = (0..len)
            .map(|_| alphabet[rng.usize(..alphabet.len())])
            .collect();
        let parse = parse(&text);
        check_ranges(&parse);
        assert!(
            parse.errors.len() <= 3 * len + 1,
            "{text:?}: {:?}",
            parse.errors
        );
    }
}

fn to_serde(node: Node<'_>) -> serde_json::Value {
    match node.value() {
        Value::Null => serde_json::Value::Null,
        Value::Bool(b) => serde_json::Value::Bool(b),
        Value::Number(raw) => serde_json::from_str(raw).unwrap(),
        Value::String(s) => serde_json::Value::String(s.to_string()),
        Value::Array => serde_json::Value::Array(node.items().unwrap().map(to_serde).collect()),
        Value::Object => serde_json::Value::Object(
            node.members()
                .unwrap()
                .map(|m| (m.key.to_string(), to_serde(m.value)))
                .collect(),
        ),
        Value::Error => panic!("an error node"),
    }
}

/// Bits of JSON, and of what is not: random texts are made of them.
pub(super) const PIECES: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    " ",
    "\n",
    "\"a\"",
    "\"b\"",
    "\"\\u00e9\"",
    "\"\\n\"",
    "1",
    "-2.5e3",
    "/**/",
    "'",
    "0",
    "true",
    "null",
    "\"",
    "\\",
    "x",
    "é",
];

/// On random short texts, whatever a strict parser accepts parses
/// without errors to the same value, and whatever it rejects for its
/// syntax has an error here.
#[test]
fn agrees_with_a_strict_parser_on_random_text() {
    let mut rng = fastrand::Rng::with_seed(9);
    let pieces = PIECES;
    let mut accepted = 0;
    for _ in 0..20_000 {
        let text: String = (0..rng.usize(1..12))
            .map(|_| pieces[rng.usize(..pieces.len())])
            .collect();
        let parse = parse(&text);
        check_ranges(&parse);
        let only_duplicates = parse
            .errors
            .iter()
            .all(|e| matches!(e.kind, SyntaxErrorKind::DuplicateKey { .. }));
        match serde_json::from_str::<serde_json::Value>(&text) {
            Ok(expected) => {
                accepted += 1;
                assert!(only_duplicates, "{text:?}: {:?}", parse.errors);
                if parse.errors.is_empty() {
                    assert_eq!(to_serde(parse.root().unwrap()), expected, "{text:?}");
                }
            }
            // Numbers of any size are JSON; serde_json refuses those past f64.
            Err(error) if error.to_string().contains("number out of range") => {}
            Err(error) if error.is_syntax() || error.is_eof() => {
                assert!(!only_duplicates, "{text:?} accepted");
            }
            Err(_) => {}
        }
    }
    assert!(accepted > 500, "{accepted}");
}
