//! A scripted editor: drives the real binary over framed JSON-RPC on stdio.
//!
//! Every message the server sends is also checked against the LSP 3.17 meta
//! model (`meta_model.rs`), off the test's thread; a violation fails the
//! test at its next read of a message, at `shutdown`, or when the editor is
//! dropped.
#![allow(dead_code)]

// A path, so that the module is found beside this file from `tests/common`
// and from the benches that include this file with `#[path]` alike.
#[path = "meta_model.rs"]
pub mod meta_model;

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use meta_model::SentRequests;

pub struct Editor {
    child: Child,
    stdin: ChildStdin,
    messages: mpsc::Receiver<Value>,
    /// Notifications read while waiting for something else.
    pub backlog: Vec<Value>,
    next_id: i64,
    /// What this editor answers to the server's `workspace/configuration`
    /// requests, for each item asked (the `reportLsp` section's value).
    pub configuration: Value,
    /// What it answers instead for an item whose `scopeUri` is a key here
    /// (a workspace folder's own settings).
    pub configuration_by_scope: std::collections::HashMap<String, Value>,
    /// How many `workspace/configuration` requests it answered.
    pub pulls: usize,
    conformance: Arc<Conformance>,
    /// The thread that checks the server's messages, until joined.
    checker: Option<JoinHandle<()>>,
    /// The server's answer to `initialize`.
    pub initialized: Value,
}

/// The capabilities of a capable client, as VS Code announces them for
/// what the server uses: `encodings` offered, code action literals,
/// preferred fixes and applied edits, Markdown hovers and documentation,
/// snippets and preselection, every completion and symbol kind, the outline
/// as a tree, related information, link tooltips, prepareRename. It pulls
/// nothing, registers nothing and is told nothing again: diagnostics are
/// pushed to it. Tests add or remove what they are about.
pub fn capable_client(encodings: &[&str]) -> Value {
    json!({
        "general": {"positionEncodings": encodings},
        "textDocument": {
            "hover": {"contentFormat": ["markdown", "plaintext"]},
            "completion": {
                "completionItem": {
                    "snippetSupport": true,
                    "documentationFormat": ["markdown", "plaintext"],
                    "preselectSupport": true,
                },
                "completionItemKind": {"valueSet": (1..=25).collect::<Vec<_>>()},
            },
            "codeAction": {
                "codeActionLiteralSupport": {
                    "codeActionKind": {"valueSet": ["", "quickfix", "source", "source.fixAll"]},
                },
                "isPreferredSupport": true,
            },
            "documentSymbol": {
                "hierarchicalDocumentSymbolSupport": true,
                "symbolKind": {"valueSet": (1..=26).collect::<Vec<_>>()},
            },
            "publishDiagnostics": {"relatedInformation": true},
            "documentLink": {"tooltipSupport": true},
            "rename": {"prepareSupport": true},
        },
        "workspace": {"applyEdit": true},
    })
}

/// [`capable_client`] with `more` merged in, member by member.
pub fn capable_client_with(more: Value) -> Value {
    fn merge(into: &mut Value, more: Value) {
        match (into, more) {
            (Value::Object(into), Value::Object(more)) => {
                for (key, value) in more {
                    merge(into.entry(key).or_insert(Value::Null), value);
                }
            }
            (into, more) => *into = more,
        }
    }
    let mut capabilities = capable_client(&["utf-16"]);
    merge(&mut capabilities, more);
    capabilities
}

/// A client that takes the clean preview's edits: versioned edits, files
/// created, deleted and renamed, change annotations, disabled and resolved
/// code actions; started on `folder`, and pulls nothing.
#[allow(dead_code)]
pub fn editing_client(folder: &std::path::Path) -> Editor {
    let capabilities = capable_client_with(json!({
        "textDocument": {"codeAction": {
            "codeActionLiteralSupport": {"codeActionKind": {"valueSet": ["", "quickfix", "refactor", "source"]}},
            "disabledSupport": true,
            "dataSupport": true,
            "resolveSupport": {"properties": ["edit"]},
        }},
        "workspace": {"workspaceEdit": {
            "documentChanges": true,
            "resourceOperations": ["create", "delete", "rename"],
            "changeAnnotationSupport": {"groupsOnLabel": true},
        }},
    }));
    Editor::start_in_folders_with(capabilities, &[folder], Value::Null)
}

/// What the editor, its reader thread and its checker thread share.
struct Conformance {
    /// Whether messages read are still handed to the checker.
    enabled: AtomicBool,
    /// The requests sent and not yet answered.
    sent: Mutex<SentRequests>,
    /// What the checker found and no test has failed with yet.
    violations: Mutex<Vec<String>>,
    /// Messages handed to the checker, and those it has checked.
    handed: AtomicUsize,
    checked: AtomicUsize,
}

/// At most this many violations are listed per message (a publication of
/// thousands of diagnostics may break one rule in each).
const VIOLATIONS_PER_MESSAGE: usize = 10;

impl Conformance {
    fn check(&self, body: &[u8]) {
        let message: Value = serde_json::from_slice(body).unwrap();
        let found = meta_model::check_server_message(&message, &mut self.sent.lock().unwrap());
        if !found.is_empty() {
            let mut violations = self.violations.lock().unwrap();
            violations.extend(found.iter().take(VIOLATIONS_PER_MESSAGE).cloned());
            if found.len() > VIOLATIONS_PER_MESSAGE {
                let more = found.len() - VIOLATIONS_PER_MESSAGE;
                violations.push(format!("… and {more} more in that message"));
            }
            violations.push(format!("    in {}", meta_model::excerpt(&message)));
        }
        self.checked.fetch_add(1, Ordering::SeqCst);
    }

    fn violation(&self, violation: String) {
        self.violations.lock().unwrap().push(violation);
    }
}

impl Editor {
    pub fn start(encodings: &[&str]) -> Editor {
        Editor::start_with(
            env!("CARGO_BIN_EXE_report-lsp"),
            encodings,
            &[],
            Value::Null,
        )
    }

    /// Starts `binary` with extra environment and `initializationOptions`.
    pub fn start_with(
        binary: &str,
        encodings: &[&str],
        env: &[(&str, &str)],
        options: Value,
    ) -> Editor {
        Editor::start_with_capabilities(binary, capable_client(encodings), env, options)
    }

    /// Starts `binary` announcing `capabilities` as the client's.
    pub fn start_with_capabilities(
        binary: &str,
        capabilities: Value,
        env: &[(&str, &str)],
        options: Value,
    ) -> Editor {
        let mut command = Command::new(binary);
        command.envs(env.iter().copied());
        Editor::start_command(command, capabilities, options)
    }

    /// Starts the server under an address-space limit (`setrlimit`), so
    /// that a test of memory fails by an abort rather than by swapping.
    pub fn start_limited(address_space_bytes: u64, options: Value) -> Editor {
        use std::os::unix::process::CommandExt;
        let mut command = Command::new(env!("CARGO_BIN_EXE_report-lsp"));
        let limit = libc::rlimit {
            rlim_cur: address_space_bytes as libc::rlim_t,
            rlim_max: address_space_bytes as libc::rlim_t,
        };
        // SAFETY: setrlimit is async-signal-safe and touches no memory of the parent.
        unsafe {
            command.pre_exec(move || match libc::setrlimit(libc::RLIMIT_AS, &limit) {
                0 => Ok(()),
                _ => Err(std::io::Error::last_os_error()),
            });
        }
        Editor::start_command(command, capable_client(&["utf-16"]), options)
    }

    /// Starts `binary` with these workspace folders (absolute paths).
    pub fn start_in_folders(binary: &str, folders: &[&std::path::Path], options: Value) -> Editor {
        let folders: Vec<Value> = folders
            .iter()
            .map(|f| json!({"uri": format!("file://{}", f.display()), "name": "folder"}))
            .collect();
        Editor::start_command_in(
            Command::new(binary),
            capable_client(&["utf-16"]),
            options,
            json!(folders),
        )
    }

    /// Starts the server announcing `capabilities`, with these workspace folders.
    pub fn start_in_folders_with(
        capabilities: Value,
        folders: &[&std::path::Path],
        options: Value,
    ) -> Editor {
        Editor::start_in_folders_binary(
            env!("CARGO_BIN_EXE_report-lsp"),
            capabilities,
            folders,
            options,
        )
    }

    /// [`Self::start_in_folders_with`], for another build of the server.
    pub fn start_in_folders_binary(
        binary: &str,
        capabilities: Value,
        folders: &[&std::path::Path],
        options: Value,
    ) -> Editor {
        let folders: Vec<Value> = folders
            .iter()
            .map(|f| json!({"uri": format!("file://{}", f.display()), "name": "folder"}))
            .collect();
        Editor::start_command_in(Command::new(binary), capabilities, options, json!(folders))
    }

    fn start_command(command: Command, capabilities: Value, options: Value) -> Editor {
        Editor::start_command_in(command, capabilities, options, Value::Null)
    }

    fn start_command_in(
        command: Command,
        capabilities: Value,
        options: Value,
        folders: Value,
    ) -> Editor {
        let mut editor = Editor::spawn(command);
        let init = editor.request(
            "initialize",
            json!({"processId": null, "rootUri": null, "workspaceFolders": folders, "capabilities": capabilities, "initializationOptions": options}),
        );
        assert_eq!(init["result"]["serverInfo"]["name"], "report-lsp");
        editor.initialized = init;
        editor.notify("initialized", json!({}));
        editor
    }

    /// A session begun as sloppy clients begin it: `initialize` with a
    /// string id, `null` where a member may be absent and members the
    /// protocol does not have; `initialized` with no params at all.
    pub fn start_sloppy(capabilities: Value) -> Editor {
        let mut editor = Editor::spawn(Command::new(env!("CARGO_BIN_EXE_report-lsp")));
        editor.send(json!({"jsonrpc": "2.0", "id": "init-1", "method": "initialize", "params": {
            "processId": null, "rootUri": null, "rootPath": null, "workspaceFolders": null,
            "clientInfo": {"name": "sloppy", "version": null, "x-build": 7},
            "locale": null, "trace": null, "workDoneToken": null,
            "initializationOptions": null, "capabilities": capabilities, "x-unknown": {"a": [1]},
        }}));
        let init = editor.next_matching(|m| m["id"] == "init-1");
        assert_eq!(init["result"]["serverInfo"]["name"], "report-lsp", "{init}");
        editor.initialized = init;
        editor.send(json!({"jsonrpc": "2.0", "method": "initialized"}));
        editor
    }

    /// The server started, before `initialize`.
    fn spawn(mut command: Command) -> Editor {
        let mut child = command
            .arg("--stdio")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let (tx, messages) = mpsc::channel();
        let conformance = Arc::new(Conformance {
            enabled: AtomicBool::new(true),
            sent: Mutex::new(SentRequests::new()),
            violations: Mutex::new(Vec::new()),
            handed: AtomicUsize::new(0),
            checked: AtomicUsize::new(0),
        });
        // The reader hands each message on before the checker sees it: a
        // bench times the server up to the message's arrival, not the check.
        let (to_checker, bodies) = mpsc::channel::<Vec<u8>>();
        let checker = std::thread::spawn({
            let conformance = Arc::clone(&conformance);
            move || bodies.iter().for_each(|body| conformance.check(&body))
        });
        let reader_conformance = Arc::clone(&conformance);
        std::thread::spawn(move || {
            let conformance = reader_conformance;
            loop {
                let mut length = 0;
                loop {
                    let mut line = String::new();
                    if stdout.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let line = line.trim_end();
                    if line.is_empty() {
                        break;
                    }
                    if let Some(n) = line.strip_prefix("Content-Length: ") {
                        length = n.parse().unwrap();
                    }
                }
                let mut body = vec![0; length];
                stdout.read_exact(&mut body).unwrap();
                let Ok(message) = serde_json::from_slice(&body) else {
                    let text = String::from_utf8_lossy(&body);
                    conformance.violation(format!("a frame that is not JSON: {text:.80}"));
                    continue;
                };
                // Counted before the test can see it, so that `Drop` waits for its check.
                let checking = conformance.enabled.load(Ordering::SeqCst);
                if checking {
                    conformance.handed.fetch_add(1, Ordering::SeqCst);
                }
                if tx.send(message).is_err() {
                    return;
                }
                if checking {
                    let _ = to_checker.send(body);
                }
            }
        });
        Editor {
            child,
            stdin,
            messages,
            backlog: Vec::new(),
            next_id: 1,
            configuration: Value::Null,
            configuration_by_scope: std::collections::HashMap::new(),
            pulls: 0,
            conformance,
            checker: Some(checker),
            initialized: Value::Null,
        }
    }

    /// The server's process id, for reading its memory figures.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Stops checking the server's messages against the protocol from now
    /// on, for a bench that wants no other thread on its cores.
    pub fn stop_checking(&self) {
        self.conformance.enabled.store(false, Ordering::SeqCst);
    }

    /// Writes raw bytes, for malformed frames. The requests among the
    /// complete frames they hold are remembered, to check their answers.
    pub fn send_raw(&mut self, bytes: &[u8]) {
        self.remember_requests_in(bytes);
        self.stdin.write_all(bytes).unwrap();
        self.stdin.flush().unwrap();
    }

    /// The size of the pipe this editor writes the server's messages into
    /// (its standard input), as the system says (Linux).
    #[cfg(target_os = "linux")]
    pub fn input_pipe_bytes(&self) -> usize {
        use std::os::fd::AsRawFd;
        // SAFETY: F_GETPIPE_SZ only reads the size of the pipe's buffer.
        let size = unsafe { libc::fcntl(self.stdin.as_raw_fd(), libc::F_GETPIPE_SZ) };
        usize::try_from(size).expect("the server's standard input is a pipe")
    }

    /// A memory figure of the server from /proc (`VmRSS`, `VmHWM`), in KiB.
    pub fn memory_kb(&self, field: &str) -> u64 {
        // A figure that cannot be read fails the test: a 0 would pass every bound.
        let path = format!("/proc/{}/status", self.pid());
        let status = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("cannot read {path} for {field}: {e}"));
        status
            .lines()
            .find_map(|l| l.strip_prefix(field).and_then(|v| v.strip_prefix(':')))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or_else(|| panic!("no {field} in {path}:\n{status}"))
    }

    /// Starts the server's peak RSS (`VmHWM`) again from its current RSS,
    /// so that a phase's own peak can be read (Linux's `clear_refs`).
    #[allow(dead_code)]
    pub fn reset_peak_memory(&self) {
        let path = format!("/proc/{}/clear_refs", self.pid());
        std::fs::write(&path, "5").unwrap_or_else(|e| panic!("cannot write {path}: {e}"));
    }

    pub fn send(&mut self, message: Value) {
        self.remember_request(&message);
        let frame = Editor::frame(&message);
        self.write_frame(&frame);
    }

    /// A message framed for the wire, to be sent with [`Editor::send_frame`]:
    /// a bench times the server from the write, not the encoding.
    pub fn frame(message: &Value) -> Vec<u8> {
        let body = message.to_string();
        let mut frame = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
        frame.extend_from_slice(body.as_bytes());
        frame
    }

    /// Writes a frame made by [`Editor::frame`]. A request in it is
    /// remembered only if the frame is small: a bench's 40 MB `didOpen` is
    /// not read again on its timed path (send big requests with [`Editor::send`]).
    pub fn send_frame(&mut self, frame: &[u8]) {
        self.send_frames(&[frame]);
    }

    /// Writes frames made by [`Editor::frame`] in one write, so that the
    /// server reads them together; each small one's request is remembered.
    pub fn send_frames(&mut self, frames: &[&[u8]]) {
        for frame in frames.iter().filter(|frame| frame.len() <= 64 * 1024) {
            self.remember_requests_in(frame);
        }
        self.write_frame(&frames.concat());
    }

    fn write_frame(&mut self, frame: &[u8]) {
        self.stdin.write_all(frame).unwrap();
        self.stdin.flush().unwrap();
    }

    /// Remembers the method of a request, whose answer is checked against it.
    fn remember_request(&self, message: &Value) {
        // Unchecked, its answer would never be taken off the list.
        if !self.conformance.enabled.load(Ordering::SeqCst) {
            return;
        }
        if let (Some(id), Some(method)) = (message.get("id"), message["method"].as_str()) {
            let mut sent = self.conformance.sent.lock().unwrap();
            sent.insert(id.to_string(), method.to_string());
            // Its partial results come as `$/progress` with this token, until it is answered.
            if let Some(token) = message["params"].get("partialResultToken") {
                sent.insert(meta_model::partial_key(token), format!("{method} {id}"));
            }
        }
    }

    /// Remembers the requests in the complete frames among `bytes`. A body
    /// that is not JSON (bad UTF-8 too) holds none: its answer has id null.
    /// Where a body does not parse, the scan goes on after its header, not
    /// after its length: the next header may be inside (a header block never
    /// ended).
    fn remember_requests_in(&self, bytes: &[u8]) {
        const HEADER: &[u8] = b"Content-Length: ";
        let find = |haystack: &[u8], needle: &[u8]| {
            haystack.windows(needle.len()).position(|w| w == needle)
        };
        let mut rest = bytes;
        while let Some(at) = find(rest, HEADER) {
            rest = &rest[at + HEADER.len()..];
            let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
            let length: Option<usize> = std::str::from_utf8(&rest[..digits]).unwrap().parse().ok();
            let (Some(length), Some(end)) = (length, find(rest, b"\r\n\r\n")) else {
                continue;
            };
            let Some(body) = rest[end + 4..].get(..length) else {
                continue;
            };
            if let Ok(message) = serde_json::from_slice(body) {
                self.remember_request(&message);
                rest = &rest[end + 4 + length..];
            }
        }
    }

    /// Fails the test with the violations found so far.
    fn fail_on_violations(&self) {
        let found = std::mem::take(&mut *self.conformance.violations.lock().unwrap());
        if !found.is_empty() {
            panic!(
                "the server sent messages that break LSP 3.17 (checked by tests/common/meta_model.rs):\n{}",
                found.join("\n")
            );
        }
    }

    /// After the server exited: waits for the checker to finish the last
    /// messages, then fails on what it found; with `all_answered`, a request
    /// never answered is one more violation (a cancelled request is still
    /// answered, the protocol says).
    fn finish_checking(&mut self, all_answered: bool) {
        // A bench that stopped checking has answers nobody took off the list.
        let mut all_answered = all_answered && self.conformance.enabled.load(Ordering::SeqCst);
        if let Some(checker) = self.checker.take() {
            let deadline = Instant::now() + Duration::from_secs(60);
            while !checker.is_finished() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(5));
            }
            if !checker.is_finished() {
                // Its answers may be among those not checked yet: say that, not "never answered".
                all_answered = false;
                let (handed, checked) = (
                    self.conformance.handed.load(Ordering::SeqCst),
                    self.conformance.checked.load(Ordering::SeqCst),
                );
                self.conformance.violation(format!(
                    "the checker is {} messages behind after 60 s ({checked} of {handed} checked)",
                    handed - checked
                ));
            } else if checker.join().is_err() {
                self.conformance
                    .violation("the checker itself panicked (see above)".into());
            }
        }
        if all_answered {
            let sent = std::mem::take(&mut *self.conformance.sent.lock().unwrap());
            for (id, method) in sent
                .into_iter()
                .filter(|(k, _)| !meta_model::is_partial_key(k))
            {
                self.conformance
                    .violation(format!("request {id} ({method}): never answered"));
            }
        }
        self.fail_on_violations();
    }

    /// Sends a notification; `Value::Null` params leave the key out, as
    /// the base protocol has it (`exit` has none).
    pub fn notify(&mut self, method: &str, params: Value) {
        let mut message = json!({"jsonrpc": "2.0", "method": method});
        if !params.is_null() {
            message["params"] = params;
        }
        self.send(message);
    }

    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let mut message = json!({"jsonrpc": "2.0", "id": id, "method": method});
        // Null params leave the key out (`shutdown` has none).
        if !params.is_null() {
            message["params"] = params;
        }
        self.send(message);
        loop {
            let message = self.next_message();
            if message["id"] == id && message.get("method").is_none() {
                return message;
            }
            self.backlog.push(message);
        }
    }

    /// The next message from the server that is not a `workspace/configuration`
    /// request: those are answered here, as an editor does, with [`Self::configuration`].
    pub fn next_message(&mut self) -> Value {
        self.next_message_within(Duration::from_secs(20))
    }

    /// Like [`Self::next_message`], waiting up to `limit`.
    pub fn next_message_within(&mut self, limit: Duration) -> Value {
        let Some(message) = self.message_within(limit) else {
            // A violation may be why (a frame that is not JSON is not handed on).
            self.fail_on_violations();
            panic!("the server answers within {limit:?}");
        };
        message
    }

    /// Like [`Self::next_message_within`], None when nothing comes in `limit`.
    pub fn message_within(&mut self, limit: Duration) -> Option<Value> {
        self.fail_on_violations();
        loop {
            let message = self.messages.recv_timeout(limit).ok()?;
            if message["method"] != "workspace/configuration" || message.get("id").is_none() {
                return Some(message);
            }
            let items = message["params"]["items"].as_array().map_or(0, Vec::len);
            let answer: Vec<Value> = (0..items)
                .map(|i| {
                    let scope = message["params"]["items"][i]["scopeUri"].as_str();
                    scope
                        .and_then(|scope| self.configuration_by_scope.get(scope))
                        .unwrap_or(&self.configuration)
                        .clone()
                })
                .collect();
            self.send(json!({"jsonrpc": "2.0", "id": message["id"], "result": answer}));
            self.pulls += 1;
        }
    }

    /// The next message `wanted` accepts, from the backlog or the wire;
    /// what it passes over is kept in the backlog.
    pub fn next_matching(&mut self, wanted: impl Fn(&Value) -> bool) -> Value {
        self.fail_on_violations();
        if let Some(i) = self.backlog.iter().position(&wanted) {
            return self.backlog.remove(i);
        }
        loop {
            let message = self.next_message();
            if wanted(&message) {
                return message;
            }
            self.backlog.push(message);
        }
    }

    /// The next message `wanted` accepts within `limit`, from the backlog or
    /// the wire; None when none comes. What it passes over is kept in the backlog.
    pub fn next_matching_within(
        &mut self,
        limit: Duration,
        wanted: impl Fn(&Value) -> bool,
    ) -> Option<Value> {
        self.fail_on_violations();
        if let Some(i) = self.backlog.iter().position(&wanted) {
            return Some(self.backlog.remove(i));
        }
        let deadline = Instant::now() + limit;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let message = self.message_within(left)?;
            if wanted(&message) {
                return Some(message);
            }
            self.backlog.push(message);
        }
    }

    /// The next `window/logMessage` text.
    pub fn log_message(&mut self) -> String {
        let message = self.next_matching(|m| m["method"] == "window/logMessage");
        message["params"]["message"].as_str().unwrap().to_string()
    }

    /// The next diagnostics published for `uri`.
    pub fn diagnostics(&mut self, uri: &str) -> (Option<i64>, Vec<Value>) {
        let message = self.next_matching(|m| {
            m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri
        });
        let params = &message["params"];
        (
            params["version"].as_i64(),
            params["diagnostics"].as_array().unwrap().clone(),
        )
    }

    pub fn open(&mut self, uri: &str, text: &str, version: i64) {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "json", "version": version, "text": text}}),
        );
    }

    /// The publications for `uri` until one satisfies `done` (at most 20).
    pub fn diagnostics_until(&mut self, uri: &str, done: impl Fn(&[Value]) -> bool) -> Vec<Value> {
        for _ in 0..20 {
            let (_, diagnostics) = self.diagnostics(uri);
            if done(&diagnostics) {
                return diagnostics;
            }
        }
        panic!("no publication for {uri} satisfied the test");
    }

    /// Opens a document of another language than JSON (a report's target).
    pub fn open_as(&mut self, uri: &str, language: &str, text: &str, version: i64) {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": language, "version": version, "text": text}}),
        );
    }

    pub fn change(&mut self, uri: &str, version: i64, changes: Value) {
        self.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": changes}),
        );
    }

    pub fn shutdown(self) {
        self.shutdown_with(Value::Null);
    }

    /// `shutdown` and `exit` each sent with `params`, which neither takes
    /// (lsp-mode 8 sends `{}`): the server still ends cleanly.
    pub fn shutdown_with(mut self, params: Value) {
        let reply = self.request("shutdown", params.clone());
        assert!(reply.get("error").is_none(), "{reply}");
        self.notify("exit", params);
        let status = self.child.wait().unwrap();
        assert!(status.success(), "{status}");
        self.finish_checking(true);
    }

    /// Sends `exit` without `shutdown` first; the server's exit status.
    pub fn exit_without_shutdown(mut self) -> std::process::ExitStatus {
        self.notify("exit", Value::Null);
        let status = self.child.wait().unwrap();
        self.finish_checking(false);
        status
    }
}

impl Drop for Editor {
    /// A test that ends without `shutdown` still fails on what the server
    /// sent: the messages read so far are checked first.
    fn drop(&mut self) {
        if std::thread::panicking() {
            return;
        }
        let handed = self.conformance.handed.load(Ordering::SeqCst);
        // The wait ends when the checker has seen every message read; the
        // deadline only ends a wait for a checker that is stuck, and what it
        // did not check then fails the test, as `finish_checking` does.
        let deadline = Instant::now() + Duration::from_secs(60);
        let checked = || self.conformance.checked.load(Ordering::SeqCst);
        while checked() < handed
            && self.checker.as_ref().is_some_and(|c| !c.is_finished())
            && Instant::now() < deadline
        {
            std::thread::sleep(Duration::from_millis(5));
        }
        if checked() < handed {
            self.conformance.violation(format!(
                "the checker is {} messages behind when the test ends ({} of {handed} checked)",
                handed - checked(),
                checked()
            ));
        }
        self.fail_on_violations();
    }
}
