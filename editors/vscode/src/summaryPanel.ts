// "Report summary": the server's summary of a report (`report-lsp/summary`,
// format html) in a webview beside it, one panel per report, kept current:
// asked again 300 ms after the last edit of the report (the latest request
// winning, older answers dropped), at once when it is saved, when VS Code's
// diagnostics of it change (the server's workspace checks, which follow the
// files the report names), when the report's own file changes on disk (a
// report VS Code does not hand the extension, over 50 MB, is read from disk
// by the server), and when the server (re)starts. A click on an entry link
// (`data-entry`) reveals that entry in the report, in the report's column.
// Errors (not a report, no server) are shown in the panel, never thrown.

import * as vscode from "vscode";
// A type only: the browser entry (src/web) uses these panels with its client too.
import type { BaseLanguageClient } from "vscode-languageclient/node";

import {
  Debouncer,
  Latest,
  LspRange,
  SUMMARY_METHOD,
  Shown,
  SummaryAnswer,
  asSummaryAnswer,
  entryAsked,
  entryRange,
  makeNonce,
  shownFor,
  shownForError,
  webviewPage,
} from "./summary";

/** The command's id (package.json). */
export const SHOW_SUMMARY = "report-lsp.showSummary";
/** The panels' view type. */
const VIEW_TYPE = "reportLsp.summary";
/** How long after an edit the summary is asked for again. */
export const REFRESH_DELAY_MS = 300;

/** The last part of `uri`'s path: a file's name. */
function basename(uri: vscode.Uri): string {
  return uri.path.slice(uri.path.lastIndexOf("/") + 1);
}

/** One report's panel. */
class SummaryPanel {
  private readonly latest = new Latest();
  private readonly refresher: Debouncer;
  private readonly disposables: vscode.Disposable[] = [];
  private answer: SummaryAnswer | undefined;
  private shown: Shown | undefined;
  /** A refresh was skipped while the panel was hidden. */
  private stale = false;
  private disposed = false;

  constructor(
    readonly uri: vscode.Uri,
    readonly panel: vscode.WebviewPanel,
    /** The column the report was shown in when the panel was opened. */
    public reportColumn: vscode.ViewColumn | undefined,
    private readonly client: () => BaseLanguageClient | undefined,
    private readonly log: (line: string) => void,
    onDispose: () => void,
  ) {
    this.refresher = new Debouncer(REFRESH_DELAY_MS, () => void this.refresh());
    panel.webview.html = webviewPage(makeNonce(), panel.title);
    this.disposables.push(
      panel.webview.onDidReceiveMessage((message) => this.received(message)),
      panel.onDidChangeViewState(({ webviewPanel }) => {
        if (webviewPanel.visible && this.stale) {
          this.refresher.now();
        }
      }),
      panel.onDidDispose(() => {
        this.dispose();
        onDispose();
      }),
    );
    if (uri.scheme === "file") {
      // The report's own file: a report over 50 MB is never handed to the
      // extension, so its changes are seen here (the server reads it from disk).
      const watcher = vscode.workspace.createFileSystemWatcher(
        new vscode.RelativePattern(vscode.Uri.joinPath(uri, ".."), basename(uri)),
      );
      this.disposables.push(
        watcher,
        watcher.onDidChange(() => this.schedule()),
        watcher.onDidCreate(() => this.schedule()),
        watcher.onDidDelete(() => this.schedule()),
      );
    }
    // The first summary; posted again when the page says it is ready.
    this.refresher.now();
  }

  /** Asks again after the delay (an edit, a change of diagnostics or files). */
  schedule(): void {
    this.refresher.schedule();
  }

  /** Asks again now. */
  refreshNow(): void {
    this.refresher.now();
  }

  private post(shown: Shown): void {
    this.shown = shown;
    void this.panel.webview.postMessage({ type: "show", ...shown }).then(undefined, () => undefined);
  }

  private async refresh(): Promise<void> {
    if (this.disposed) {
      return;
    }
    if (!this.panel.visible) {
      this.stale = true;
      return;
    }
    this.stale = false;
    const client = this.client();
    if (!client || !client.isRunning()) {
      this.latest.begin();
      this.answer = undefined;
      this.post(shownForError("The report-lsp server is not running (see the \"Report LSP\" output channel).", this.shown));
      return;
    }
    const cancel = new vscode.CancellationTokenSource();
    const ticket = this.latest.begin(() => cancel.cancel());
    try {
      const result = await client.sendRequest(
        SUMMARY_METHOD,
        { uri: client.code2ProtocolConverter.asUri(this.uri), format: "html" },
        cancel.token,
      );
      if (!this.latest.current(ticket)) {
        return; // a later request is on its way
      }
      const answer = asSummaryAnswer(result);
      if (!answer) {
        this.post(shownForError("The server's answer is not a summary.", this.shown));
        return;
      }
      this.answer = answer;
      this.post(shownFor(answer));
    } catch (error) {
      if (!this.latest.current(ticket)) {
        return; // cancelled by a later request, or the panel closed
      }
      const message = error instanceof Error ? error.message : String(error);
      this.post(shownForError(message, this.shown));
    } finally {
      this.latest.done(ticket);
      cancel.dispose();
    }
  }

  private received(message: unknown): void {
    if ((message as { ready?: unknown } | null)?.ready === true) {
      // Loaded, or reloaded after being hidden: the latest summary, or a first one.
      if (this.shown) {
        this.post(this.shown);
      }
      if (this.stale) {
        this.refresher.now();
      }
      return;
    }
    const entry = entryAsked(message);
    if (entry !== undefined) {
      void this.reveal(entry).catch((error) => this.log(`Report summary: entries[${entry}] could not be shown: ${error}`));
    }
  }

  /** Shows `entries[index]` in the report, the cursor at its start. */
  private async reveal(index: number): Promise<void> {
    const range: LspRange | undefined = entryRange(this.answer, index);
    if (!range) {
      void vscode.window.showInformationMessage(`Report summary: entries[${index}] is not among the entries this summary names.`);
      return;
    }
    const start = new vscode.Position(range.start.line, range.start.character);
    const selection = new vscode.Selection(start, start);
    const key = this.uri.toString();
    const column =
      vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === key)?.viewColumn ??
      this.reportColumn ??
      (this.panel.viewColumn === vscode.ViewColumn.One ? vscode.ViewColumn.Two : vscode.ViewColumn.One);
    let document: vscode.TextDocument | undefined;
    try {
      document = await vscode.workspace.openTextDocument(this.uri);
    } catch {
      // Over 50 MB: VS Code opens it in an editor but does not hand it to extensions.
    }
    if (document) {
      const editor = await vscode.window.showTextDocument(document, { viewColumn: column, selection, preserveFocus: false });
      editor.revealRange(selection, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
      this.reportColumn = editor.viewColumn ?? column;
    } else {
      await vscode.commands.executeCommand("vscode.open", this.uri, { viewColumn: column, selection, preserveFocus: false });
      this.reportColumn = column;
    }
  }

  dispose(): void {
    if (this.disposed) {
      return;
    }
    this.disposed = true;
    this.refresher.dispose();
    this.latest.dispose();
    for (const d of this.disposables.splice(0)) {
      d.dispose();
    }
  }
}

/** Every report's panel, and what keeps them current. */
export class SummaryPanels implements vscode.Disposable {
  private readonly panels = new Map<string, SummaryPanel>();
  private readonly disposables: vscode.Disposable[];

  constructor(
    private readonly client: () => BaseLanguageClient | undefined,
    private readonly log: (line: string) => void,
  ) {
    this.disposables = [
      vscode.workspace.onDidChangeTextDocument((event) => {
        if (event.contentChanges.length > 0) {
          this.panels.get(event.document.uri.toString())?.schedule();
        }
      }),
      vscode.workspace.onDidSaveTextDocument((document) => this.panels.get(document.uri.toString())?.refreshNow()),
      vscode.languages.onDidChangeDiagnostics((event) => {
        if (this.panels.size === 0) {
          return;
        }
        for (const uri of event.uris) {
          this.panels.get(uri.toString())?.schedule();
        }
      }),
    ];
  }

  /** The report the command is for: its argument (the Explorer's), else the active editor's, tab's or panel's. */
  target(argument: unknown): vscode.Uri | undefined {
    if (argument instanceof vscode.Uri) {
      return argument;
    }
    if (typeof argument === "string" && argument !== "") {
      return vscode.Uri.parse(argument);
    }
    const editor = vscode.window.activeTextEditor;
    if (editor) {
      return editor.document.uri;
    }
    // A report over 50 MB has a tab but no text editor the extension sees.
    const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
    if (input instanceof vscode.TabInputText) {
      return input.uri;
    }
    return [...this.panels.values()].find((p) => p.panel.active)?.uri;
  }

  /** Opens the panel of the report `uri` beside it, or reveals and refreshes it. */
  show(uri: vscode.Uri): void {
    const key = uri.toString();
    // The report's column, when it is the one shown (a text editor, or the tab of one VS Code does not sync).
    const group = vscode.window.tabGroups.activeTabGroup;
    const input = group.activeTab?.input;
    const reportColumn =
      vscode.window.activeTextEditor?.document.uri.toString() === key
        ? vscode.window.activeTextEditor.viewColumn
        : input instanceof vscode.TabInputText && input.uri.toString() === key
          ? group.viewColumn
          : undefined;
    const open = this.panels.get(key);
    if (open) {
      if (reportColumn !== undefined) {
        open.reportColumn = reportColumn;
      }
      open.panel.reveal(undefined, true);
      open.refreshNow();
      return;
    }
    const panel = vscode.window.createWebviewPanel(
      VIEW_TYPE,
      `Summary: ${basename(uri)}`,
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
      { enableScripts: true, enableFindWidget: true, localResourceRoots: [] },
    );
    this.panels.set(key, new SummaryPanel(uri, panel, reportColumn, this.client, this.log, () => this.panels.delete(key)));
  }

  /** The server (re)started or stopped: every panel asks again. */
  serverChanged(): void {
    for (const panel of this.panels.values()) {
      panel.schedule();
    }
  }

  dispose(): void {
    for (const panel of [...this.panels.values()]) {
      panel.panel.dispose();
    }
    this.panels.clear();
    for (const d of this.disposables.splice(0)) {
      d.dispose();
    }
  }
}
