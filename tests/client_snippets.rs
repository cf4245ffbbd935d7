//! The setups `editors/README.md` gives for the clients no test runs
//! (Helix, Zed, Kate, Sublime Text's LSP, JetBrains IDEs through LSP4IJ,
//! Vim 9 with yegappan/lsp), checked without them: each snippet under
//! `editors/clients/` is read in its client's own format (TOML; JSON with
//! comments and trailing commas; strict JSON; KConfig; Vim script, sourced
//! by Debian's `vim` with a stub `LspAddServer`), and what it says is held
//! against the server: it runs `report-lsp --stdio`; it names the server's
//! default report globs; it passes the same settings as
//! `initializationOptions` and as the answer to `workspace/configuration`,
//! each a setting the server reads (the server itself, given a value of the
//! wrong type for each, refuses each by its name) with a value it takes
//! (given the snippet's, it refuses none); and it names the trace. The Vim
//! test is skipped when `vim` is missing locally; a failure when `CI` is set.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use report_core::selection::{DEFAULT_REPORT_GLOBS, ReportGlobs};
use serde_json::{Value, json};

use common::editor::Editor;

fn clients() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("editors/clients")
}

fn read(relative: &str) -> String {
    let path = clients().join(relative);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Strict JSON, as Qt (Kate) and Gson (LSP4IJ) read it.
fn json_file(relative: &str) -> Value {
    serde_json::from_str(&read(relative)).unwrap_or_else(|e| panic!("{relative}: {e}"))
}

/// JSON with comments and trailing commas, as Zed and Sublime Text read
/// their settings: nothing looser (no single quotes, bare keys or missing commas).
fn jsonc_file(relative: &str) -> Value {
    let options = jsonc_parser::ParseOptions {
        allow_comments: true,
        allow_trailing_commas: true,
        allow_loose_object_property_names: false,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    };
    let text = read(relative);
    let value = jsonc_parser::parse_to_value(&text, &options)
        .unwrap_or_else(|e| panic!("{relative}: {e}"))
        .unwrap_or_else(|| panic!("{relative} holds no value"));
    fn to_serde(value: jsonc_parser::JsonValue) -> Value {
        use jsonc_parser::JsonValue as J;
        match value {
            J::String(s) => Value::String(s.into_owned()),
            J::Number(n) => serde_json::from_str(n).unwrap(),
            J::Boolean(b) => Value::Bool(b),
            J::Null => Value::Null,
            J::Array(items) => Value::Array(items.into_iter().map(to_serde).collect()),
            J::Object(members) => Value::Object(
                members
                    .into_iter()
                    .map(|(k, v)| (k.into_owned(), to_serde(v)))
                    .collect(),
            ),
        }
    }
    to_serde(value)
}

/// TOML, as Helix reads `languages.toml`.
fn toml_file(relative: &str) -> Value {
    let table: toml::Table =
        toml::from_str(&read(relative)).unwrap_or_else(|e| panic!("{relative}: {e}"));
    serde_json::to_value(table).unwrap()
}

/// A KConfig file (`katemoderc`): its groups, each key's value.
fn kconfig_file(relative: &str) -> Value {
    let mut groups = serde_json::Map::new();
    let mut group: Option<String> = None;
    for line in read(relative).lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            group = Some(name.to_string());
            groups.insert(name.to_string(), json!({}));
            continue;
        }
        let (key, value) = line
            .split_once('=')
            .unwrap_or_else(|| panic!("{relative}: not a key=value line: {line}"));
        let group = group
            .as_ref()
            .unwrap_or_else(|| panic!("{relative}: {line} is outside a group"));
        groups[group][key.trim()] = json!(value.trim());
    }
    Value::Object(groups)
}

/// What a snippet sets up, as its client reads it.
struct Setup {
    client: &'static str,
    /// The program and its arguments.
    command: Vec<String>,
    /// The file name patterns the client starts the server for; None for a
    /// client that starts it for every JSON file (the server leaves what
    /// is not a report alone).
    patterns: Option<Vec<String>>,
    initialization_options: Value,
    /// What the client answers to `workspace/configuration` for the
    /// section `reportLsp`, the way it looks a section up.
    configuration: Value,
}

/// The settings in a value the server reads: under `reportLsp` or at the top level.
fn section(value: &Value) -> &Value {
    value.get("reportLsp").unwrap_or(value)
}

fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .unwrap_or_else(|| panic!("not a list: {value}"))
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

/// The server's default globs, as the file name patterns a client matches.
fn default_patterns() -> Vec<String> {
    DEFAULT_REPORT_GLOBS
        .iter()
        .map(|g| g.strip_prefix("**/").unwrap().to_string())
        .collect()
}

/// A level `REPORT_LSP_LOG` takes (`off` writes nothing).
fn is_level(value: &Value) -> bool {
    value
        .as_str()
        .is_some_and(|l| report_lsp::log::level_named(l).is_some())
}

/// What every snippet must say, and the server's word on its settings.
fn check(setup: &Setup) {
    let client = setup.client;
    assert_eq!(
        setup.command,
        ["report-lsp", "--stdio"],
        "{client}: the command"
    );
    if let Some(patterns) = &setup.patterns {
        assert_eq!(
            patterns,
            &default_patterns(),
            "{client}: the file name patterns are the server's default globs"
        );
    }
    let options = section(&setup.initialization_options);
    assert_eq!(
        options, &setup.configuration,
        "{client}: the same settings at start-up and in the answer to workspace/configuration"
    );
    assert_eq!(
        setup.configuration["files"],
        json!(DEFAULT_REPORT_GLOBS),
        "{client}: the snippet names the report globs (files)"
    );
    the_server_takes_the_settings(setup);
}

/// The server started with the snippet's `initializationOptions` refuses
/// none of them (a refusal is logged before the answer to `initialize`);
/// sent a value of the wrong type for each, it refuses each by its name,
/// so that each is a setting it reads. The refusals of one change are
/// logged together: once one has come, the others follow at once.
fn the_server_takes_the_settings(setup: &Setup) {
    let client = setup.client;
    let names: BTreeSet<String> = setup
        .configuration
        .as_object()
        .unwrap_or_else(|| panic!("{client}: the settings are an object"))
        .keys()
        .cloned()
        .collect();
    let mut editor = Editor::start_with(
        env!("CARGO_BIN_EXE_report-lsp"),
        &["utf-16"],
        &[],
        setup.initialization_options.clone(),
    );
    let wrong = json!({"wrongType": true});
    let settings: serde_json::Map<String, Value> =
        names.iter().map(|n| (n.clone(), wrong.clone())).collect();
    editor.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"reportLsp": settings}}),
    );
    let refusal = |m: &Value| {
        m["method"] == "window/logMessage"
            && m["params"]["message"]
                .as_str()
                .is_some_and(|l| l.contains(" refused ("))
    };
    let mut refused = BTreeSet::new();
    let mut limit = Duration::from_secs(20);
    while refused != names {
        let Some(message) = editor.next_matching_within(limit, refusal) else {
            break;
        };
        let line = message["params"]["message"].as_str().unwrap();
        assert!(
            line.contains(&wrong.to_string()),
            "{client}: the server refused a value of the snippet: {line}"
        );
        let name = line
            .split_once("reportLsp.")
            .and_then(|(_, rest)| rest.split_once(" = "))
            .map(|(name, _)| name.to_string())
            .unwrap_or_else(|| panic!("a refusal names its setting: {line}"));
        refused.insert(name);
        limit = Duration::from_secs(2);
    }
    assert_eq!(
        refused, names,
        "{client}: each setting is one the server reads"
    );
    editor.shutdown();
}

#[test]
fn helix_languages_toml() {
    let file = toml_file("helix/languages.toml");
    let server = &file["language-server"]["report-lsp"];
    let mut command = vec![server["command"].as_str().unwrap().to_string()];
    command.extend(strings(&server["args"]));
    // The trace: Helix keeps the server's standard error in its log.
    assert!(
        is_level(&server["environment"]["REPORT_LSP_LOG"]),
        "helix: REPORT_LSP_LOG names a level"
    );
    let languages = file["language"].as_array().unwrap();
    let language = languages
        .iter()
        .find(|l| strings(&l["language-servers"]).contains(&"report-lsp".to_string()))
        .expect("a language that uses report-lsp");
    assert_eq!(language["grammar"], "json");
    assert_eq!(language["language-id"], "json");
    let patterns = language["file-types"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            t["glob"]
                .as_str()
                .expect("globs, not extensions")
                .to_string()
        })
        .collect();
    // Helix sends `config` at start-up and answers from it by section.
    let config = server["config"].clone();
    check(&Setup {
        client: "helix",
        command,
        patterns: Some(patterns),
        configuration: config["reportLsp"].clone(),
        initialization_options: config,
    });
}

#[test]
fn zed_settings_json() {
    let file = jsonc_file("zed/settings.json");
    assert!(
        strings(&file["languages"]["JSON"]["language_servers"]).contains(&"report-lsp".into()),
        "zed: report-lsp is one of JSON's servers"
    );
    let server = &file["lsp"]["report-lsp"];
    let mut command = vec![server["binary"]["path"].as_str().unwrap().to_string()];
    command.extend(strings(&server["binary"]["arguments"]));
    // Zed answers workspace/configuration with `settings`' member of the section's name.
    let configuration = server["settings"]["reportLsp"].clone();
    // The trace: Zed's "Server Trace" sends $/setTrace; logLevel says how much.
    assert!(configuration["logLevel"].is_string(), "zed: logLevel");
    assert!(
        read("zed/settings.json").contains("Server Trace"),
        "zed: the snippet says where the trace is turned on"
    );
    check(&Setup {
        client: "zed",
        command,
        patterns: None,
        initialization_options: server["initialization_options"].clone(),
        configuration,
    });
}

#[test]
fn kate_lspclient_settings_json_and_file_type() {
    let file = json_file("kate/lspclient/settings.json");
    let servers = file["servers"].as_object().unwrap();
    assert_eq!(servers.len(), 1, "kate: one server");
    let server = servers.values().next().unwrap();
    let command = strings(&server["command"]);
    // The trace: Kate started with LSPCLIENT_DEBUG=1 runs commandDebug,
    // whose standard error goes to Kate's Output view.
    let debug = strings(&server["commandDebug"]);
    assert_eq!(debug[0], "env", "kate: commandDebug sets the environment");
    let level = debug[1]
        .strip_prefix("REPORT_LSP_LOG=")
        .expect("kate: commandDebug sets REPORT_LSP_LOG");
    assert!(is_level(&json!(level)) && level != "off", "kate: {level}");
    assert_eq!(
        debug[2..],
        command[..],
        "kate: commandDebug runs the command"
    );
    // An empty root: the project's folder, else no root (never the home folder).
    assert_eq!(server["root"], "", "kate: the root");
    // Kate picks the server by the document's mode: the file type below.
    let modes = kconfig_file("kate/katemoderc");
    let modes = modes.as_object().unwrap();
    assert_eq!(modes.len(), 1, "kate: one file type");
    let (name, mode) = modes.iter().next().unwrap();
    assert_eq!(server["highlightingModeRegex"], format!("^{name}$"));
    assert_eq!(mode["Highlighting"], "JSON");
    let priority: i64 = mode["Priority"].as_str().unwrap().parse().unwrap();
    assert!(priority > 0, "kate: the file type wins over JSON's");
    let patterns = mode["Wildcards"]
        .as_str()
        .unwrap()
        .split(';')
        .map(str::to_string)
        .collect();
    // Kate answers workspace/configuration from `settings`, by section.
    check(&Setup {
        client: "kate",
        command,
        patterns: Some(patterns),
        initialization_options: server["initializationOptions"].clone(),
        configuration: server["settings"]["reportLsp"].clone(),
    });
}

#[test]
fn sublime_text_language_servers_settings() {
    let file = jsonc_file("sublime/LanguageServers.sublime-settings");
    let server = &file["report-lsp"];
    assert_eq!(server["enabled"], true, "sublime: enabled");
    let selector = server["selector"].as_str().unwrap();
    assert!(selector.starts_with("source.json"), "sublime: {selector}");
    // The trace: Sublime shows the server's standard error in its log panel.
    assert!(
        is_level(&server["env"]["REPORT_LSP_LOG"]),
        "sublime: REPORT_LSP_LOG names a level"
    );
    check(&Setup {
        client: "sublime",
        command: strings(&server["command"]),
        patterns: None,
        initialization_options: server["initialization_options"].clone(),
        configuration: server["settings"]["reportLsp"].clone(),
    });
}

#[test]
fn lsp4ij_template() {
    let template = json_file("lsp4ij/report-lsp/template.json");
    assert_eq!(template["id"], "report-lsp");
    let command = template["programArgs"]["default"]
        .as_str()
        .unwrap()
        .split_whitespace()
        .map(str::to_string)
        .collect();
    let mappings = template["fileTypeMappings"].as_array().unwrap();
    assert_eq!(mappings.len(), 1, "lsp4ij: one mapping");
    let file_type = &mappings[0]["fileType"];
    // A file type's name would map every file of that type (all JSON).
    assert!(file_type.get("name").is_none(), "lsp4ij: patterns only");
    assert_eq!(mappings[0]["languageId"], "json");
    // Without the system's environment, PATH would be gone.
    assert_eq!(template["env"]["includeSystemEnvironmentVariables"], true);
    // The trace: the server's standard error goes to the console's Log tab.
    assert!(
        is_level(&template["env"]["variables"]["REPORT_LSP_LOG"]),
        "lsp4ij: REPORT_LSP_LOG names a level"
    );
    let readme = read("lsp4ij/report-lsp/README.md");
    assert!(
        readme.contains("Server trace") && readme.contains("REPORT_LSP_LOG"),
        "lsp4ij: the template's README says how to trace"
    );
    // LSP4IJ answers workspace/configuration from settings.json, by section.
    let settings = json_file("lsp4ij/report-lsp/settings.json");
    check(&Setup {
        client: "lsp4ij",
        command,
        patterns: Some(strings(&file_type["patterns"])),
        initialization_options: json_file("lsp4ij/report-lsp/initializationOptions.json"),
        configuration: settings["reportLsp"].clone(),
    });
}

/// What `vim` made of the snippet: the servers it added, with the stub
/// `LspAddServer` defined before the snippet (the plugin was loaded
/// first) or after it (the snippet waits for the plugin's LspSetup), and
/// the filetype it gave each of `names`.
fn vim_sources_the_snippet(stub: &str, names: &[PathBuf]) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("observed.json");
    let names: Vec<&str> = names.iter().map(|n| n.to_str().unwrap()).collect();
    let mut child = Command::new(vim())
        .args(["-Nu", "NONE", "-i", "NONE", "-es", "-S"])
        .arg(clients().join("vim/test/source-snippet.vim"))
        .current_dir(dir.path())
        // Vim's own files (~/.vim) stay in the temporary folder.
        .env("HOME", dir.path())
        .env("REPORT_LSP_SNIPPET", clients().join("vim/report-lsp.vim"))
        .env("REPORT_LSP_STUB", stub)
        .env("REPORT_LSP_NAMES", names.join("\n"))
        .env("REPORT_LSP_OUT", &out)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let status = common::wait_bounded(&mut child, Duration::from_secs(30), "vim");
    assert!(status.success(), "vim exited with {status}");
    common::observations(&out, "vim sourcing the snippet")
}

/// Debian's Vim: `vim.basic` by name, since `vim` is an alternative that
/// Neovim's package also provides (and takes when installed first, as
/// `.ci/run` installs them); `vim` where there is no `vim.basic`.
fn vim() -> &'static str {
    match Path::new("/usr/bin/vim.basic").exists() {
        true => "/usr/bin/vim.basic",
        false => "vim",
    }
}

#[test]
fn vim_yegappan_lsp() {
    let found = Command::new(vim())
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success() && o.stdout.starts_with(b"VIM - Vi IMproved 9"));
    if !common::present(found, "vim 9 (Debian's vim)") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let names: Vec<PathBuf> = [
        "a.report.json",
        "deep/er/b.report.json",
        "machine-report.json",
        "machine-report-2024-06.json",
        "out/machine-report.json",
        "plain.json",
        "report.json",
        "xmachine-report.json",
        "a.report.jsonc",
    ]
    .iter()
    .map(|n| dir.path().join(n))
    .collect();
    let globs = ReportGlobs::default();
    for stub in ["before", "after"] {
        let observed = vim_sources_the_snippet(stub, &names);
        // Vim's filetype detection agrees with the server's globs.
        for name in &names {
            let key = name.to_str().unwrap();
            let filetype = observed["filetypes"][key].as_str().unwrap();
            assert_eq!(
                filetype == "json.machine-report",
                globs.matches(key),
                "vim ({stub}): {key} is {filetype}"
            );
        }
        assert_eq!(
            observed["filetypes"][dir.path().join("plain.json").to_str().unwrap()],
            "json"
        );
        let servers = observed["servers"].as_array().unwrap();
        assert_eq!(servers.len(), 1, "vim ({stub}): one server added");
        let server = &servers[0];
        assert_eq!(server["filetype"], json!(["json.machine-report"]));
        // The trace: yegappan/lsp takes off, debug (not a trace value the
        // protocol has) or verbose; the log's level is logLevel's.
        let trace = server["traceLevel"].as_str().unwrap();
        assert!(["off", "verbose"].contains(&trace), "vim: {trace}");
        assert!(server["workspaceConfig"]["reportLsp"]["logLevel"].is_string());
        let mut command = vec![server["path"].as_str().unwrap().to_string()];
        command.extend(strings(&server["args"]));
        // yegappan/lsp answers workspace/configuration from workspaceConfig, by section.
        check(&Setup {
            client: "vim",
            command,
            patterns: None,
            initialization_options: server["initializationOptions"].clone(),
            configuration: server["workspaceConfig"]["reportLsp"].clone(),
        });
    }
}

/// Every snippet is a file the README links, and the README's table marks
/// each client.
#[test]
fn the_readme_links_each_snippet() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("editors/README.md"))
            .unwrap();
    for snippet in [
        "clients/helix/languages.toml",
        "clients/zed/settings.json",
        "clients/kate/lspclient/settings.json",
        "clients/kate/katemoderc",
        "clients/sublime/LanguageServers.sublime-settings",
        "clients/lsp4ij/report-lsp/",
        "clients/vim/report-lsp.vim",
    ] {
        assert!(
            readme.contains(&format!("]({snippet})")),
            "editors/README.md links {snippet}"
        );
    }
}
