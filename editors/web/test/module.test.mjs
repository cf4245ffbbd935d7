// The built module (REPORT_WASM, else dist/report_wasm.wasm) in Node,
// through the same loader the page uses, against the CLI (REPORT_LSP_BIN):
// `node --test editors/web/test/` (tests/web.rs runs it).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { load } from "../report-wasm.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../../..");
const wasm = process.env.REPORT_WASM ?? path.join(here, "../dist/report_wasm.wasm");
const cli = process.env.REPORT_LSP_BIN ?? path.join(root, "target/debug/report-lsp");
const core = await load(fs.readFileSync(wasm));

function golden() {
  const dir = path.join(root, "examples/golden");
  return [dir, path.join(dir, "invalid"), path.join(dir, "valid")]
    .flatMap((d) => fs.readdirSync(d).filter((f) => f.endsWith(".json")).map((f) => path.join(d, f)))
    .sort();
}

// A browser has no project to read: check's answer with the workspace checks off.
const config = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "report-wasm-")), "report-lsp.toml");
fs.writeFileSync(config, "workspace-checks = false\n");

/** `check --format json` of one file, as the browser sees it: its one file's object. */
function check(file) {
  let out;
  try {
    out = execFileSync(cli, ["check", "--format", "json", "--config", config, file], { encoding: "utf8" });
  } catch (e) {
    out = e.stdout; // exit status 1: the file has errors
  }
  const { files } = JSON.parse(out);
  assert.equal(files.length, 1);
  return files[0];
}

test("every golden example: the module's diagnostics are check's, codes, ranges, messages and fixes", () => {
  const files = golden();
  assert.ok(files.length > 20);
  for (const file of files) {
    const expected = check(file);
    const report = core.open(fs.readFileSync(file), path.basename(file));
    const answer = report.call("diagnostics");
    report.close();
    assert.deepEqual(answer.diagnostics, expected.diagnostics, file);
    assert.equal(answer.omitted, expected.omitted, file);
  }
});

test("a string from JavaScript: UTF-16 columns after CJK and an emoji", () => {
  const valid = fs.readFileSync(path.join(root, "examples/golden/valid.report.json"), "utf8");
  // A broken value after CJK and an emoji, on the same line.
  const text = valid.replace('"op_type": "', '"表😀": 1, "op_type": "x');
  const report = core.open(text, "valid.report.json");
  const { diagnostics } = report.call("diagnostics");
  const bad = diagnostics.find((d) => d.code === "unknown-field" || d.message.includes("表😀"));
  assert.ok(bad, JSON.stringify(diagnostics));
  const line = text.split("\n")[bad.range.start.line];
  // JavaScript's own index of the key is the UTF-16 column.
  assert.equal(bad.range.start.character, line.indexOf('"表😀"'));
  assert.equal(bad.range.end.character, line.indexOf('"表😀"') + '"表😀"'.length);
  report.close();
});

test("completion offers the closed set's values inside a value", () => {
  const valid = fs.readFileSync(path.join(root, "examples/golden/valid.report.json"), "utf8");
  const lines = valid.split("\n");
  const line = lines.findIndex((l) => l.includes('"op_type": "'));
  const character = lines[line].indexOf('"op_type": "') + '"op_type": "'.length;
  const report = core.open(valid, "valid.report.json");
  const labels = report.call("completion", { position: { line, character } }).map((i) => i.label);
  assert.ok(labels.includes("generative") && labels.includes("deterministic"), labels.join());
  const items = report.call("completion", { position: { line, character } });
  assert.ok(items.every((i) => i.kind === "EnumMember"), JSON.stringify(items.map((i) => i.kind)));
  report.close();
});

test("errors are thrown in words, and the module keeps answering", () => {
  const report = core.open("{}", "a.json");
  assert.throws(() => report.call("rename"), /no method `rename`/);
  assert.throws(() => report.call("hover", { position: { line: "x" } }), /a position needs a whole number `line`/);
  report.close();
  assert.throws(() => report.call("diagnostics"), /no such document/);
  const again = core.open("{}", "b.json");
  assert.ok(again.call("diagnostics").diagnostics.length > 0);
  again.close();
});

test("after a trap in a call, the open documents still answer", () => {
  const report = core.open(fs.readFileSync(path.join(root, "examples/golden/invalid.report.json")), "a.json");
  const before = report.call("diagnostics");
  // A request the module reads past its memory's end: a trap mid-call.
  const { exports } = core;
  assert.throws(() => exports.rl_call(report.handle, exports.memory.buffer.byteLength - 8, 4096), WebAssembly.RuntimeError);
  assert.deepEqual(report.call("diagnostics"), before);
  const other = core.open("{}", "b.json");
  assert.ok(other.call("diagnostics").diagnostics.length > 0);
  other.close();
  report.close();
});

test("bad input never traps: deep nesting, a huge string, junk bytes, nothing", () => {
  const inputs = [
    "[".repeat(200000),
    "{".repeat(100000) + "}".repeat(100000),
    `{"a": "${"x".repeat(8 << 20)}"`,
    new Uint8Array([0xff, 0xfe, 0x00, 0x7b, 0xc3]),
    "",
    "\uFEFF{\"schema_version\": 1,}",
  ];
  for (const input of inputs) {
    const report = core.open(input, "bad.json");
    const { diagnostics } = report.call("diagnostics");
    assert.ok(diagnostics.length > 0, String(input).slice(0, 20));
    assert.ok(diagnostics.every((d) => d.severity && d.range && d.message));
    report.call("outline");
    report.call("hover", { position: { line: 0, character: 3 } });
    report.call("completion", { position: { line: 0, character: 1 } });
    report.call("summary", { format: "html" });
    report.close();
  }
});

test("the summary's page has its pictures, and the trace is given by place", () => {
  const file = path.join(root, "examples/golden/invalid.report.json");
  const report = core.open(fs.readFileSync(file), "invalid.report.json");
  const { content: html, entries } = report.call("summary", { format: "html" });
  assert.ok(entries.length > 0 && entries.every((e) => Number.isInteger(e.index) && e.range.start.line >= 0));
  assert.match(html, /<svg [^>]*role="img"/);
  assert.doesNotMatch(html, /<script/);
  const { diagnostics } = report.call("diagnostics");
  const tier = diagnostics.find((d) => d.code.includes("tier"));
  assert.ok(tier, diagnostics.map((d) => d.code).join());
  const trace = report.call("trace", { position: tier.range.start });
  assert.match(trace.markdown, /^\*\*safety_tier\*\* of `entries\[\d+\]`/);
  assert.match(trace.markdown, /Derived: `(auto|confirm)`/);
  report.close();
});
