// The page (editors/web/dist/index.html, from build.sh) in headless
// Chromium, opened from file:// with no flag that loosens what a file page
// may do. Run by tests/web.rs, or by hand:
//
//   REPORT_LSP_BIN=target/debug/report-lsp node editors/web/test-e2e/page.mjs
//
// Environment:
//   REPORT_LSP_BIN          the CLI, whose `check --format json` the page must agree with (required)
//   REPORT_WEB_DIST         the built page's folder (default editors/web/dist)
//   REPORT_WEB_LARGE        a large report to check with the page still responding (optional)
//   REPORT_WEB_SCREENSHOTS  folder for the screenshots kept as evidence (default a temporary one)
//   CHROMIUM                the browser (default /usr/bin/chromium)
//
// playwright-core comes from editors/vscode/test-e2e (`npm ci` there), as
// for the code-server tests. Checks: the invalid golden example, picked
// with the file input, lists exactly check's problems (code, range,
// message, fix), read back from the page; the trace of a tier problem
// shows on demand; the summary shows with its pictures; pasted text and a
// dropped file are checked too; no request leaves the page; and the large
// report is checked in the worker while the page keeps answering. Prints
// one JSON line of figures (`{"large": {...}}`) for BENCHMARKS.md.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../../..");
const require = createRequire(path.join(root, "editors/vscode/test-e2e/package.json"));
const { chromium } = require("playwright-core");

const cli = process.env.REPORT_LSP_BIN;
assert.ok(cli, "REPORT_LSP_BIN names the CLI");
const dist = process.env.REPORT_WEB_DIST ?? path.join(root, "editors/web/dist");
const shots = process.env.REPORT_WEB_SCREENSHOTS ?? fs.mkdtempSync(path.join(os.tmpdir(), "report-web-shots-"));
fs.mkdirSync(shots, { recursive: true });
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "report-web-"));
// A browser has no project to read: check's answer with the workspace checks off.
const config = path.join(scratch, "report-lsp.toml");
fs.writeFileSync(config, "workspace-checks = false\n");

function check(file) {
  let out;
  try {
    out = execFileSync(cli, ["check", "--format", "json", "--config", config, file], {
      encoding: "utf8",
      maxBuffer: 1 << 30,
    });
  } catch (e) {
    out = e.stdout; // exit status 1: the file has errors
  }
  return JSON.parse(out).files[0];
}

/** What the page lists, read back from its elements. */
const listed = (page) =>
  page.$$eval(".problem", (items) =>
    items.map((item) => ({
      code: item.dataset.code,
      severity: item.dataset.severity,
      range: {
        start: { line: Number(item.dataset.line), character: Number(item.dataset.character) },
        end: { line: Number(item.dataset.endLine), character: Number(item.dataset.endCharacter) },
      },
      message: item.querySelector(".message").textContent,
      fix: item.querySelector(".fix summary")?.textContent ?? null,
    })),
  );

const expectedOf = (file) =>
  check(file).diagnostics.map((d) => ({
    code: d.code,
    severity: d.severity,
    range: d.range,
    message: d.message,
    fix: d.fix ? `Fix: ${d.fix.title}${d.fix.preferred ? "" : " (not applied by check --fix)"}` : null,
  }));

async function done(page) {
  await page.waitForFunction(() => ["done", "failed"].includes(document.getElementById("status").dataset.state), null, {
    timeout: 120_000,
  });
  const state = await page.$eval("#status", (s) => s.dataset.state);
  assert.equal(state, "done", await page.$eval("#status", (s) => s.textContent));
}

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium" });
try {
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  const requests = [];
  page.on("request", (r) => requests.push(r.url()));
  await page.goto(pathToFileURL(path.join(dist, "index.html")).href);
  await page.waitForFunction(() => document.getElementById("status").dataset.state !== "loading");
  assert.equal(await page.$eval("#status", (s) => s.dataset.state), "ready", await page.$eval("#status", (s) => s.textContent));

  // The file input: exactly check's problems.
  const invalid = path.join(root, "examples/golden/invalid.report.json");
  await page.setInputFiles("#file", invalid);
  await done(page);
  const expected = expectedOf(invalid);
  assert.ok(expected.length > 3);
  assert.deepEqual(await listed(page), expected);
  await page.screenshot({ path: path.join(shots, "web-page-invalid.png"), fullPage: true });

  // A problem inside an entry offers its tier's derivation; one outside none.
  assert.equal(await page.locator('.problem[data-code="missing-field"] .trace-button').count(), 0);
  assert.equal(
    await page.locator(".problem .trace-button").count(),
    expected.filter((d) => d.code !== "missing-field").length,
  );

  // The trace of a tier problem, on demand.
  const tier = page.locator('.problem[data-code="tier-mismatch"]').first();
  await tier.locator(".trace-button").click();
  await tier.locator(".trace pre").waitFor();
  const trace = await tier.locator(".trace pre").textContent();
  assert.match(trace, /^\*\*safety_tier\*\* of `entries\[\d+\]`/);
  assert.match(trace, /derive_safety_tier\(op_type=/);
  assert.match(trace, /Derived: `confirm`/);

  // The summary, with its pictures and the report's numbers.
  await page.click("#show-summary");
  const frame = page.frameLocator("#summary-frame");
  await frame.locator("#total-entries").waitFor();
  const entries = Number(await frame.locator("#total-entries").getAttribute("data-value"));
  assert.equal(entries, JSON.parse(fs.readFileSync(invalid, "utf8")).entries.length);
  assert.ok((await frame.locator('svg[role="img"]').count()) >= 2, "the summary has its charts");
  // Its links stay in the page: a section's scrolls the summary, an
  // entry's shows that entry's first problem.
  await frame.locator('nav a[href="#problems"]').click();
  await frame.locator("#problems").waitFor();
  assert.equal(Number(await frame.locator("#total-entries").getAttribute("data-value")), entries, "the summary stays");
  await frame.locator('a[data-entry="1"]').first().click();
  const target = page.locator(".problem.target");
  await target.waitFor();
  assert.equal(await target.count(), 1);
  const shown = Number(await target.getAttribute("data-line"));
  const entryOne = expected.filter((d) => d.message.startsWith("`entries[1]"));
  assert.ok(entryOne.length > 0);
  assert.equal(shown, Math.min(...entryOne.map((d) => d.range.start.line)), "entries[1]'s first problem");
  assert.match(await page.$eval("#entry-note", (n) => n.textContent), /entries\[1\]: its first problem/);
  await page.screenshot({ path: path.join(shots, "web-page-summary.png"), fullPage: true });

  // Pasted text: the valid example has no problem.
  const valid = path.join(root, "examples/golden/valid.report.json");
  await page.fill("#paste", fs.readFileSync(valid, "utf8"));
  await page.click("#check-paste");
  await done(page);
  assert.equal(await page.locator(".problem").count(), 0);
  assert.match(await page.$eval("#status", (s) => s.textContent), /pasted text: no problems/);

  // A dropped file.
  const dropped = path.join(root, "examples/golden/invalid/07-safety-tier.report.json");
  const transfer = await page.evaluateHandle(
    ([text, name]) => {
      const data = new DataTransfer();
      data.items.add(new File([text], name, { type: "application/json" }));
      return data;
    },
    [fs.readFileSync(dropped, "utf8"), path.basename(dropped)],
  );
  await page.dispatchEvent("body", "drop", { dataTransfer: transfer });
  await done(page);
  assert.deepEqual(await listed(page), expectedOf(dropped));

  // A large report: checked in the worker while the page answers.
  let large = null;
  if (process.env.REPORT_WEB_LARGE) {
    const file = process.env.REPORT_WEB_LARGE;
    // The longest time between two of the page's frames while it checks.
    await page.evaluate(() => {
      globalThis.longestGap = 0;
      let last = performance.now();
      const tick = (now) => {
        globalThis.longestGap = Math.max(globalThis.longestGap, now - last);
        last = now;
        if (document.getElementById("status").dataset.state === "checking" || globalThis.longestGap === 0) requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
    });
    const started = Date.now();
    await page.setInputFiles("#file", file);
    await page.waitForFunction(() => document.getElementById("status").dataset.state === "checking");
    // The page's own thread answers while the worker checks.
    let answeredWhileChecking = 0;
    while ((await page.$eval("#status", (s) => s.dataset.state)) === "checking") {
      answeredWhileChecking++;
      await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 20)));
    }
    await done(page);
    const wall = Date.now() - started;
    assert.ok(answeredWhileChecking >= 2, `the page answered ${answeredWhileChecking} times while checking`);
    const status = await page.$eval("#status", (s) => s.textContent);
    const ms = Number(/\((\d+) ms\)/.exec(status)[1]);
    // The page lists the editor's cap, then the too-many-diagnostics line;
    // with those left out, as many as check finds.
    const listedCount = await page.locator(".problem").count();
    const omitted = Number(/\((\d+) more not shown\)/.exec(status)?.[1] ?? 0);
    const summaryLine = await page.locator('.problem[data-code="too-many-diagnostics"]').count();
    assert.equal(summaryLine, omitted > 0 ? 1 : 0, status);
    assert.equal(await page.locator(".problem").last().getAttribute("data-code"), "too-many-diagnostics");
    assert.equal(listedCount - summaryLine + omitted, check(file).diagnostics.length, status);
    large = {
      bytes: fs.statSync(file).size,
      worker_ms: ms,
      wall_ms: wall,
      answered_while_checking: answeredWhileChecking,
      longest_frame_gap_ms: Math.round(await page.evaluate(() => globalThis.longestGap)),
    };
    await page.screenshot({ path: path.join(shots, "web-page-large.png") });
  }

  assert.deepEqual(errors, [], "no script error in the page or its worker");
  const away = requests.filter((url) => !/^(file|blob|data|about):/.test(url));
  assert.deepEqual(away, [], "nothing leaves the page");
  console.log(JSON.stringify({ large, screenshots: shots }));
} finally {
  await browser.close();
  fs.rmSync(scratch, { recursive: true, force: true });
}
