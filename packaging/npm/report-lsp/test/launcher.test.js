// node --test packaging/npm/report-lsp/test/launcher.test.js
// The launcher run with REPORT_LSP_BINARY naming stand-in binaries (shell scripts, so not on Windows).
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const { spawnSync } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");

const launcher = path.join(__dirname, "..", "bin", "report-lsp.js");
const skip = process.platform === "win32" ? "the stand-ins are shell scripts" : false;

function standIn(t, body) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "report-lsp-launcher-"));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, "report-lsp");
  fs.writeFileSync(file, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  return file;
}

function run(binary, args, options = {}) {
  return spawnSync(process.execPath, [launcher, ...args], {
    encoding: "utf8",
    env: { ...process.env, REPORT_LSP_BINARY: binary },
    ...options,
  });
}

test("passes the arguments, standard input and output through and exits with the binary's status", { skip }, (t) => {
  const binary = standIn(t, 'printf "args:%s|" "$@"; cat; echo oops >&2; exit 3');
  const result = run(binary, ["check", "a b", "--format", "json"], { input: "from stdin" });
  assert.equal(result.stdout, "args:check|args:a b|args:--format|args:json|from stdin");
  assert.equal(result.stderr, "oops\n");
  assert.equal(result.status, 3);
});

test("dies of the signal the binary died of", { skip }, (t) => {
  const binary = standIn(t, "kill -TERM $$");
  const result = run(binary, []);
  assert.equal(result.signal, "SIGTERM");
  assert.equal(result.status, null);
});

test("forwards a signal it is sent to the binary", { skip }, async (t) => {
  const binary = standIn(t, 'trap "echo got-term; exit 7" TERM; echo ready; while :; do sleep 0.05; done');
  const { spawn } = require("node:child_process");
  const child = spawn(process.execPath, [launcher], {
    env: { ...process.env, REPORT_LSP_BINARY: binary },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  const ended = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  await new Promise((resolve) =>
    child.stdout.on("data", (data) => {
      out += data;
      if (out.includes("ready")) resolve();
    }),
  );
  child.kill("SIGTERM");
  const { code } = await ended;
  assert.match(out, /got-term/);
  assert.equal(code, 7);
});

test("a REPORT_LSP_BINARY that is not there is one clear error", { skip }, () => {
  const result = run(path.join(os.tmpdir(), "no-such-report-lsp"), ["--version"]);
  assert.equal(result.status, 1);
  assert.match(result.stderr, /^report-lsp: cannot run .*no-such-report-lsp \(named by REPORT_LSP_BINARY\): .*ENOENT/);
});
