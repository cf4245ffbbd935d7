// What the end-to-end scripts share: a code-server of their own (every
// editor state in one temporary folder, bound to 127.0.0.1, in a process
// group of its own that only it ends), Chromium through playwright-core,
// and reading the Problems panel. e2e.js drives the platform package,
// universal.js the universal one.

"use strict";

const { execFileSync, spawn } = require("node:child_process");
const fs = require("node:fs");
const net = require("node:net");
const os = require("node:os");
const path = require("node:path");

const { chromium } = require("playwright-core");

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

/** The files below `dir` whose name ends with `suffix`. */
function filesNamed(dir, suffix) {
  let found = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      found = found.concat(filesNamed(full, suffix));
    } else if (entry.name.endsWith(suffix)) {
      found.push(full);
    }
  }
  return found;
}

/** The user settings every test starts from: nothing VS Code would show or fetch on its own. */
const quietSettings = {
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

/**
 * A code-server session's folders, below a new temporary folder: `temp`,
 * `userData`, `extensions`, `workspace`, `settingsFile`, and `env`, the
 * environment that keeps code-server, VS Code and Chromium below `temp`.
 */
function sessionFolders() {
  const temp = fs.mkdtempSync(path.join(os.tmpdir(), "report-lsp-vscode-"));
  const env = {
    ...process.env,
    HOME: path.join(temp, "home"),
    XDG_DATA_HOME: path.join(temp, "data"),
    XDG_CONFIG_HOME: path.join(temp, "config"),
    XDG_CACHE_HOME: path.join(temp, "cache"),
  };
  const folders = {
    temp,
    env,
    userData: path.join(temp, "user-data"),
    extensions: path.join(temp, "extensions"),
    workspace: path.join(temp, "workspace"),
  };
  folders.settingsFile = path.join(folders.userData, "User", "settings.json");
  for (const dir of [env.HOME, env.XDG_DATA_HOME, env.XDG_CONFIG_HOME, env.XDG_CACHE_HOME, folders.workspace]) {
    fs.mkdirSync(dir, { recursive: true });
  }
  fs.mkdirSync(path.dirname(folders.settingsFile), { recursive: true });
  return folders;
}

/**
 * Installs `vsix` and starts code-server on `folders.workspace` (the
 * environment `env`, by default the folders'); resolves to
 * `{ server, base }` once it answers. Its log is `temp/code-server.log`.
 */
async function startCodeServer(codeServer, vsix, folders, env = folders.env) {
  log(`installing ${vsix}`);
  execFileSync(
    codeServer,
    ["--user-data-dir", folders.userData, "--extensions-dir", folders.extensions, "--install-extension", vsix],
    { env, stdio: ["ignore", "pipe", "inherit"], timeout: 120000 },
  );
  const port = await freePort();
  const serverLog = fs.openSync(path.join(folders.temp, "code-server.log"), "w");
  // detached: setsid(), so code-server and everything it starts form one group we can end.
  const server = spawn(
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
      folders.userData,
      "--extensions-dir",
      folders.extensions,
      folders.workspace,
    ],
    { env, detached: true, stdio: ["ignore", serverLog, serverLog] },
  );
  const base = `http://127.0.0.1:${port}`;
  await waitFor(`${base}/healthz answering`, 60000, async () => {
    if (server.exitCode !== null) {
      throw new Error(`code-server exited with ${server.exitCode}`);
    }
    try {
      return (await fetch(`${base}/healthz`)).ok;
    } catch {
      return false; // not listening yet
    }
  });
  log(`code-server on ${base}`);
  return { server, base };
}

/** Ends code-server's process group (and only it): TERM, then KILL. */
async function endServer(server) {
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

/** Headless Chromium, its state below the session's folders. */
function launchBrowser(env) {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    // Chromium writes crash reports and caches below HOME/XDG folders too.
    env,
    // Running as root in a container: Chromium's sandbox needs user namespaces it may not have.
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
  });
}

/** A page on the workbench of `workspace`, with the file `name` opened from the Explorer. */
async function openInWorkbench(browser, base, workspace, name) {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.goto(`${base}/?folder=${encodeURIComponent(workspace)}`);
  await page.locator(".monaco-workbench").waitFor({ timeout: 60000 });
  // From the Explorer: Quick Open is flaky before file search is ready.
  const item = page.getByRole("treeitem", { name });
  await item.waitFor({ timeout: 60000 });
  await item.click();
  await page.locator(".monaco-editor .view-lines").first().waitFor({ timeout: 30000 });
  await page.locator(".tabs-container .tab", { hasText: name }).waitFor({ timeout: 30000 });
  log(`${name} open`);
  return page;
}

/**
 * The markers in the Problems panel, from any source, as {file, line, col,
 * source, code, message, text}: those of the file named `file` (null: every
 * file). A file's row comes before its markers.
 */
async function markers(page, file) {
  const rows = await page.locator(".markers-panel .monaco-list-row").evaluateAll((elements) =>
    elements.map((e) => ({
      related: e.querySelector(".related-info-resource") !== null,
      text: e.textContent || "",
      message: e.querySelector(".marker-message")?.textContent ?? "",
      source: e.querySelector(".marker-source")?.textContent ?? "",
      code: e.querySelector(".marker-code")?.textContent ?? "",
      place: e.querySelector(".marker-line")?.textContent ?? "",
      label: e.querySelector(".label-name")?.textContent ?? "",
    })),
  );
  let current = null;
  return rows
    .map((row) => {
      // A marker row's place reads "[Ln 1, Col 1]"; file rows have none, and related places are rows of their own.
      // A file row whose name is not drawn yet owns its markers too: they belong to no file until it is.
      const place = /^\[Ln (\d+), Col (\d+)\]$/.exec(row.place.trim());
      if (!place && !row.related) {
        current = row.label.trim() || null;
      }
      return !row.related && place && { ...row, file: current, line: Number(place[1]), col: Number(place[2]) };
    })
    .filter(Boolean)
    .filter((m) => file === null || m.file === file)
    .sort((a, b) => a.line - b.line || a.col - b.col);
}

/** PATH without any folder that holds a report-lsp. */
function pathWithoutServer() {
  return (process.env.PATH ?? "")
    .split(path.delimiter)
    .filter((dir) => dir !== "" && !fs.existsSync(path.join(dir, "report-lsp")))
    .join(path.delimiter);
}

/**
 * The hover at `line`:`col` (1-based) of the editor in focus, once it holds
 * `text`: its text, with a screenshot `shot` taken while it shows. Ctrl+K
 * Ctrl+I shows the hover at the cursor. On a busy machine the chord can be
 * lost while the editor is still settling, and a hover shown can close
 * again at once (VS Code re-renders it as the diagnostics arrive), so its
 * text and the screenshot are taken while it is seen, and the chord is
 * tried again otherwise.
 */
async function showHover(page, line, col, text, shot) {
  await page.keyboard.press("Control+G");
  await page.keyboard.type(`${line}:${col + 1}`);
  await page.keyboard.press("Enter");
  const hover = page.locator(".monaco-hover:not(.hidden)", { hasText: text });
  for (let attempt = 1; ; attempt++) {
    await page.keyboard.press("Control+K");
    await page.keyboard.press("Control+I");
    try {
      await hover.first().waitFor({ timeout: 10000 });
      const seen = await hover.first().textContent({ timeout: 2000 });
      await page.screenshot({ path: shot });
      if (await hover.first().isVisible()) {
        return seen;
      }
      throw new Error("the hover closed before its screenshot");
    } catch (error) {
      if (attempt === 4) throw error;
      log(`no hover held yet (attempt ${attempt}: ${String(error.message).split("\n")[0]}); trying again`);
      await page.keyboard.press("Escape");
    }
  }
}

module.exports = {
  endServer,
  filesNamed,
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
};
