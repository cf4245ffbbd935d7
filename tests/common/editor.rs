//! A scripted editor: drives the real binary over framed JSON-RPC on stdio.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

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
    /// How many `workspace/configuration` requests it answered.
    pub pulls: usize,
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
        let capabilities = json!({"general": {"positionEncodings": encodings}});
        Editor::start_with_capabilities(binary, capabilities, env, options)
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
        let capabilities = json!({"general": {"positionEncodings": ["utf-16"]}});
        Editor::start_command(command, capabilities, options)
    }

    /// Starts `binary` with these workspace folders (absolute paths).
    pub fn start_in_folders(binary: &str, folders: &[&std::path::Path], options: Value) -> Editor {
        let folders: Vec<Value> = folders
            .iter()
            .map(|f| json!({"uri": format!("file://{}", f.display()), "name": "folder"}))
            .collect();
        Editor::start_command_in(Command::new(binary), json!({}), options, json!(folders))
    }

    fn start_command(command: Command, capabilities: Value, options: Value) -> Editor {
        Editor::start_command_in(command, capabilities, options, Value::Null)
    }

    fn start_command_in(
        mut command: Command,
        capabilities: Value,
        options: Value,
        folders: Value,
    ) -> Editor {
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
        std::thread::spawn(move || {
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
                if tx.send(serde_json::from_slice(&body).unwrap()).is_err() {
                    return;
                }
            }
        });
        let mut editor = Editor {
            child,
            stdin,
            messages,
            backlog: Vec::new(),
            next_id: 1,
            configuration: Value::Null,
            pulls: 0,
        };
        let init = editor.request(
            "initialize",
            json!({"processId": null, "rootUri": null, "workspaceFolders": folders, "capabilities": capabilities, "initializationOptions": options}),
        );
        assert_eq!(init["result"]["serverInfo"]["name"], "report-lsp");
        editor.notify("initialized", json!({}));
        editor
    }

    /// The server's process id, for reading its memory figures.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Writes raw bytes, for malformed frames.
    pub fn send_raw(&mut self, bytes: &[u8]) {
        self.stdin.write_all(bytes).unwrap();
        self.stdin.flush().unwrap();
    }

    /// A memory figure of the server from /proc (`VmRSS`, `VmHWM`), in KiB.
    pub fn memory_kb(&self, field: &str) -> u64 {
        let status =
            std::fs::read_to_string(format!("/proc/{}/status", self.pid())).unwrap_or_default();
        status
            .lines()
            .find_map(|l| l.strip_prefix(field).and_then(|v| v.strip_prefix(':')))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or(0)
    }

    pub fn send(&mut self, message: Value) {
        let frame = Editor::frame(&message);
        self.send_frame(&frame);
    }

    /// A message framed for the wire, to be sent with [`Editor::send_frame`]:
    /// a bench times the server from the write, not the encoding.
    pub fn frame(message: &Value) -> Vec<u8> {
        let body = message.to_string();
        let mut frame = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
        frame.extend_from_slice(body.as_bytes());
        frame
    }

    pub fn send_frame(&mut self, frame: &[u8]) {
        self.stdin.write_all(frame).unwrap();
        self.stdin.flush().unwrap();
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
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
        loop {
            let message = self
                .messages
                .recv_timeout(limit)
                .unwrap_or_else(|_| panic!("the server answers within {limit:?}"));
            if message["method"] != "workspace/configuration" || message.get("id").is_none() {
                return message;
            }
            let items = message["params"]["items"].as_array().map_or(0, Vec::len);
            let answer = vec![self.configuration.clone(); items];
            self.send(json!({"jsonrpc": "2.0", "id": message["id"], "result": answer}));
            self.pulls += 1;
        }
    }

    /// The next message `wanted` accepts, from the backlog or the wire;
    /// what it passes over is kept in the backlog.
    pub fn next_matching(&mut self, wanted: impl Fn(&Value) -> bool) -> Value {
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

    pub fn change(&mut self, uri: &str, version: i64, changes: Value) {
        self.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": changes}),
        );
    }

    pub fn shutdown(mut self) {
        let reply = self.request("shutdown", Value::Null);
        assert!(reply.get("error").is_none(), "{reply}");
        self.notify("exit", Value::Null);
        let status = self.child.wait().unwrap();
        assert!(status.success(), "{status}");
    }

    /// Sends `exit` without `shutdown` first; the server's exit status.
    pub fn exit_without_shutdown(mut self) -> std::process::ExitStatus {
        self.notify("exit", Value::Null);
        self.child.wait().unwrap()
    }
}
