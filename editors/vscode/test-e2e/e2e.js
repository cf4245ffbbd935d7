// End-to-end test of the packaged extension in a real VS Code: code-server
// with the .vsix installed, driven through headless Chromium by
// playwright-core. Run by tests/vscode.rs (which computes the expected
// diagnostics from the core), or by hand:
//
//   REPORT_LSP_CODE_SERVER=.../code-server REPORT_LSP_EXPECTED='[{"line":5,"code":"..."}]' node e2e.js
//
// Environment:
//   REPORT_LSP_CODE_SERVER  the code-server binary (required)
//   REPORT_LSP_VSIX         the packaged extension (default ../report-lsp-linux-x64.vsix)
//   REPORT_LSP_REPORT       the report to open (default the invalid golden example)
//   REPORT_LSP_EXPECTED     JSON list of {line (1-based), code}: what Problems must list
//   REPORT_LSP_SUMMARY      JSON {entries, rawTokens, entry: {index, line, col}, edit: {line, col},
//                           editedRawTokens}: the unopened report's summary (from
//                           `report-lsp summary --format json`), an entry to follow, and a
//                           place where typing "1" makes the total editedRawTokens
//   REPORT_LSP_SCREENSHOTS  folder for the screenshots kept as evidence (default a temporary one)
//   CHROMIUM                the browser (default /usr/bin/chromium)
//
// Checks, in one session: (1) with reportLsp.path naming a missing binary
// from the start, exactly one message names the setting, and VS Code's JSON
// server (activated by the extension) lists the problems of the schema the
// extension contributes (the missing promotion_candidates at line 1, the
// wrong tier), none from report-lsp; (2) with the setting cleared in the
// Settings editor, the Problems panel lists exactly the expected diagnostics
// (line and code) and nothing from the JSON server, which now gets an empty
// schema; the hover on a wrong safety_tier shows the derivation trace; the
// quick fix picked from Ctrl+. applies and its problem goes away; the
// diagnostics came through pulls (the server's status and VS Code's trace
// say so, and no publishDiagnostics was sent); "Report summary" from the
// Explorer's context menu shows the unopened report's summary (read from
// disk) in a webview, an entry link in it moves the cursor to that entry,
// and a digit typed into the report shows in the summary; (3) with the
// setting changed to another missing binary while the server runs, one
// message, the JSON server's problems again, and the summary panel says
// the server is not running. Everything runs on
// 127.0.0.1, with all editor state in a
// temporary folder; code-server runs in its own process group (setsid) and
// only that group is ended.

"use strict";

const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");

const {
  endServer,
  filesNamed,
  launchBrowser,
  log,
  markers: panelMarkers,
  openInWorkbench,
  quietSettings,
  sessionFolders,
  showHover,
  startCodeServer,
  waitFor,
} = require("./harness");

const here = __dirname;
const codeServer = process.env.REPORT_LSP_CODE_SERVER;
const vsix = path.resolve(process.env.REPORT_LSP_VSIX || path.join(here, "..", "report-lsp-linux-x64.vsix"));
const report = path.resolve(
  process.env.REPORT_LSP_REPORT || path.join(here, "..", "..", "..", "examples", "golden", "invalid.report.json"),
);
const expected = JSON.parse(process.env.REPORT_LSP_EXPECTED || "null");

const { temp, env, userData, extensions, workspace, settingsFile } = sessionFolders();
const shots = process.env.REPORT_LSP_SCREENSHOTS || path.join(temp, "screenshots");
fs.mkdirSync(shots, { recursive: true });
const reportName = "machine.report.json";
// A second report, never opened: its problems come by workspace diagnostics.
const unopened = process.env.REPORT_LSP_UNOPENED;
const unopenedExpected = JSON.parse(process.env.REPORT_LSP_UNOPENED_EXPECTED || "null");
const unopenedName = "未开 🚀.report.json";
// The unopened report's summary, and what an edit makes of it.
const summaryExpected = JSON.parse(process.env.REPORT_LSP_SUMMARY || "null");
// A report whose project is the workspace, and the Markdown file it names:
// the lens, the faded span and the clean's refactor preview.
const targetReport = process.env.REPORT_LSP_TARGET_REPORT;
const targetFile = process.env.REPORT_LSP_TARGET_FILE;
const targetName = "targets.report.json";
const targetDoc = "旧-api 😀.md";

let server; // the code-server child, leader of its own process group
let browser;

/** The Problems panel's markers of the file named `file` (the open report by default; null: every file). */
function markers(page, file = reportName) {
  return panelMarkers(page, file);
}

/** The server's markers. */
async function problems(page, file = reportName) {
  return (await markers(page, file)).filter((m) => m.source === "report-lsp");
}

/**
 * The markers of VS Code's JSON server, from the schema the extension
 * contributes: its schema problems carry no source, and nothing else
 * validates the report.
 */
async function schemaProblems(page) {
  return (await markers(page)).filter((m) => m.source !== "report-lsp");
}

/** Asserts the Problems panel holds the server's markers and nothing else (no JSON server duplicates). */
async function assertOnlyServer(page, what) {
  const all = await markers(page);
  const others = all.filter((m) => m.source !== "report-lsp");
  assert.deepEqual(others, [], `${what}: only report-lsp's problems, not: ${JSON.stringify(others.map((m) => m.text))}`);
  return all;
}

/**
 * A number as a summary may print it: its digits, the groups of three
 * apart or not ("13 185", "13,185", "13185").
 */
function numberPattern(n) {
  const digits = String(n);
  const groups = [];
  for (let end = digits.length; end > 0; end -= 3) {
    groups.unshift(digits.slice(Math.max(0, end - 3), end));
  }
  return new RegExp(`(?<![\\d.,])${groups.join("[\\s\\u00a0\\u202f,]?")}(?![\\d])`);
}

/** The frame of the summary webview (code-server nests it in two iframes), once it shows a summary. */
async function summaryFrame(page) {
  return waitFor("the summary webview", 30000, async () => {
    for (const frame of page.frames()) {
      try {
        if ((await frame.locator("main#summary").count()) > 0) {
          return frame;
        }
      } catch {
        // a frame going away
      }
    }
    return null;
  });
}

/** What the summary webview shows: its note and the summary's text. */
async function summaryText(frame) {
  return frame.evaluate(() => {
    // The page's headline numbers, exact, from their cells' data-value.
    const value = (id) => Number(document.getElementById(id)?.dataset.value ?? NaN);
    return {
      note: document.getElementById("note")?.hidden ? "" : document.getElementById("note")?.textContent ?? "",
      text: document.getElementById("summary")?.innerText ?? "",
      entries: value("total-entries"),
      rawTokens: value("total-raw-tokens"),
    };
  });
}

/** What the extension's output channel ("Report LSP") holds, from VS Code's log of it. */
function outputChannel() {
  return filesNamed(temp, "Report LSP.log")
    .map((file) => fs.readFileSync(file, "utf8"))
    .join("\n");
}

async function main() {
  assert.ok(codeServer, "REPORT_LSP_CODE_SERVER names the code-server binary");
  assert.ok(fs.existsSync(vsix), `no extension at ${vsix} (npm run package)`);
  assert.ok(Array.isArray(expected) && expected.length > 0, "REPORT_LSP_EXPECTED lists the diagnostics");
  fs.copyFileSync(report, path.join(workspace, reportName));
  assert.ok(unopened && Array.isArray(unopenedExpected), "REPORT_LSP_UNOPENED and its expected problems");
  fs.copyFileSync(unopened, path.join(workspace, unopenedName));
  assert.ok(targetReport && targetFile, "REPORT_LSP_TARGET_REPORT and REPORT_LSP_TARGET_FILE");
  assert.ok(summaryExpected && summaryExpected.entry && summaryExpected.edit, "REPORT_LSP_SUMMARY");
  fs.copyFileSync(targetReport, path.join(workspace, targetName));
  fs.mkdirSync(path.join(workspace, "docs"), { recursive: true });
  fs.copyFileSync(targetFile, path.join(workspace, "docs", targetDoc));
  const missingAtStart = path.join(temp, "no-such-report-lsp");
  const settings = {
    ...quietSettings,
    // VS Code's own record of the messages, in the extension's output channel.
    "reportLsp.trace.server": "verbose",
    // The first scenario: no server can be started.
    "reportLsp.path": missingAtStart,
  };
  fs.writeFileSync(settingsFile, JSON.stringify(settings, null, 2));

  let base;
  ({ server, base } = await startCodeServer(codeServer, vsix, { temp, env, userData, extensions, workspace }));
  browser = await launchBrowser(env);
  const page = await openInWorkbench(browser, base, workspace, reportName);
  await page.locator(".monaco-editor .view-lines").first().click();
  await page.keyboard.press("Control+Shift+M");

  // 1. No server from the start: reportLsp.path (in the user settings) names
  // a missing file. One message names the setting; VS Code's JSON server,
  // which the extension activates, validates the report with the full
  // schema: the missing promotion_candidates at line 1, the wrong tier of
  // the last tier-mismatch (op_type generative: confirm), and nothing from
  // report-lsp.
  const toasts = page.locator(".notifications-toasts .notification-list-item-message");
  const oneMessage = async (name, others) => {
    const message = await waitFor(`a message about the missing server ${name}`, 30000, async () => {
      const texts = await toasts.allTextContents();
      return texts.find((t) => t.includes(name));
    });
    assert.match(message, /reportLsp\.path/);
    // Give any second message the time to appear, then count.
    await new Promise((r) => setTimeout(r, 3000));
    const about = (await toasts.allTextContents()).filter((t) => /report.?lsp/i.test(t) && !others.some((o) => t.includes(o)));
    assert.equal(about.length, 1, `one message about the server, not: ${JSON.stringify(about)}`);
    return message;
  };
  const lastTier = expected.filter((p) => p.code === "tier-mismatch").pop();
  assert.ok(lastTier, "a tier-mismatch is expected");
  const schemaFinds = (line) =>
    waitFor(`the JSON server's problems from the contributed schema (line 1 and ${line})`, 30000, async () => {
      const found = await schemaProblems(page);
      const missingField = found.some((m) => m.line === 1 && m.message.includes("promotion_candidates"));
      return missingField && found.some((m) => m.line === line) ? found : null;
    });
  const startMessage = await oneMessage(path.basename(missingAtStart), []);
  const fromSchema = await schemaFinds(lastTier.line);
  assert.deepEqual(await problems(page, null), [], "no problems from a server that is not running");
  const missingShot = path.join(shots, "vscode-missing-server.png");
  await page.screenshot({ path: missingShot });
  log(`missing server: one message: ${startMessage}`);
  log(`the JSON server lists ${fromSchema.length} problems from the schema: ${JSON.stringify(fromSchema.map((m) => `${m.line}: ${m.message}`))}`);

  // reportLsp.path in the Settings editor, as a user sets it. The editor
  // re-renders its rows while settings change, and keys typed then were
  // lost (a path arrived without its first characters): the box is filled
  // in one input, and the value is checked in the settings file VS Code
  // writes, the whole again if it did not arrive.
  const pathWritten = () => {
    try {
      const written = JSON.parse(fs.readFileSync(settingsFile, "utf8"))["reportLsp.path"];
      return written === undefined ? "" : written;
    } catch {
      return null; // being written
    }
  };
  const setServerPath = async (value) => {
    for (let attempt = 1; ; attempt++) {
      await page.keyboard.press("Control+Comma");
      const search = page.locator(".settings-editor .settings-header .monaco-editor textarea, .settings-editor .suggest-input-container textarea");
      await search.first().waitFor({ timeout: 30000 });
      await search.first().focus();
      await page.keyboard.press("Control+A");
      await page.keyboard.type("reportLsp.path");
      // Wait for the search to narrow the list, or the first text box is another setting's.
      await page.locator(".settings-editor .settings-count-widget", { hasText: "1 Setting Found" }).waitFor({ timeout: 30000 });
      const input = page
        .locator(".settings-editor .setting-item-contents", { hasText: "Report Lsp: Path" })
        .locator("input");
      await input.first().waitFor({ timeout: 30000 });
      await input.first().fill(value);
      await page.keyboard.press("Tab");
      const deadline = Date.now() + 10000;
      while (Date.now() < deadline && pathWritten() !== value) {
        await new Promise((r) => setTimeout(r, 250));
      }
      const written = pathWritten();
      if (written === value) {
        return;
      }
      assert.ok(attempt < 3, `reportLsp.path is ${JSON.stringify(written)} after 3 tries to set ${JSON.stringify(value)}`);
      log(`reportLsp.path is ${JSON.stringify(written)}, not ${JSON.stringify(value)} (try ${attempt}); setting it again`);
    }
  };

  // 2. The setting cleared: the bundled server starts. Problems lists exactly
  // the core's diagnostics, at their lines, and nothing from the JSON server,
  // which is running now and has reloaded the (now empty) schema.
  await setServerPath("");
  const listed = await waitFor("the Problems panel lists the server's diagnostics alone", 60000, async () => {
    const all = await markers(page);
    const found = all.filter((m) => m.source === "report-lsp");
    return found.length >= expected.length && found.length === all.length ? found : null;
  });
  assert.deepEqual(
    listed.map((p) => ({ line: p.line, code: p.code })),
    expected,
    `Problems lists what the core finds; the rows: ${JSON.stringify(listed.map((p) => p.text))}`,
  );
  log(`Problems lists ${listed.length} diagnostics at the expected lines, none from the JSON server`);

  // The report never opened: its problems too, from the server's search of
  // the folder (workspace/diagnostic), while no editor shows it.
  const unopenedListed = await waitFor("the Problems panel lists the unopened report's problems", 60000, async () => {
    const found = await problems(page, unopenedName);
    return found.length >= unopenedExpected.length ? found : null;
  });
  assert.deepEqual(
    unopenedListed.map((p) => ({ line: p.line, code: p.code })),
    unopenedExpected,
    `Problems lists the unopened report's problems; the rows: ${JSON.stringify(unopenedListed.map((p) => p.text))}`,
  );
  assert.equal(
    await page.locator(".tabs-container .tab", { hasText: unopenedName }).count(),
    0,
    "the unopened report has no editor",
  );
  const unopenedShot = path.join(shots, "vscode-problems-of-an-unopened-report.png");
  await page.screenshot({ path: unopenedShot });
  log(`Problems lists the unopened report's ${unopenedListed.length} problems, with no editor open on it; screenshot ${unopenedShot}`);

  // Hover on the wrong safety_tier: the derivation trace.
  const tier = listed.find((p) => p.code === "tier-mismatch");
  assert.ok(tier, "a tier-mismatch problem");
  await page.locator(".markers-panel .monaco-list-row", { hasText: "tier-mismatch" }).first().click();
  const hoverShot = path.join(shots, "vscode-hover-and-problems.png");
  const hoverText = await showHover(page, tier.line, tier.col, "derive_safety_tier(", hoverShot);
  assert.match(hoverText, /derive_safety_tier\(op_type=/);
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
  await assertOnlyServer(page, "after the quick fix");
  const fixShot = path.join(shots, "vscode-after-quick-fix.png");
  await page.screenshot({ path: fixShot });
  log(`"${fixTitle}" applied; ${after.length} problems left; screenshot ${fixShot}`);


  // The diagnostics came through pulls: VS Code advertises
  // workspace.diagnostics.refreshSupport, so the server chose pull mode.
  // Evidence from both ends: the server's status for the document (its mode,
  // and the pulls and pushes it answered and sent), from the "Show Document
  // Status" command; and VS Code's trace of the messages (verbose), which
  // shows its textDocument/diagnostic requests, the answers carrying the
  // problems listed, and no publishDiagnostics at all.
  await page.keyboard.press("Escape");
  await page.keyboard.press("Control+1");
  const statusLine = await waitFor("the document status in the output channel", 60000, async () => {
    await page.keyboard.press("F1");
    await page.keyboard.type("Report LSP: Show Document Status");
    await page.keyboard.press("Enter");
    await new Promise((r) => setTimeout(r, 1000));
    return outputChannel()
      .split("\n")
      .find((l) => l.startsWith(`${reportName}: `) && l.includes("diagnostics"));
  });
  const counts = statusLine.match(/diagnostics pulled by the editor \((\d+) pulls, (\d+) pushes\)/);
  assert.ok(counts, `the server pulls its diagnostics: ${statusLine}`);
  assert.ok(Number(counts[1]) >= 2, `pulled at least twice (the open and the fix): ${statusLine}`);
  assert.equal(Number(counts[2]), 0, `nothing pushed: ${statusLine}`);
  const trace = outputChannel().split("[Trace - ");
  const pulls = trace.filter((t) => /^[^\]]*\] Sending request 'textDocument\/diagnostic/.test(t));
  const answers = trace.filter((t) => /^[^\]]*\] Received response 'textDocument\/diagnostic/.test(t));
  const pushes = trace.filter((t) => t.includes("textDocument/publishDiagnostics"));
  assert.ok(pulls.length >= 2, `VS Code sent textDocument/diagnostic (${pulls.length} in its trace)`);
  assert.ok(
    answers.some((a) => a.includes('"tier-mismatch"')),
    "a pull's answer carries the problems listed",
  );
  assert.deepEqual(pushes, [], "no publishDiagnostics in VS Code's trace");
  log(`${statusLine}; VS Code's trace: ${pulls.length} textDocument/diagnostic requests, no publishDiagnostics`);
  // The output channel took the panel: the Problems panel back.
  await waitFor("the Problems panel shown again", 30000, async () => {
    if (await page.locator(".markers-panel").first().isVisible()) {
      return true;
    }
    await page.keyboard.press("Control+Shift+M");
    await new Promise((r) => setTimeout(r, 500));
    return page.locator(".markers-panel").first().isVisible();
  });

  // The documents a report names. The Markdown file opened from the
  // Explorer: the entry's lens on its anchored line, the span the clean
  // removes faded (a hint tagged Unnecessary). The lens leads to the entry
  // in the report (window/showDocument); there the entry's clean, from the
  // refactor menu, opens VS Code's Refactor Preview, since its annotation
  // asks to confirm (a confirm entry); discarded, nothing is written.
  const targetBefore = fs.readFileSync(path.join(workspace, "docs", targetDoc), "utf8");
  await page.keyboard.press("Escape");
  const explorer = page.locator(".explorer-folders-view");
  const docsFolder = explorer.getByRole("treeitem", { name: "docs", exact: true });
  await docsFolder.waitFor({ timeout: 30000 });
  await docsFolder.click();
  const targetItem = explorer.getByRole("treeitem", { name: targetDoc, exact: true });
  await targetItem.waitFor({ timeout: 30000 });
  await targetItem.click();
  await page.locator(".tabs-container .tab", { hasText: targetDoc }).waitFor({ timeout: 30000 });
  const lens = page.locator(".monaco-editor .codelens-decoration", { hasText: "delete-range · confirm" });
  await lens.first().waitFor({ timeout: 60000 });
  const lensText = (await lens.first().innerText()).trim();
  assert.ok(lensText.includes(`— ${targetName} entries[0]`), `the lens names the entry: ${lensText}`);
  const faded = page.locator(".monaco-editor .squiggly-inline-unnecessary");
  await faded.first().waitFor({ timeout: 30000 });
  const targetShot = path.join(shots, "vscode-target-document.png");
  await page.screenshot({ path: targetShot });
  log(`target document: lens "${lensText}", the span faded; screenshot ${targetShot}`);
  await lens.first().locator("a").first().click();
  await page.locator(".tabs-container .tab.active", { hasText: targetName }).waitFor({ timeout: 30000 });
  log("the lens led to the entry in the report");
  // The cursor is on the entry's path: the refactor menu there (Ctrl+Shift+R)
  // offers its clean once the report's workspace check has read the project.
  const clean = page
    .locator(".action-widget .monaco-list-row.action")
    .filter({ hasText: "Clean entries[0]: delete-range", visible: true });
  await waitFor("the clean in the refactor menu", 60000, async () => {
    await page.keyboard.press("Escape");
    await page.keyboard.press("Control+Shift+R");
    try {
      await clean.first().waitFor({ timeout: 3000 });
      return true;
    } catch {
      return false;
    }
  });
  const cleanTitle = await clean.first().getAttribute("aria-label");
  await waitFor(`the focus on "${cleanTitle}"`, 10000, async () => {
    if ((await focusedLabel()) === cleanTitle) {
      return true;
    }
    await page.keyboard.press("ArrowDown");
    return (await focusedLabel()) === cleanTitle;
  });
  await page.keyboard.press("Enter");
  const preview = page.locator(".bulk-edit-panel, .refactor-preview").first();
  await waitFor("VS Code's Refactor Preview", 30000, async () => {
    if (await preview.isVisible().catch(() => false)) {
      return true;
    }
    return page.getByText("Refactor Preview").first().isVisible().catch(() => false);
  });
  // The preview lists the edit: the target document, and the lines 3-4 the
  // delete-range removes (VS Code shows a line break as ⏎).
  // The tree renders the file's row first and its change a moment later.
  const previewPanel = page.locator(".bulk-edit-panel");
  const removed = targetBefore.split("\n").slice(2, 4).join("⏎");
  await waitFor(`the Refactor Preview listing ${targetDoc} and the lines it removes, ${removed}`, 30000, async () => {
    const shown = await previewPanel.first().innerText().catch(() => "");
    return shown.includes(targetDoc) && shown.includes(removed);
  });
  const previewShot = path.join(shots, "vscode-clean-preview.png");
  await page.screenshot({ path: previewShot });
  log(`"${cleanTitle}" opened the Refactor Preview listing ${targetDoc}; screenshot ${previewShot}`);
  const discard = page.getByRole("button", { name: "Discard" });
  await discard.first().click();
  // Discarded once the preview has gone; only then is the file compared.
  await previewPanel.first().waitFor({ state: "hidden", timeout: 30000 });
  assert.equal(
    fs.readFileSync(path.join(workspace, "docs", targetDoc), "utf8"),
    targetBefore,
    "discarded: the target is as it was",
  );

  // "Report summary" (issue 46): the unopened report's, from the Explorer's
  // context menu (the way to a report over 50 MB that VS Code never hands
  // to the extension), read from disk by the server; in a webview beside,
  // showing the numbers of `report-lsp summary`. A click on an entry link
  // (`data-entry`) opens the report with the cursor on that entry. Typed
  // into, the report's summary follows the edit. The command palette's
  // "Report summary" on the report reveals the same panel.
  const summaryStarted = Date.now();
  await page.keyboard.press("Escape");
  const unopenedItem = page.locator(".explorer-folders-view").getByRole("treeitem", { name: unopenedName, exact: true });
  await unopenedItem.click({ button: "right" });
  const menuItem = page.locator(".context-view .monaco-menu .action-item", { hasText: "Report summary" });
  await menuItem.first().waitFor({ timeout: 10000 });
  // A click while the menu is still settling can be lost (the item stays
  // highlighted, the menu open): the item is hovered, which focuses it, and
  // taken with Enter, again while the menu stays.
  await waitFor("the context menu's Report summary taken", 15000, async () => {
    if (!(await menuItem.first().isVisible().catch(() => false))) {
      return true;
    }
    await menuItem.first().hover();
    await page.keyboard.press("Enter");
    await new Promise((r) => setTimeout(r, 500));
    return !(await menuItem.first().isVisible().catch(() => false));
  });
  const frame = await summaryFrame(page);
  const total = numberPattern(summaryExpected.rawTokens);
  const fromDisk = await waitFor(`the summary of ${unopenedName} read from disk`, 30000, async () => {
    const shown = await summaryText(frame);
    const numbers = shown.entries === summaryExpected.entries && shown.rawTokens === summaryExpected.rawTokens;
    return numbers && total.test(shown.text) && shown.note.startsWith("Read from disk") ? shown : null;
  });
  // The report's own tab (the summary's is named after it too).
  const reportTab = (selector) => page.locator(selector, { hasText: unopenedName }).filter({ hasNotText: "Summary:" });
  assert.equal(await reportTab(".tabs-container .tab").count(), 0, "summed up from disk: no editor on the report");
  const summaryShot = path.join(shots, "vscode-summary.png");
  await page.screenshot({ path: summaryShot });
  log(`Report summary of ${unopenedName} (read from disk): ${fromDisk.entries} entries, ${fromDisk.rawTokens} raw tokens; screenshot ${summaryShot}`);

  // An entry link: the page's own (the largest saving's).
  const { index, line: entryLine, col: entryCol } = summaryExpected.entry;
  const link = frame.locator(`[data-entry="${index}"]`);
  assert.ok((await link.count()) > 0, `the summary page links to entries[${index}]`);
  await link.first().click();
  await reportTab(".tabs-container .tab.active").waitFor({ timeout: 30000 });
  const cursor = page.locator('[id="status.editor.selection"]');
  const at = `Ln ${entryLine}, Col ${entryCol}`;
  await waitFor(`the cursor on entries[${index}] (${at})`, 15000, async () =>
    ((await cursor.first().textContent().catch(() => "")) ?? "").includes(at),
  );
  log(`the link to entries[${index}] opened ${unopenedName} at ${at}`);

  // Typed into: the summary follows (now from the open document).
  await page.keyboard.press("Control+G");
  await page.keyboard.type(`${summaryExpected.edit.line}:${summaryExpected.edit.col}`);
  await page.keyboard.press("Enter");
  const edited = numberPattern(summaryExpected.editedRawTokens);
  const typed = Date.now();
  await page.keyboard.type("1");
  const followed = await waitFor("the summary after the edit", 15000, async () => {
    const shown = await summaryText(frame);
    return shown.rawTokens === summaryExpected.editedRawTokens && edited.test(shown.text) && shown.note === "" ? shown : null;
  });
  const afterEdit = Date.now() - typed;
  const editShot = path.join(shots, "vscode-summary-after-edit.png");
  await page.screenshot({ path: editShot });
  log(`after typing, the summary shows ${summaryExpected.editedRawTokens} raw tokens within ${afterEdit} ms; screenshot ${editShot}`);
  assert.ok(!followed.note, "the edited report's summary is not read from disk");

  // The command palette, on the report: the same panel, no second one.
  await page.keyboard.press("F1");
  await page.keyboard.type("Report LSP: Report summary");
  await page.locator(".quick-input-list .monaco-list-row", { hasText: "Report summary" }).first().waitFor({ timeout: 10000 });
  await page.keyboard.press("Enter");
  await new Promise((r) => setTimeout(r, 1000));
  const summaryTabs = await page.locator(".tabs-container .tab", { hasText: `Summary: ${unopenedName}` }).count();
  assert.equal(summaryTabs, 1, "one summary panel per report");
  log(`"Report summary" from the palette reveals the same panel; the summary part took ${Date.now() - summaryStarted} ms`);

  // 3. A server that stops (reportLsp.path changed to a missing file while it
  // runs): one message, and the JSON server takes over with the full schema.
  const missingLater = path.join(temp, "gone-report-lsp");
  await setServerPath(missingLater);
  const laterMessage = await oneMessage(path.basename(missingLater), [path.basename(missingAtStart)]);
  const wrongTier = after.find((p) => p.code === "tier-mismatch");
  assert.ok(wrongTier, "a second tier-mismatch is left after the fix");
  const laterSchema = await schemaFinds(wrongTier.line);
  assert.deepEqual(await problems(page, null), [], "no problems from the stopped server");
  // The summary panel says the server is gone, and throws nothing.
  await waitFor("the summary panel saying the server is not running", 15000, async () =>
    /not running/.test((await summaryText(frame)).note),
  );
  const goneShot = path.join(shots, "vscode-server-gone.png");
  await page.screenshot({ path: goneShot });
  log(`server gone: one message: ${laterMessage}; the JSON server lists ${laterSchema.length} problems`);
  console.log(`screenshots: ${missingShot} ${hoverShot} ${fixShot} ${targetShot} ${previewShot} ${summaryShot} ${editShot} ${goneShot}`);
}

main()
  .then(
    () => 0,
    async (error) => {
      const failure = `vscode-e2e failed: ${error && error.stack ? error.stack : error}`;
      console.error(failure);
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
      // The extension's own lines (its messages and the client's errors), and
      // the names of the last messages traced, without their bodies.
      try {
        const channel = outputChannel()
          .split("\n")
          .filter((l) => l.startsWith("[Trace - ") || (/\S/.test(l) && !/^\s|^Params:|^Result:|^[{}\[\]"]/.test(l)))
          .slice(-40);
        if (channel.length > 0) {
          console.error(`the output channel "Report LSP", its last lines:\n${channel.join("\n")}`);
        }
      } catch (readError) {
        console.error(`the output channel could not be read: ${readError}`);
      }
      const serverLog = path.join(temp, "code-server.log");
      if (fs.existsSync(serverLog)) {
        console.error(fs.readFileSync(serverLog, "utf8").split("\n").slice(-30).join("\n"));
        // Once more after the log, so that the tail of a CI log shows it.
        console.error(failure);
      }
      return 1;
    },
  )
  .then(async (status) => {
    if (browser) {
      await browser.close().catch(() => {});
    }
    await endServer(server);
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
