// The web extension's language server in its own web worker, as vscode.dev
// runs it (code-server refuses that worker, so web.js cannot reach this
// path): the packaged dist/web/worker.js started in headless Chromium and
// spoken to in the protocol, as vscode-languageclient/browser speaks to it.
// Run by tests/vscode.rs.
//
// Checks: the worker says it runs, takes the module, and answers
// `initialize`; the diagnostics it publishes for the opened report equal
// `check --format json`'s with the workspace checks off (codes, severities,
// ranges, messages, related places); an incremental change that applies a
// quick fix it offered (naming its problem) is checked again, one problem
// fewer; fix-all is offered as report-lsp offers it; the hover on a
// wrong safety_tier shows the trace, and the one on raw_tokens says why the
// project is not read; the outline and completion answer.
//
// Environment:
//   REPORT_LSP_BIN      the CLI, for the expected diagnostics (required)
//   REPORT_LSP_REPORT   the report to open (default the invalid golden example)

"use strict";

const assert = require("node:assert/strict");
const { execFileSync } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");

const { launchBrowser, log, sessionFolders } = require("./harness");

const extension = path.resolve(__dirname, "..");
const cli = process.env.REPORT_LSP_BIN;
const report = process.env.REPORT_LSP_REPORT || path.resolve(extension, "../../examples/golden/invalid.report.json");
const folders = sessionFolders();

/** `check --format json`'s diagnostics of `file` with the workspace checks off, as the protocol has them. */
function expectedOf(file) {
  const config = path.join(folders.temp, "report-lsp.toml");
  fs.writeFileSync(config, "workspace-checks = false\n");
  let out;
  try {
    out = execFileSync(cli, ["check", "--format", "json", "--config", config, file], { encoding: "utf8" });
  } catch (e) {
    out = e.stdout;
  }
  const severity = { error: 1, warning: 2, information: 3, hint: 4 };
  return JSON.parse(out).files[0].diagnostics.map((d) => ({
    range: d.range,
    severity: severity[d.severity],
    code: d.code,
    source: "report-lsp",
    message: d.message,
    ...(d.related.length
      ? { relatedInformation: d.related.map((r) => ({ location: { uri: "file:///w/report.json", range: r.range }, message: r.message })) }
      : {}),
  }));
}

/** In the page: the worker started, the module handed over, and a session of the protocol. */
async function session(page, source, wasm, text) {
  return page.evaluate(
    async ({ source, wasm, text }) => {
      const bytes = Uint8Array.from(atob(wasm), (c) => c.charCodeAt(0));
      const worker = new Worker(URL.createObjectURL(new Blob([source], { type: "text/javascript" })));
      const inbox = [];
      const waiting = [];
      worker.onmessage = ({ data }) => {
        inbox.push(data);
        waiting.splice(0).forEach((wake) => wake());
      };
      const next = async (test) => {
        for (;;) {
          const found = inbox.findIndex(test);
          if (found >= 0) return inbox.splice(found, 1)[0];
          await Promise.race([new Promise((wake) => waiting.push(wake)), new Promise((r) => setTimeout(r, 60000))]);
          if (!inbox.some(test)) throw new Error(`no answer; had ${JSON.stringify(inbox).slice(0, 500)}`);
        }
      };
      const ready = await next((m) => typeof m === "string");
      worker.postMessage(bytes.buffer, [bytes.buffer]);
      let id = 0;
      const request = async (method, params) => {
        const mine = ++id;
        worker.postMessage({ jsonrpc: "2.0", id: mine, method, params });
        return (await next((m) => m.id === mine)).result;
      };
      const notify = (method, params) => worker.postMessage({ jsonrpc: "2.0", method, params });
      const published = () => next((m) => m.method === "textDocument/publishDiagnostics").then((m) => m.params);
      const uri = "file:///w/report.json";
      const initialized = await request("initialize", { processId: null, rootUri: null, capabilities: {} });
      notify("initialized", {});
      notify("textDocument/didOpen", { textDocument: { uri, languageId: "machine-report", version: 1, text } });
      const first = await published();
      const lines = text.split("\n");
      const at = (needle, shift) => {
        const line = lines.findIndex((l) => l.includes(needle));
        return { line, character: lines[line].indexOf(needle) + shift };
      };
      const tier = first.diagnostics.find((d) => d.code === "tier-mismatch");
      const trace = await request("textDocument/hover", { textDocument: { uri }, position: tier.range.start });
      const off = await request("textDocument/hover", { textDocument: { uri }, position: at('"raw_tokens"', 2) });
      const outline = await request("textDocument/documentSymbol", { textDocument: { uri } });
      const completion = await request("textDocument/completion", { textDocument: { uri }, position: at('"op_type": "', 12) });
      const actions = await request("textDocument/codeAction", {
        textDocument: { uri },
        range: tier.range,
        context: { diagnostics: [], only: ["quickfix"] },
      });
      const fixAll = await request("textDocument/codeAction", {
        textDocument: { uri },
        range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
        context: { diagnostics: [], only: ["source.fixAll"] },
      });
      // The fix applied as the editor applies it: an incremental change.
      const fix = actions.find((a) => a.isPreferred);
      notify("textDocument/didChange", {
        textDocument: { uri, version: 2 },
        contentChanges: fix.edit.changes[uri].map((e) => ({ range: e.range, text: e.newText })),
      });
      const second = await published();
      worker.terminate();
      return { ready, initialized, first, second, trace, off, outline, completion, fix, tier, fixAll };
    },
    { source, wasm, text },
  );
}

async function main() {
  assert.ok(cli, "REPORT_LSP_BIN names the CLI");
  const source = fs.readFileSync(path.join(extension, "dist/web/worker.js"), "utf8");
  const wasm = fs.readFileSync(path.join(extension, "dist/web/report_wasm.wasm")).toString("base64");
  const text = fs.readFileSync(report, "utf8");
  const browser = await launchBrowser(folders.env);
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    const got = await session(page, source, wasm, text);
    assert.equal(got.ready, "report-lsp: ready");
    assert.equal(got.initialized.serverInfo.name, "report-lsp (WebAssembly)");
    const expected = expectedOf(report);
    assert.ok(expected.length > 3);
    assert.deepEqual(got.first.diagnostics, expected);
    assert.equal(got.second.diagnostics.length, expected.length - 1, "the fix applied: one problem fewer");
    assert.equal(got.second.version, 2);
    assert.match(got.fix.title, /^Set safety_tier to "confirm"/);
    assert.equal(got.fix.kind, "quickfix");
    assert.deepEqual(got.fix.diagnostics, [got.tier], "the fix names its problem");
    assert.deepEqual(
      got.fixAll.map((a) => [a.kind, a.title]),
      [["source.fixAll.report-lsp", "Fix all unambiguous report problems"]],
      "fix-all as report-lsp offers it",
    );
    assert.ok(got.fixAll[0].edit.changes["file:///w/report.json"].length === 1);
    assert.match(got.trace.contents.value, /derive_safety_tier\(op_type=/);
    assert.match(got.off.contents.value, /\*\*Project not read\*\*: the workspace checks are off in a browser/);
    assert.ok(got.outline.some((s) => s.name === "entries" && s.children.length > 0), JSON.stringify(got.outline).slice(0, 300));
    const labels = got.completion.map((i) => i.label);
    assert.ok(labels.includes("generative") && labels.includes("deterministic"), labels.join());
    assert.deepEqual(errors, []);
    log(`the web worker: ${got.first.diagnostics.length} diagnostics as check gives them, the fix applied, hovers, outline, completion`);
  } finally {
    await browser.close();
    fs.rmSync(folders.temp, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (failure) => {
    console.error(failure);
    process.exit(1);
  },
);
