// End-to-end test of the extension's browser entry (VS Code for the Web:
// vscode.dev, github.dev) in a real VS Code: code-server, driven through
// headless Chromium, with the universal package made to run in the
// browser's extension host (`remote.extensionKind`: web), as vscode.dev
// runs it. Run by tests/vscode.rs.
//
// Checks: the extension says where its server runs (code-server refuses a
// web worker to a remotely installed extension, so there it is the
// extension host, over a MessageChannel); the Problems panel lists exactly
// the expected diagnostics, none from VS Code's JSON server; the hover on a
// wrong safety_tier shows the derivation trace, and the one on raw_tokens
// says the workspace checks are off in a browser; "Report summary" shows
// the report's numbers in a webview, and an entry link in it moves the
// cursor to that entry. No report-lsp binary is on PATH: the core answers
// as WebAssembly.
//
// Environment:
//   REPORT_LSP_CODE_SERVER  the code-server binary (required)
//   REPORT_LSP_UNIVERSAL_VSIX  the universal package (required)
//   REPORT_LSP_REPORT       the report to open
//   REPORT_LSP_EXPECTED     JSON list of {line (1-based), code}: what Problems must list
//   REPORT_LSP_SCREENSHOTS  folder for the screenshots kept as evidence

"use strict";

const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");

const {
  endServer,
  launchBrowser,
  log,
  markers,
  openInWorkbench,
  pathWithoutServer,
  quietSettings,
  sessionFolders,
  showHover,
  startCodeServer,
  waitFor,
} = require("./harness");

const codeServer = process.env.REPORT_LSP_CODE_SERVER;
const vsix = process.env.REPORT_LSP_UNIVERSAL_VSIX;
const report = process.env.REPORT_LSP_REPORT;
const expected = JSON.parse(process.env.REPORT_LSP_EXPECTED || "null");
const reportName = "web 网页 🌐.report.json";

const folders = sessionFolders();
const shots = process.env.REPORT_LSP_SCREENSHOTS || path.join(folders.temp, "screenshots");
let server;
let browser;

async function main() {
  assert.ok(codeServer && vsix && report, "REPORT_LSP_CODE_SERVER, REPORT_LSP_UNIVERSAL_VSIX and REPORT_LSP_REPORT");
  assert.ok(Array.isArray(expected) && expected.length > 0, "REPORT_LSP_EXPECTED lists the diagnostics");
  fs.mkdirSync(shots, { recursive: true });
  const text = fs.readFileSync(report, "utf8");
  fs.writeFileSync(path.join(folders.workspace, reportName), text);
  fs.writeFileSync(
    folders.settingsFile,
    JSON.stringify({ ...quietSettings, "remote.extensionKind": { "report-lsp.report-lsp": ["web"] } }, null, 2),
  );
  let base;
  // No report-lsp anywhere: only the WebAssembly core may answer.
  ({ server, base } = await startCodeServer(codeServer, vsix, folders, { ...folders.env, PATH: pathWithoutServer() }));
  browser = await launchBrowser(folders.env);
  // The extension host's console reaches the page's: where the server runs.
  const said = [];
  const context = await browser.newContext();
  context.on("console", (m) => /report-lsp: /.test(m.text()) && said.push(m.text()));
  const page = await openInWorkbench(context, base, folders.workspace, reportName);
  await page.locator(".monaco-editor .view-lines").first().click();
  await page.keyboard.press("Control+Shift+M");

  const where = await waitFor("the extension saying where its server runs", 60000, async () =>
    said.find((line) => line.includes("The report server runs in")),
  );
  assert.match(where, /in the extension host: .*Creating workers from remote extensions is currently not supported/);
  log(`web entry: ${where.replace(/%c/g, "").replace(/\s*color:.*$/, "")}`);

  const listed = await waitFor("the Problems panel lists the core's diagnostics", 60000, async () => {
    const found = await markers(page, reportName);
    return found.filter((m) => m.source === "report-lsp").length >= expected.length ? found : null;
  });
  assert.deepEqual(
    listed.map((p) => ({ line: p.line, code: p.code, source: p.source })),
    expected.map((e) => ({ ...e, source: "report-lsp" })),
    `Problems lists what the core finds and nothing else; the rows: ${JSON.stringify(listed.map((p) => p.text))}`,
  );
  const problemsShot = path.join(shots, "vscode-web-problems.png");
  await page.screenshot({ path: problemsShot });

  const tier = listed.find((p) => p.code === "tier-mismatch");
  assert.ok(tier, "a tier-mismatch problem");
  await page.locator(".markers-panel .monaco-list-row", { hasText: "tier-mismatch" }).first().click();
  const traceShot = path.join(shots, "vscode-web-hover-trace.png");
  const trace = await showHover(page, tier.line, tier.col, "derive_safety_tier(", traceShot);
  assert.match(trace, /derive_safety_tier\(op_type=/);
  await page.keyboard.press("Escape");

  // raw_tokens of the first entry: where the project's facts would show.
  const lines = text.split("\n");
  const tokensLine = lines.findIndex((l) => l.includes('"raw_tokens"'));
  const offShot = path.join(shots, "vscode-web-hover-off.png");
  const off = await showHover(page, tokensLine + 1, lines[tokensLine].indexOf('"raw_tokens"') + 2, "Project not read", offShot);
  assert.match(off, /Project not read: the workspace checks are off in a browser, which has no file system or git to read/);
  await page.keyboard.press("Escape");
  log(`Problems lists ${listed.length} diagnostics; the hovers show the trace and why the project is not read`);

  // "Report summary" from the palette: the report's numbers, in a webview
  // beside, and an entry link that moves the cursor to that entry.
  await page.keyboard.press("F1");
  await page.keyboard.type("Report LSP: Report summary");
  await page.locator(".quick-input-list .monaco-list-row", { hasText: "Report summary" }).first().waitFor({ timeout: 10000 });
  await page.keyboard.press("Enter");
  const entries = JSON.parse(text).entries.length;
  const frame = await waitFor("the summary webview with the report's entries", 30000, async () => {
    for (const f of page.frames()) {
      const shown = await f
        .evaluate(() => Number(document.getElementById("total-entries")?.dataset.value ?? NaN))
        .catch(() => NaN);
      if (shown === entries) return f;
    }
    return null;
  });
  const summaryShot = path.join(shots, "vscode-web-summary.png");
  await page.screenshot({ path: summaryShot });
  const link = frame.locator('a[data-entry="5"]').first();
  await link.click();
  // entries[5] opens on the line the summary names.
  const named = await link.evaluate((a) => a.parentElement.querySelector(".at")?.textContent ?? "");
  const line = Number(/line (\d+)/.exec(named)?.[1]);
  await waitFor(`the cursor on entries[5], line ${line}`, 15000, async () =>
    (await page.locator(".statusbar-item", { hasText: `Ln ${line},` }).count()) > 0,
  );
  log(`Report summary: ${entries} entries; entries[5]'s link moved the cursor to line ${line}`);
  console.log(`screenshots: ${problemsShot} ${traceShot} ${offShot} ${summaryShot}`);
}

main()
  .then(
    () => 0,
    (failure) => {
      console.error(failure);
      return 1;
    },
  )
  .then(async (status) => {
    if (browser) await browser.close().catch(() => {});
    await endServer(server);
    if (status === 0) {
      fs.rmSync(folders.temp, { recursive: true, force: true });
    } else {
      console.error(`editor state kept in ${folders.temp}`);
    }
    process.exit(status);
  });
