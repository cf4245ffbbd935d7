// End-to-end test of the packaged extension in a real VS Code: code-server
// with the .vsix installed, driven through headless Chromium by
// playwright-core. Run by tests/vscode.rs (which computes the expected
// diagnostics from the core), or by hand:
//
//   REPORT_LSP_CODE_SERVER=.../code-server REPORT_LSP_EXPECTED='[{"line":5,"code":"..."}]' node e2e.js
//
// Environment:
//   REPORT_LSP_CODE_SERVER  the code-server binary (required)
//   REPORT_LSP_VSIX         the packaged extension (default ../report-lsp.vsix)
//   REPORT_LSP_REPORT       the report to open (default the invalid golden example)
//   REPORT_LSP_EXPECTED     JSON list of {line (1-based), code}: what Problems must list
//   REPORT_LSP_SCREENSHOTS  folder for the screenshots kept as evidence (default a temporary one)
//   CHROMIUM                the browser (default /usr/bin/chromium)
//
// Checks: the Problems panel lists exactly the expected diagnostics (line
// and code); the hover on a wrong safety_tier shows the derivation trace; the
// quick fix picked from Ctrl+. applies and its problem goes away; with
// reportLsp.path set to a missing binary, exactly one message names the
// setting. Everything runs on 127.0.0.1, with all editor state in a
// temporary folder; code-server runs in its own process group (setsid) and
// only that group is ended.

"use strict";

const assert = require("node:assert/strict");
const { execFileSync, spawn } = require("node:child_process");
const fs = require("node:fs");
const net = require("node:net");
const os = require("node:os");
const path = require("node:path");

const { chromium } = require("playwright-core");

const here = __dirname;
const codeServer = process.env.REPORT_LSP_CODE_SERVER;
const vsix = path.resolve(process.env.REPORT_LSP_VSIX || path.join(here, "..", "report-lsp.vsix"));
const report = path.resolve(
  process.env.REPORT_LSP_REPORT || path.join(here, "..", "..", "..", "examples", "golden", "invalid.report.json"),
);
const expected = JSON.parse(process.env.REPORT_LSP_EXPECTED || "null");
const browserPath = process.env.CHROMIUM || "/usr/bin/chromium";

const temp = fs.mkdtempSync(path.join(os.tmpdir(), "report-lsp-vscode-"));
const shots = process.env.REPORT_LSP_SCREENSHOTS || path.join(temp, "screenshots");
fs.mkdirSync(shots, { recursive: true });
const userData = path.join(temp, "user-data");
const extensions = path.join(temp, "extensions");
const workspace = path.join(temp, "workspace");
const reportName = "machine.report.json";

// code-server and VS Code write below XDG folders and HOME: keep them all here.
const env = {
  ...process.env,
  HOME: path.join(temp, "home"),
  XDG_DATA_HOME: path.join(temp, "data"),
  XDG_CONFIG_HOME: path.join(temp, "config"),
  XDG_CACHE_HOME: path.join(temp, "cache"),
};

let server; // the code-server child, leader of its own process group
let browser;

function log(message) {
  console.log(`[vscode-e2e ${new Date().toISOString().slice(11, 19)}] ${message}`);
}

/** A free port on 127.0.0.1. */
function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.on("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

async function waitForHttp(url, ms) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(url);
      if (response.ok) {
        return;
      }
    } catch {
      // not listening yet
    }
    if (server.exitCode !== null) {
      throw new Error(`code-server exited with ${server.exitCode}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url} did not answer within ${ms / 1000} s`);
}

/** Ends code-server's process group (and only it): TERM, then KILL. */
async function endServer() {
  if (!server || server.exitCode !== null || server.signalCode !== null) {
    return;
  }
  const group = -server.pid;
  const exited = new Promise((r) => server.once("exit", r));
  try {
    process.kill(group, "SIGTERM");
  } catch {
    return;
  }
  const timer = new Promise((r) => setTimeout(r, 5000, "timeout"));
  if ((await Promise.race([exited, timer])) === "timeout") {
    try {
      process.kill(group, "SIGKILL");
    } catch {
      // already gone
    }
  }
}

/** The Problems panel's markers as {line, col, code, text}. */
async function problems(page) {
  const rows = await page.locator(".markers-panel .monaco-list-row").evaluateAll((elements) =>
    elements.map((e) => e.textContent || ""),
  );
  return rows
    .map((text) => {
      // A marker row's text ends with its source, code and place: "...report-lspmissing-field[Ln 1, Col 1]"
      // (the brackets around the code are CSS). Related places are rows too ("file[Ln 17, Col 16]:...").
      const marker = /report-lsp([a-z0-9-]+)\[Ln (\d+), Col (\d+)\]$/.exec(text);
      return marker && { line: Number(marker[2]), col: Number(marker[3]), code: marker[1], text };
    })
    .filter(Boolean)
    .sort((a, b) => a.line - b.line || a.col - b.col);
}

async function waitFor(what, ms, check) {
  const deadline = Date.now() + ms;
  let last;
  while (Date.now() < deadline) {
    last = await check();
    if (last) {
      return last;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${what}: not within ${ms / 1000} s`);
}

async function main() {
  assert.ok(codeServer, "REPORT_LSP_CODE_SERVER names the code-server binary");
  assert.ok(fs.existsSync(vsix), `no extension at ${vsix} (npm run package)`);
  assert.ok(Array.isArray(expected) && expected.length > 0, "REPORT_LSP_EXPECTED lists the diagnostics");
  fs.mkdirSync(workspace, { recursive: true });
  fs.copyFileSync(report, path.join(workspace, reportName));
  for (const dir of [env.HOME, env.XDG_DATA_HOME, env.XDG_CONFIG_HOME, env.XDG_CACHE_HOME]) {
    fs.mkdirSync(dir, { recursive: true });
  }
  const settingsFile = path.join(userData, "User", "settings.json");
  fs.mkdirSync(path.dirname(settingsFile), { recursive: true });
  const settings = {
    "workbench.startupEditor": "none",
    "workbench.tips.enabled": false,
    "workbench.enableExperiments": false,
    "telemetry.telemetryLevel": "off",
    "extensions.autoUpdate": false,
    "extensions.autoCheckUpdates": false,
    "extensions.ignoreRecommendations": true,
    "security.workspace.trust.enabled": false,
    "update.mode": "none",
    "editor.hover.delay": 100,
  };
  fs.writeFileSync(settingsFile, JSON.stringify(settings, null, 2));

  log(`installing ${vsix}`);
  execFileSync(
    codeServer,
    ["--user-data-dir", userData, "--extensions-dir", extensions, "--install-extension", vsix],
    { env, stdio: ["ignore", "pipe", "inherit"], timeout: 120000 },
  );

  const port = await freePort();
  const serverLog = fs.openSync(path.join(temp, "code-server.log"), "w");
  // detached: setsid(), so code-server and everything it starts form one group we can end.
  server = spawn(
    codeServer,
    [
      "--bind-addr",
      `127.0.0.1:${port}`,
      "--auth",
      "none",
      "--disable-workspace-trust",
      "--disable-telemetry",
      "--disable-update-check",
      "--disable-getting-started-override",
      "--user-data-dir",
      userData,
      "--extensions-dir",
      extensions,
      workspace,
    ],
    { env, detached: true, stdio: ["ignore", serverLog, serverLog] },
  );
  const base = `http://127.0.0.1:${port}`;
  await waitForHttp(`${base}/healthz`, 60000);
  log(`code-server on ${base}`);

  browser = await chromium.launch({
    executablePath: browserPath,
    headless: true,
    // Chromium writes crash reports and caches below HOME/XDG folders too.
    env,
    // Running as root in a container: Chromium's sandbox needs user namespaces it may not have.
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
  });
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.goto(`${base}/?folder=${encodeURIComponent(workspace)}`);
  await page.locator(".monaco-workbench").waitFor({ timeout: 60000 });

  // Open the report from the Explorer (Quick Open is flaky before file search is ready).
  const item = page.getByRole("treeitem", { name: reportName });
  await item.waitFor({ timeout: 60000 });
  await item.click();
  await page.locator(".monaco-editor .view-lines").first().waitFor({ timeout: 30000 });
  const tab = page.locator(".tabs-container .tab", { hasText: reportName });
  await tab.waitFor({ timeout: 30000 });
  log("report open");

  // Problems: exactly the expected diagnostics, at their lines.
  await page.locator(".monaco-editor .view-lines").first().click();
  await page.keyboard.press("Control+Shift+M");
  const listed = await waitFor("the Problems panel lists the diagnostics", 60000, async () => {
    const found = await problems(page);
    return found.length >= expected.length ? found : null;
  });
  assert.deepEqual(
    listed.map((p) => ({ line: p.line, code: p.code })),
    expected,
    `Problems lists what the core finds; the rows: ${JSON.stringify(listed.map((p) => p.text))}`,
  );
  log(`Problems lists ${listed.length} diagnostics at the expected lines`);

  // Hover on the wrong safety_tier: the derivation trace.
  const tier = listed.find((p) => p.code === "tier-mismatch");
  assert.ok(tier, "a tier-mismatch problem");
  await page.locator(".markers-panel .monaco-list-row", { hasText: "tier-mismatch" }).first().click();
  await page.keyboard.press("Control+G");
  await page.keyboard.type(`${tier.line}:${tier.col + 1}`);
  await page.keyboard.press("Enter");
  const hover = page.locator(".monaco-hover:not(.hidden)", { hasText: "derive_safety_tier(" });
  // Ctrl+K Ctrl+I shows the hover at the cursor; on a busy machine the
  // chord can be lost while the editor is still settling, so it is tried again.
  for (let attempt = 1; ; attempt++) {
    await page.keyboard.press("Control+K");
    await page.keyboard.press("Control+I");
    try {
      await hover.first().waitFor({ timeout: 10000 });
      break;
    } catch (error) {
      if (attempt === 4) throw error;
      log(`no hover yet (attempt ${attempt}); trying again`);
      await page.keyboard.press("Escape");
    }
  }
  const hoverText = await hover.first().textContent();
  assert.match(hoverText, /derive_safety_tier\(op_type=/);
  const hoverShot = path.join(shots, "vscode-hover-and-problems.png");
  await page.screenshot({ path: hoverShot });
  log(`hover shows the tier trace; screenshot ${hoverShot}`);
  await page.keyboard.press("Escape");

  // The quick fix from Ctrl+. on the problem: applied, and the problem goes away.
  // A click on the problem puts the editor's selection on it; Ctrl+1 focuses
  // the editor, where Ctrl+. asks for the code actions there. (Ctrl+. in the
  // Problems panel itself depends on the row having fetched its fixes, which
  // sometimes never happens.) Pressed before the fixes arrive, it opens
  // nothing: try again.
  const row = page.locator(".markers-panel .monaco-list-row", { hasText: "tier-mismatch" }).first();
  const fix = page
    .locator(".action-widget .monaco-list-row.action")
    .filter({ hasText: "Set safety_tier to", visible: true });
  await waitFor("the quick-fix menu from Ctrl+.", 30000, async () => {
    await page.keyboard.press("Escape");
    await row.click();
    await page.keyboard.press("Control+1");
    await page.keyboard.press("Control+.");
    try {
      await fix.first().waitFor({ timeout: 3000 });
      return true;
    } catch {
      return false;
    }
  });
  const fixTitle = await fix.first().getAttribute("aria-label");
  // Pick it with the keyboard, as the menu's mouse handling sits under a
  // pointer block: move the focus down to it, then Enter.
  const focusedLabel = () =>
    page
      .locator(".action-widget .monaco-list-row.action.focused")
      .first()
      .getAttribute("aria-label")
      .catch(() => null);
  await waitFor(`the focus on "${fixTitle}"`, 10000, async () => {
    if ((await focusedLabel()) === fixTitle) {
      return true;
    }
    await page.keyboard.press("ArrowDown");
    return (await focusedLabel()) === fixTitle;
  });
  await page.keyboard.press("Enter");
  const after = await waitFor("the fixed problem leaves the Problems panel", 30000, async () => {
    const found = await problems(page);
    const gone = !found.some((p) => p.code === "tier-mismatch" && p.line === tier.line);
    return gone && found.length === expected.length - 1 ? found : null;
  });
  const fixShot = path.join(shots, "vscode-after-quick-fix.png");
  await page.screenshot({ path: fixShot });
  log(`"${fixTitle}" applied; ${after.length} problems left; screenshot ${fixShot}`);

  // A missing server: set reportLsp.path in the Settings editor, as a user
  // does; the extension restarts on the change and must say one thing,
  // naming the setting.
  const missing = path.join(temp, "no-such-report-lsp");
  await page.keyboard.press("Control+Comma");
  const search = page.locator(".settings-editor .settings-header .monaco-editor textarea, .settings-editor .suggest-input-container textarea");
  await search.first().waitFor({ timeout: 30000 });
  await search.first().focus();
  await page.keyboard.type("reportLsp.path");
  // Wait for the search to narrow the list, or the first text box is another setting's.
  await page.locator(".settings-editor .settings-count-widget", { hasText: "1 Setting Found" }).waitFor({ timeout: 30000 });
  const input = page
    .locator(".settings-editor .setting-item-contents", { hasText: "Report Lsp: Path" })
    .locator("input");
  await input.first().waitFor({ timeout: 30000 });
  await input.first().click();
  await page.keyboard.type(missing);
  await page.keyboard.press("Tab");
  const toasts = page.locator(".notifications-toasts .notification-list-item-message");
  const message = await waitFor("a message about the missing server", 30000, async () => {
    const texts = await toasts.allTextContents();
    return texts.find((t) => t.includes("no-such-report-lsp"));
  });
  assert.match(message, /reportLsp\.path/);
  // Give any second message the time to appear, then count.
  await new Promise((r) => setTimeout(r, 3000));
  const about = (await toasts.allTextContents()).filter((t) => /report.?lsp/i.test(t));
  const missingShot = path.join(shots, "vscode-missing-server.png");
  await page.screenshot({ path: missingShot });
  assert.equal(about.length, 1, `one message about the server, not: ${JSON.stringify(about)}`);
  log(`missing server: one message: ${message}`);
  console.log(`screenshots: ${hoverShot} ${fixShot} ${missingShot}`);
}

main()
  .then(
    () => 0,
    async (error) => {
      console.error(`vscode-e2e failed: ${error && error.stack ? error.stack : error}`);
      try {
        if (browser) {
          const pages = browser.contexts().flatMap((c) => c.pages());
          if (pages[0]) {
            const shot = path.join(shots, "vscode-failure.png");
            await pages[0].screenshot({ path: shot });
            console.error(`screenshot of the failure: ${shot}`);
          }
        }
      } catch {
        // the page is gone
      }
      const serverLog = path.join(temp, "code-server.log");
      if (fs.existsSync(serverLog)) {
        console.error(fs.readFileSync(serverLog, "utf8").split("\n").slice(-30).join("\n"));
      }
      return 1;
    },
  )
  .then(async (status) => {
    if (browser) {
      await browser.close().catch(() => {});
    }
    await endServer();
    // After a failure the editor's state (logs included) stays for a look.
    if (status === 0) {
      fs.rmSync(userData, { recursive: true, force: true });
      fs.rmSync(extensions, { recursive: true, force: true });
      // The screenshots stay: in REPORT_LSP_SCREENSHOTS when given, else in the temporary folder.
      if (process.env.REPORT_LSP_SCREENSHOTS) {
        fs.rmSync(temp, { recursive: true, force: true });
      }
    } else {
      console.error(`editor state kept in ${temp}`);
    }
    process.exit(status);
  });
