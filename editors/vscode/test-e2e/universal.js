// End-to-end test of the universal package (report-lsp-universal.vsix, no
// server inside) in a real VS Code: code-server driven through headless
// Chromium, as e2e.js does for the platform package. Run by tests/vscode.rs.
//
// Checks: (1) with no report-lsp on PATH, opening a report gives one message
// that says how to install the server (pip, npm, cargo) and names
// reportLsp.path, and report-lsp lists no problem; (2) with report-lsp on
// PATH (in ~/.local/bin, code-server started again), the extension
// starts it from PATH (its output channel says so) and the Problems panel
// lists exactly the expected diagnostics.
//
// Environment:
//   REPORT_LSP_CODE_SERVER  the code-server binary (required)
//   REPORT_LSP_UNIVERSAL_VSIX  the universal package (required)
//   REPORT_LSP_SERVER       a report-lsp binary, put on PATH for (2) (required)
//   REPORT_LSP_REPORT       the report to open
//   REPORT_LSP_EXPECTED     JSON list of {line (1-based), code}: what Problems must list
//   REPORT_LSP_SCREENSHOTS  folder for the screenshots kept as evidence

"use strict";

const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");

const {
  endServer,
  filesNamed,
  launchBrowser,
  log,
  markers,
  openInWorkbench,
  pathWithoutServer,
  quietSettings,
  sessionFolders,
  startCodeServer,
  waitFor,
} = require("./harness");

const codeServer = process.env.REPORT_LSP_CODE_SERVER;
const vsix = process.env.REPORT_LSP_UNIVERSAL_VSIX;
const binary = process.env.REPORT_LSP_SERVER;
const report = process.env.REPORT_LSP_REPORT;
const expected = JSON.parse(process.env.REPORT_LSP_EXPECTED || "null");
const reportName = "universal 通用 🌐.report.json";

const folders = sessionFolders();
const shots = process.env.REPORT_LSP_SCREENSHOTS || path.join(folders.temp, "screenshots");
let server;
let browser;

/** A code-server session on PATH `searchPath`, the report open and the Problems panel shown; `end` ends it. */
async function session(searchPath) {
  let base;
  ({ server, base } = await startCodeServer(codeServer, vsix, folders, { ...folders.env, PATH: searchPath }));
  browser = await launchBrowser(folders.env);
  const page = await openInWorkbench(browser, base, folders.workspace, reportName);
  await page.locator(".monaco-editor .view-lines").first().click();
  await page.keyboard.press("Control+Shift+M");
  return page;
}

async function end() {
  if (browser) {
    await browser.close().catch(() => {});
    browser = undefined;
  }
  await endServer(server);
  server = undefined;
}

async function main() {
  assert.ok(codeServer && vsix && binary, "REPORT_LSP_CODE_SERVER, REPORT_LSP_UNIVERSAL_VSIX and REPORT_LSP_SERVER");
  assert.ok(Array.isArray(expected) && expected.length > 0, "REPORT_LSP_EXPECTED lists the diagnostics");
  fs.mkdirSync(shots, { recursive: true });
  fs.copyFileSync(report, path.join(folders.workspace, reportName));
  fs.writeFileSync(folders.settingsFile, JSON.stringify(quietSettings, null, 2));

  // 1. No report-lsp anywhere: one message, saying how to install one.
  let page = await session(pathWithoutServer());
  const toasts = page.locator(".notifications-toasts .notification-list-item-message");
  const message = await waitFor("a message about the missing server", 60000, async () =>
    (await toasts.allTextContents()).find((t) => t.includes("no report-lsp server found")),
  );
  for (const way of ["pip install report-lsp", "npm install -g report-lsp", "cargo install report-lsp", "reportLsp.path"]) {
    assert.ok(message.includes(way), `the message names ${way}: ${message}`);
  }
  // Give any second message the time to appear, then count.
  await new Promise((r) => setTimeout(r, 3000));
  const about = (await toasts.allTextContents()).filter((t) => /report.?lsp/i.test(t));
  assert.equal(about.length, 1, `one message about the server, not: ${JSON.stringify(about)}`);
  assert.deepEqual(
    (await markers(page, null)).filter((m) => m.source === "report-lsp"),
    [],
    "no problems from a server that is not there",
  );
  const missingShot = path.join(shots, "vscode-universal-no-server.png");
  await page.screenshot({ path: missingShot });
  log(`no server on PATH: one message: ${message}`);
  await end();

  // 2. report-lsp on PATH: started from there, and its problems listed.
  // Where `pip install --user` or pipx puts it, ~/.local/bin, which Debian's
  // ~/.profile adds to PATH: VS Code takes its extensions' environment from
  // a login shell, whose /etc/profile sets PATH anew.
  const bin = path.join(folders.env.HOME, ".local", "bin");
  fs.mkdirSync(bin, { recursive: true });
  fs.copyFileSync(binary, path.join(bin, "report-lsp"));
  fs.chmodSync(path.join(bin, "report-lsp"), 0o755);
  fs.writeFileSync(
    path.join(folders.env.HOME, ".profile"),
    'if [ -d "$HOME/.local/bin" ]; then PATH="$HOME/.local/bin:$PATH"; fi\n',
  );
  page = await session(`${bin}${path.delimiter}${pathWithoutServer()}`);
  const listed = await waitFor("the Problems panel lists the server's diagnostics", 60000, async () => {
    const found = (await markers(page, reportName)).filter((m) => m.source === "report-lsp");
    return found.length >= expected.length ? found : null;
  });
  assert.deepEqual(
    listed.map((p) => ({ line: p.line, code: p.code })),
    expected,
    `Problems lists what the core finds; the rows: ${JSON.stringify(listed.map((p) => p.text))}`,
  );
  // VS Code writes the output channel's log a little after the fact.
  await waitFor("the output channel saying report-lsp was started from PATH", 30000, async () =>
    filesNamed(folders.temp, "Report LSP.log").some((file) =>
      /Started report-lsp \S+ .*from report-lsp \(path\)/.test(fs.readFileSync(file, "utf8")),
    ),
  );
  const pathShot = path.join(shots, "vscode-universal-from-path.png");
  await page.screenshot({ path: pathShot });
  log(`report-lsp from PATH: Problems lists ${listed.length} diagnostics at the expected lines`);
  console.log(`screenshots: ${missingShot} ${pathShot}`);
}

main()
  .then(
    () => 0,
    (failure) => {
      console.error(failure);
      const serverLog = path.join(folders.temp, "code-server.log");
      if (fs.existsSync(serverLog)) {
        console.error(fs.readFileSync(serverLog, "utf8").split("\n").slice(-30).join("\n"));
      }
      return 1;
    },
  )
  .then(async (status) => {
    await end();
    if (status === 0) {
      fs.rmSync(folders.temp, { recursive: true, force: true });
    } else {
      console.error(`editor state kept in ${folders.temp}`);
    }
    process.exit(status);
  });
