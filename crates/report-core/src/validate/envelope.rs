//! Invariants 2 and 3 at the top level: the seven envelope fields with their
//! types, `scan` with its four, a supported `schema_version` and a strict
//! ISO-8601 UTC `generated_at`.

use super::sink::{Place, Sink, missing_key_range};
use crate::diagnostic::Code;
use crate::fix::{self, Fix};
use crate::schema::{ENVELOPE_FIELDS, SCAN_FIELDS, SUPPORTED_SCHEMA_MAJOR};
use crate::syntax::{JsonType, Node};

/// The envelope arrays the later checks walk, when they have the right type.
pub(super) struct Envelope<'n> {
    pub shortlist: Option<Node<'n>>,
    pub entries: Option<Node<'n>>,
    pub promotion_candidates: Option<Node<'n>>,
}

/// Checks the envelope. None when the rest cannot be checked without
/// guessing: the root is not an object, or the schema major is not ours.
pub(super) fn check_envelope<'n>(sink: &mut Sink, root: Node<'n>) -> Option<Envelope<'n>> {
    if root.members().is_none() {
        sink.report(
            Code::RootNotObject,
            root.range(),
            format!(
                "a report must be one JSON object, found {}",
                root.json_type().with_article()
            ),
        );
        return None;
    }
    let place = Place::ROOT;
    if let Some((version, node)) = sink.required_str(root, &place, "schema_version")
        && let Err(problem) = check_schema_version(version)
    {
        sink.report(Code::UnsupportedSchemaVersion, node.range(), problem);
        return None;
    }
    sink.required_str(root, &place, "tool_version");
    if let Some((timestamp, node)) = sink.required_str(root, &place, "generated_at") {
        match check_generated_at(timestamp) {
            Err(problem) => sink.report(
                Code::InvalidGeneratedAt,
                node.range(),
                format!(
                    "`generated_at` is \"{timestamp}\": {problem}; expected ISO-8601 UTC such as \"2026-11-29T19:07:42Z\""
                ),
            ),
            Ok(Timestamp { decimal_comma: true }) => sink.report(
                Code::DecimalComma,
                node.range(),
                format!(
                    "`generated_at` \"{timestamp}\" writes its fraction after a comma, which ISO 8601 allows but some parsers refuse; a point (\".\") is read everywhere"
                ),
            ),
            Ok(_) => {}
        }
    }
    if let Some(scan) = sink.required(root, &place, "scan") {
        check_scan(sink, scan.value, &place.field("scan"));
    }
    let array = |sink: &mut Sink, key: &'static str| {
        let member = sink.required(root, &place, key)?;
        sink.expect_type(member.value, &place.field(key), JsonType::Array)
            .then_some(member.value)
    };
    let envelope = Envelope {
        shortlist: array(sink, "shortlist"),
        entries: array(sink, "entries"),
        promotion_candidates: array(sink, "promotion_candidates"),
    };
    // The field is required even when empty, and empty is always acceptable.
    if root.member("promotion_candidates").is_none()
        && let Some(edits) = fix::insert_member(sink.text, root, "promotion_candidates", "[]")
    {
        let fix = Fix {
            title: "Add \"promotion_candidates\": []".into(),
            edits,
            preferred: true,
        };
        if let Some(missing) = sink
            .out
            .kept
            .iter_mut()
            .rev()
            .find(|d| d.code == Code::MissingField && d.range == missing_key_range(root))
        {
            missing.fix = Some(fix);
        }
    }
    sink.unknown_fields(root, &place, &[ENVELOPE_FIELDS]);
    Some(envelope)
}

fn check_scan(sink: &mut Sink, scan: Node<'_>, place: &Place<'_>) {
    if !sink.expect_type(scan, place, JsonType::Object) {
        return;
    }
    if let Some((root, value)) = sink.required_str(scan, place, "project_root")
        && root.trim().is_empty()
    {
        sink.report(
            Code::EmptyProjectRoot,
            value.range(),
            format!(
                "{} is empty; it names the folder every path is relative to (absolute, or relative to the report's folder)",
                place.field("project_root")
            ),
        );
    }
    for key in ["scope_globs", "excluded_dirs"] {
        if let Some(member) = sink.required(scan, place, key) {
            sink.string_array(member.value, &place.field(key));
        }
    }
    if let Some(member) = sink.required(scan, place, "files_scanned") {
        sink.count(member.value, &place.field("files_scanned"));
    }
    sink.unknown_fields(scan, place, &[SCAN_FIELDS]);
}

/// Accepts `MAJOR`, `MAJOR.MINOR` or `MAJOR.MINOR.PATCH` with our major.
fn check_schema_version(version: &str) -> Result<(), String> {
    let parts: Vec<&str> = version.split('.').collect();
    let numeric = |p: &&str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
    if parts.len() > 3 || !parts.iter().all(numeric) {
        return Err(format!(
            "`schema_version` \"{version}\" is not a version number; expected \"{SUPPORTED_SCHEMA_MAJOR}\", \"{SUPPORTED_SCHEMA_MAJOR}.0\" or \"{SUPPORTED_SCHEMA_MAJOR}.0.0\""
        ));
    }
    let major = parts[0].trim_start_matches('0');
    if major != SUPPORTED_SCHEMA_MAJOR {
        return Err(format!(
            "schema version \"{version}\" is not supported: this validator understands schema major version {SUPPORTED_SCHEMA_MAJOR} only, so the rest of the report is not checked"
        ));
    }
    Ok(())
}

/// What a valid `generated_at` may still deserve a word about.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Timestamp {
    /// The fraction follows a comma, ISO 8601's other decimal sign.
    pub decimal_comma: bool,
}

/// `YYYY-MM-DDTHH:MM:SS[(.|,)fraction](Z|+00:00)`, a date and time that
/// exist, a leap second `23:59:60` included. The shape is checked by hand
/// because lenient parsers accept spaces, lowercase designators and offsets
/// that a strict consumer rejects.
pub(crate) fn check_generated_at(text: &str) -> Result<Timestamp, String> {
    let b = text.as_bytes();
    let digits = |range: std::ops::Range<usize>| {
        b.get(range)
            .is_some_and(|s| s.iter().all(u8::is_ascii_digit))
    };
    let shape_ok = b.len() >= 20
        && digits(0..4)
        && b[4] == b'-'
        && digits(5..7)
        && b[7] == b'-'
        && digits(8..10)
        && b[10] == b'T'
        && digits(11..13)
        && b[13] == b':'
        && digits(14..16)
        && b[16] == b':'
        && digits(17..19);
    if !shape_ok {
        return Err("not of the form YYYY-MM-DDTHH:MM:SS".into());
    }
    let mut rest = &text[19..];
    let decimal_comma = rest.starts_with(',');
    if let Some(fraction) = rest.strip_prefix(['.', ',']) {
        let len = fraction.bytes().take_while(u8::is_ascii_digit).count();
        if len == 0 {
            return Err("a decimal point without fractional digits".into());
        }
        rest = &fraction[len..];
    }
    match rest {
        "Z" | "+00:00" => {}
        "" => return Err("no UTC designator".into()),
        "-00:00" => return Err("\"-00:00\" means an unknown offset, not UTC".into()),
        other if other.starts_with(['+', '-']) => return Err(format!("offset {other} is not UTC")),
        other => return Err(format!("unexpected \"{other}\" after the time")),
    }
    let number = |range: std::ops::Range<usize>| text[range].parse::<i16>().unwrap_or(-1);
    let (year, month, day) = (number(0..4), number(5..7), number(8..10));
    let (hour, minute, second) = (number(11..13), number(14..16), number(17..19));
    let month = i8::try_from(month).map_err(|_| format!("month {month} does not exist"))?;
    let day = i8::try_from(day).map_err(|_| format!("day {day} does not exist"))?;
    jiff::civil::Date::new(year, month, day).map_err(|_| {
        format!(
            "{}-{:02}-{:02} is not a calendar date",
            &text[0..4],
            month,
            day
        )
    })?;
    let time = (
        i8::try_from(hour),
        i8::try_from(minute),
        i8::try_from(second),
    );
    let (Ok(hour), Ok(minute), Ok(second)) = time else {
        return Err("the time does not exist".into());
    };
    // A leap second is inserted at the end of a UTC day only.
    let leap_second = (hour, minute, second) == (23, 59, 60);
    let second = if leap_second { 59 } else { second };
    jiff::civil::Time::new(hour, minute, second, 0)
        .map_err(|_| format!("{} is not a time of day", &text[11..19]))?;
    Ok(Timestamp { decimal_comma })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_at_accepts_strict_utc() {
        for ok in [
            "2026-11-29T19:07:42Z",
            "2026-11-29T19:07:42.5Z",
            "2026-11-29T19:07:42.123456789+00:00",
            "2024-02-29T00:00:00Z",
            "2026-12-31T23:59:59Z",
            "2016-12-31T23:59:60Z",
            "2016-12-31T23:59:60.5Z",
        ] {
            let valid = Timestamp {
                decimal_comma: false,
            };
            assert_eq!(check_generated_at(ok), Ok(valid), "{ok}");
        }
        for comma in ["2026-11-29T19:07:42,250Z", "2016-12-31T23:59:60,5+00:00"] {
            let valid = Timestamp {
                decimal_comma: true,
            };
            assert_eq!(check_generated_at(comma), Ok(valid), "{comma}");
        }
    }

    #[test]
    fn generated_at_rejects_what_lenient_parsers_accept() {
        for bad in [
            "2026-11-29 19:07:42Z",
            "2026-11-29t19:07:42Z",
            "2026-11-29T19:07:42z",
            "2026-11-29T19:07:42",
            "2026-11-29T19:07:42+01:00",
            "2026-11-29T19:07:42-00:00",
            "2026-11-29T19:07:42.Z",
            "2026-11-29T19:07Z",
            "2026-11-29",
            "20261129T190742Z",
            "2026-02-30T00:00:00Z",
            "2025-02-29T00:00:00Z",
            "2026-13-01T00:00:00Z",
            "2026-00-10T00:00:00Z",
            "2026-11-29T24:00:00Z",
            "2026-11-29T23:60:00Z",
            "2026-11-29T22:59:60Z",
            "2026-11-29T23:58:60Z",
            "2026-11-29T23:59:61Z",
            "2026-11-29T19:07:42,Z",
            "2026-11-29T19:07:42Z ",
            "１２３４-11-29T19:07:42Z",
            "",
        ] {
            assert!(check_generated_at(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn schema_versions_of_major_one_are_supported() {
        for ok in ["1", "1.0", "1.0.0", "1.2", "1.4.7"] {
            assert_eq!(check_schema_version(ok), Ok(()), "{ok}");
        }
        for bad in [
            "2", "2.0", "0.9", "v1", "", "1.", "1.0.0.0", "one", "1.0-beta",
        ] {
            assert!(check_schema_version(bad).is_err(), "{bad}");
        }
    }
}

#[cfg(test)]
mod fix_tests {
    use expect_test::expect;

    use crate::fixture::fixes_at;

    #[test]
    fn missing_promotion_candidates_is_added_last_with_the_members_indentation() {
        let text = "$0{\n    \"schema_version\": \"1\",\n    \"tool_version\": \"t\",\n    \"generated_at\": \"2026-11-29T18:42:07Z\",\n    \"scan\": {\"project_root\": \"/p\", \"scope_globs\": [], \"excluded_dirs\": [], \"files_scanned\": 0},\n    \"shortlist\": [],\n    \"entries\": []\n}\n";
        expect![[r#"
            Add "promotion_candidates": [] (missing-field)
                "entries": [],
                "promotion_candidates": []
        "#]]
        .assert_eq(&fixes_at(text));
    }

    /// Found by mutating the golden examples: after an unclosed last
    /// member the member lands inside it, and the fix left one error more.
    #[test]
    fn no_member_is_added_after_a_broken_last_member() {
        let text = r#"{"schema_version": "1", "tool_version": "t", "generated_at": "2026-11-29T18:42:07Z", "scan": {"project_root": "/p", "scope_globs": [], "excluded_dirs": [], "files_scanned": 0}, "shortlist": [], "entries": [}"#;
        let analysis = crate::analyze(text);
        let missing = analysis
            .diagnostics
            .iter()
            .find(|d| d.message.contains("\"promotion_candidates\""))
            .expect("the field is still reported missing");
        assert!(missing.fix.is_none(), "{:?}", missing.fix);
        let errors = |a: &crate::Analysis| {
            a.diagnostics
                .iter()
                .filter(|d| d.severity == crate::diagnostic::Severity::Error)
                .count()
        };
        for fix in analysis.diagnostics.iter().filter_map(|d| d.fix.as_ref()) {
            let fixed = crate::fix::apply(text, &fix.edits).unwrap();
            assert!(
                errors(&crate::analyze(&fixed)) <= errors(&analysis),
                "{}",
                fix.title
            );
        }
    }

    #[test]
    fn added_to_a_one_line_object_it_stays_on_one_line() {
        let text = r#"$0{"schema_version": "1", "tool_version": "t", "generated_at": "2026-11-29T18:42:07Z", "scan": {"project_root": "/p", "scope_globs": [], "excluded_dirs": [], "files_scanned": 0}, "shortlist": [], "entries": []}"#;
        expect![[r#"
            Add "promotion_candidates": [] (missing-field)
            {"schema_version": "1", "tool_version": "t", "generated_at": "2026-11-29T18:42:07Z", "scan": {"project_root": "/p", "scope_globs": [], "excluded_dirs": [], "files_scanned": 0}, "shortlist": [], "entries": [], "promotion_candidates": []}
        "#]]
        .assert_eq(&fixes_at(text));
    }
}
