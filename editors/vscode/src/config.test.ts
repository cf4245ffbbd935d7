import { test } from "node:test";
import assert from "node:assert/strict";

import {
  DEFAULT_FILES,
  documentSelectorFor,
  filesFor,
  initializationOptionsFor,
  launchFor,
  restartNeeded,
} from "./config";

test("the server is found on PATH unless a path is configured", () => {
  assert.deepEqual(launchFor({}, "linux"), { command: "report-lsp", args: ["serve"] });
  assert.deepEqual(launchFor({ path: "  " }, "linux"), { command: "report-lsp", args: ["serve"] });
  assert.equal(launchFor({}, "win32").command, "report-lsp.exe");
  assert.equal(launchFor({ path: "/opt/路径/report-lsp" }, "linux").command, "/opt/路径/report-lsp");
});

test("file globs default to the server's and can be replaced", () => {
  assert.deepEqual(filesFor({}), DEFAULT_FILES);
  assert.deepEqual(filesFor({ files: [] }), DEFAULT_FILES);
  assert.deepEqual(filesFor({ files: ["**/*.audit.json", ""] }), ["**/*.audit.json"]);
  assert.deepEqual(initializationOptionsFor({ files: ["a/*.json"] }), { files: ["a/*.json"] });
});

test("documents are selected by glob for files and unsaved buffers", () => {
  assert.deepEqual(documentSelectorFor({ files: ["**/*.report.json"] }), [
    { scheme: "file", pattern: "**/*.report.json" },
    { scheme: "untitled", pattern: "**/*.report.json" },
  ]);
});

test("only a new binary needs a restart", () => {
  assert.equal(restartNeeded({}, { files: ["x"] }), false);
  assert.equal(restartNeeded({}, { path: "/usr/local/bin/report-lsp" }), true);
});
