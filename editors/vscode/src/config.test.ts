import { test } from "node:test";
import assert from "node:assert/strict";

import {
  DEFAULT_FILES,
  configurationAnswers,
  describeStatus,
  documentSelectorFor,
  filesFor,
  launchFor,
  restartNeeded,
  sectionFor,
  settingRemoved,
  unavailableMessage,
  userSection,
} from "./config";

test("the setting wins, then the bundled server, then PATH", () => {
  assert.deepEqual(launchFor({}, undefined, "linux"), { command: "report-lsp", args: ["serve"], source: "path" });
  assert.deepEqual(launchFor({ path: "  " }, undefined, "linux").source, "path");
  assert.equal(launchFor({}, undefined, "win32").command, "report-lsp.exe");
  assert.deepEqual(launchFor({}, "/ext/server/report-lsp", "linux"), {
    command: "/ext/server/report-lsp",
    args: ["serve"],
    source: "bundled",
  });
  assert.deepEqual(launchFor({ path: "/opt/路径/report-lsp" }, "/ext/server/report-lsp", "linux"), {
    command: "/opt/路径/report-lsp",
    args: ["serve"],
    source: "setting",
  });
});

test("the message for a server that cannot start names the setting", () => {
  for (const launch of [
    launchFor({ path: "/nope" }, undefined, "linux"),
    launchFor({}, "/ext/server/report-lsp", "linux"),
    launchFor({}, undefined, "linux"),
  ]) {
    const message = unavailableMessage(launch, "not found");
    assert.match(message, /reportLsp\.path/);
    assert.match(message, /^Report LSP: /);
  }
  assert.match(unavailableMessage(launchFor({ path: "/nope" }), "not found"), /"\/nope"/);
});

test("with no server bundled or on PATH, the message says how to install one", () => {
  const message = unavailableMessage(launchFor({}, undefined, "linux"), "not found on PATH");
  for (const way of ["pip install report-lsp", "npm install -g report-lsp", "cargo install report-lsp"]) {
    assert.ok(message.includes(way), `${way} in: ${message}`);
  }
});

test("file globs default to the server's and can be replaced", () => {
  assert.deepEqual(filesFor({}), DEFAULT_FILES);
  assert.deepEqual(filesFor({ files: [] }), DEFAULT_FILES);
  assert.deepEqual(filesFor({ files: ["**/*.audit.json", ""] }), ["**/*.audit.json"]);
});

test("a restricted workspace turns the workspace checks off, whatever the settings say", () => {
  const settings = { files: ["a/*.json"], workspaceChecks: "on", allowRootOutsideWorkspace: true };
  // The initialization options, as each change.
  assert.deepEqual(sectionFor(settings, true), { ...settings, restrictedWorkspace: false });
  assert.deepEqual(sectionFor(settings, false), {
    files: ["a/*.json"],
    workspaceChecks: "off",
    allowRootOutsideWorkspace: true,
    restrictedWorkspace: true,
  });
  // The answers to workspace/configuration, and the change notifications.
  const held = { workspaceChecks: "on", maxDiagnostics: 5, restrictedWorkspace: false };
  assert.deepEqual(sectionFor(held, false), { workspaceChecks: "off", maxDiagnostics: 5, restrictedWorkspace: true });
  assert.deepEqual(sectionFor(held, true), held);
  assert.deepEqual(sectionFor(null, false), { workspaceChecks: "off", restrictedWorkspace: true });
  assert.deepEqual(
    configurationAnswers([{ section: "reportLsp" }, { section: "editor" }], [{ workspaceChecks: "on" }, { tabSize: 2 }], false),
    [{ workspaceChecks: "off", restrictedWorkspace: true }, { tabSize: 2 }],
  );
  // Trust granted: the user's setting holds again.
  assert.deepEqual(configurationAnswers([{ section: "reportLsp" }], [{ workspaceChecks: "off" }], true), [
    { workspaceChecks: "off", restrictedWorkspace: false },
  ]);
});

test("reports are selected by glob for files and unsaved buffers, and Markdown files as targets", () => {
  assert.deepEqual(documentSelectorFor({ files: ["**/*.report.json"] }), [
    { scheme: "file", pattern: "**/*.report.json" },
    { scheme: "untitled", pattern: "**/*.report.json" },
    { scheme: "file", language: "markdown" },
  ]);
});

test("only a new binary needs a restart", () => {
  assert.equal(restartNeeded({}, { files: ["x"] }), false);
  assert.equal(restartNeeded({}, { path: "/usr/local/bin/report-lsp" }), true);
});

test("the document status reads as one line", () => {
  const status = {
    bytes: 37_600_000,
    isReport: true,
    entries: 50000,
    incremental: true,
    incrementalUpdates: 12,
    fullAnalyses: 1,
  };
  assert.equal(
    describeStatus("huge.report.json", status),
    "huge.report.json: 37.6 MB, 50000 entries, edits inside an entry are rechecked on their own; 12 incremental updates, 1 full analyses",
  );
  assert.match(describeStatus("a.json", { ...status, isReport: false }), /not a machine report/);
  assert.match(describeStatus("b.report.json", { ...status, incremental: false, entries: null }), /in full/);
  assert.match(describeStatus("c.report.json", null), /not known/);
  assert.equal(
    describeStatus("d.report.json", { ...status, diagnostics: "pull", pulls: 3, pushes: 0 }),
    "d.report.json: 37.6 MB, 50000 entries, edits inside an entry are rechecked on their own; 12 incremental updates, 1 full analyses; diagnostics pulled by the editor (3 pulls, 0 pushes)",
  );
  assert.match(describeStatus("e.report.json", { ...status, diagnostics: "push", pulls: 0, pushes: 2 }), /pushed by the server \(2 pushes, 0 pulls\)$/);
});

test("only the settings the user set are sent, so a project file's values hold", () => {
  const values = { files: ["**/*.report.json"], maxDiagnostics: 50, tokenTolerance: 0.1, trace: { server: "off" } };
  const inspections: Record<string, object> = {
    files: { defaultValue: ["**/*.report.json"] },
    maxDiagnostics: { defaultValue: 1000, workspaceFolderValue: 50 },
    tokenTolerance: { defaultValue: 0.1, globalValue: 0.1 },
  };
  assert.deepEqual(
    userSection(values, (key) => inspections[key]),
    { maxDiagnostics: 50, tokenTolerance: 0.1 },
  );
  assert.deepEqual(userSection(null, () => undefined), {});
  // A setting unset since: the server is restarted to drop it.
  assert.equal(settingRemoved(["maxDiagnostics", "files"], ["files"]), true);
  assert.equal(settingRemoved(["files"], ["files", "maxDiagnostics"]), false);
});
