//! Reports with many problems, for the CLI's tests and its output bench.

/// A report of `entries` entries whose categories are numbers (one error
/// each, at least), on one line as `json.dump` writes it, or pretty-printed.
pub fn many_errors_report(entries: usize, minified: bool) -> String {
    let (sep, indent) = if minified { ("", "") } else { ("\n", "    ") };
    let items: Vec<String> = (0..entries)
        .map(|i| {
            format!("{indent}{{\"path\": \"docs/area-{i}/note-{i}-路径.md\", \"category\": 5}}")
        })
        .collect();
    format!(
        "{{\"schema_version\": \"1\", \"entries\": [{sep}{}{sep}]}}",
        items.join(&format!(",{sep}"))
    )
}

/// `keys` duplicate keys on one line of some 24 bytes a key.
pub fn duplicate_keys_report(keys: usize) -> String {
    let keys: Vec<String> = (0..keys).map(|i| format!("\"dupkey\":{i:016}")).collect();
    format!(
        "{{\"schema_version\":\"1\",\"entries\":[],\"x\":{{{}}}}}",
        keys.join(",")
    )
}
