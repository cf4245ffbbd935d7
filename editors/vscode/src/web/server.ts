// The language server of VS Code for the Web (vscode.dev, github.dev): the
// same protocol as report-lsp's, answered by the core built as WebAssembly
// (crates/report-wasm, through editors/web/report-wasm.mjs). It only
// translates: each answer is the module's, whose positions are already the
// protocol's (UTF-16). There is no file system or git here: the workspace
// checks are off, and the hover says why where the project's facts would show.
// It runs in a worker of its own, or, where the host refuses one
// (code-server), in the extension host over a MessageChannel (extension.ts).

import {
  BrowserMessageReader,
  BrowserMessageWriter,
  CodeAction,
  CodeActionKind,
  CompletionItemKind,
  createConnection,
  ResponseError,
  Diagnostic,
  DiagnosticSeverity,
  InsertTextFormat,
  MarkupKind,
  SymbolKind,
  TextDocumentSyncKind,
  TextDocuments,
  TextEdit,
} from "vscode-languageserver/browser";
import { TextDocument } from "vscode-languageserver-textdocument";

import type * as wasm from "../../../web/report-wasm.mjs";
import { SUMMARY_METHOD } from "../summary";
import { load } from "../../../web/report-wasm.mjs";

/** What the server reads and writes: a worker's own scope, or a MessagePort. */
export type Port = ConstructorParameters<typeof BrowserMessageReader>[0];

/** What the worker posts once it runs, before any message of the protocol. */
export const READY = "report-lsp: ready";

/** A change is checked once typing pauses this long (the module checks the whole text). */
const PAUSE_MS = 200;

const SEVERITY: Record<wasm.Diagnostic["severity"], DiagnosticSeverity> = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  information: DiagnosticSeverity.Information,
  hint: DiagnosticSeverity.Hint,
};

// As the server's outline and completion name them (src/lsp/handlers).
const SYMBOL: Record<wasm.DocumentSymbol["kind"], SymbolKind> = {
  Field: SymbolKind.Field,
  Array: SymbolKind.Array,
  Object: SymbolKind.Object,
  Group: SymbolKind.Namespace,
  Notice: SymbolKind.Null,
};
const COMPLETION: Record<wasm.CompletionItem["kind"], CompletionItemKind> = {
  EnumMember: CompletionItemKind.EnumMember,
  Property: CompletionItemKind.Property,
  Path: CompletionItemKind.File,
  Snippet: CompletionItemKind.Snippet,
};

const textEdit = (e: wasm.Edit): TextEdit => TextEdit.replace(e.range, e.new_text);

/** The kind and title of fix-all, as report-lsp offers it (src/lsp/handlers/code_action.rs). */
const FIX_ALL_KIND = "source.fixAll.report-lsp";
const FIX_ALL_TITLE = "Fix all unambiguous report problems";

/** Serves the protocol on `port`, with the module `bytes`. */
export function serve(port: Port, bytes: Uint8Array): void {
  let core = load(bytes);
  const connection = createConnection(new BrowserMessageReader(port), new BrowserMessageWriter(port));
  const documents = new TextDocuments(TextDocument);
  /** Each open document's report in the module, as of its last check. */
  const reports = new Map<string, wasm.Report>();
  const timers = new Map<string, ReturnType<typeof setTimeout>>();
  /** The documents checked once already: a first check does not wait for a pause. */
  const seen = new Set<string>();

  /**
   * `answer()`, or, should the module trap (a panic, memory exhausted), a
   * new instance, every open document checked again, and an error reply.
   */
  function guarded<T>(answer: () => T): T {
    try {
      return answer();
    } catch (error) {
      if (!(error instanceof WebAssembly.RuntimeError)) throw error;
      core = load(bytes);
      reports.clear();
      for (const document of documents.all()) schedule(document, 0);
      throw new ResponseError(-32603, `the checker stopped on this text (${error.message}) and was started again`);
    }
  }

  const diagnostic = (uri: string, d: wasm.Diagnostic): Diagnostic => ({
    range: d.range,
    severity: SEVERITY[d.severity],
    code: d.code,
    source: "report-lsp",
    message: d.message,
    // Left out when there is none: a worker's messages keep an undefined field.
    ...(d.related.length
      ? { relatedInformation: d.related.map((r) => ({ location: { uri, range: r.range }, message: r.message })) }
      : {}),
  });

  async function check(document: TextDocument): Promise<void> {
    const module = await core;
    // Closed while the module loaded: nothing is shown for it. (A change
    // updates the same document: its text is read here, the latest.)
    if (documents.get(document.uri) !== document) return;
    reports.get(document.uri)?.close();
    reports.delete(document.uri);
    const name = decodeURIComponent(document.uri.split("/").pop() ?? "report.json");
    let diagnostics: wasm.Diagnostic[];
    try {
      const report = guarded(() => module.open(document.getText(), name));
      reports.set(document.uri, report);
      diagnostics = guarded(() => report.call("diagnostics")).diagnostics;
    } catch (error) {
      connection.console.error(`report-lsp: ${document.uri} could not be checked: ${error}`);
      return;
    }
    await connection.sendDiagnostics({
      uri: document.uri,
      version: document.version,
      diagnostics: diagnostics.map((d) => diagnostic(document.uri, d)),
    });
  }

  function schedule(document: TextDocument, pause: number): void {
    clearTimeout(timers.get(document.uri));
    timers.set(
      document.uri,
      setTimeout(() => {
        timers.delete(document.uri);
        // The text may have moved on: check the current one.
        const current = documents.get(document.uri);
        if (current) void check(current);
      }, pause),
    );
  }

  /** The report of `uri`, checked up to its current text. */
  async function reportOf(uri: string): Promise<wasm.Report | undefined> {
    const document = documents.get(uri);
    if (document && timers.has(uri)) {
      clearTimeout(timers.get(uri));
      timers.delete(uri);
      await check(document);
    }
    return reports.get(uri);
  }

  /** `method`'s answer about `uri`'s report (undefined when it has none). */
  async function ask<T>(uri: string, method: (report: wasm.Report) => T): Promise<T | undefined> {
    const report = await reportOf(uri);
    return report && guarded(() => method(report));
  }

  connection.onInitialize(() => ({
    capabilities: {
      textDocumentSync: TextDocumentSyncKind.Incremental,
      hoverProvider: true,
      completionProvider: { triggerCharacters: ['"'] },
      documentSymbolProvider: true,
      codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix, FIX_ALL_KIND] },
    },
    serverInfo: { name: "report-lsp (WebAssembly)" },
  }));

  // Also on open: the first check at once, the others after a pause in typing.
  documents.onDidChangeContent(({ document }) => {
    schedule(document, seen.has(document.uri) ? PAUSE_MS : 0);
    seen.add(document.uri);
  });
  documents.onDidClose(({ document }) => {
    seen.delete(document.uri);
    clearTimeout(timers.get(document.uri));
    timers.delete(document.uri);
    reports.get(document.uri)?.close();
    reports.delete(document.uri);
    void connection.sendDiagnostics({ uri: document.uri, diagnostics: [] });
  });

  connection.onHover(async ({ textDocument, position }) => {
    const hover = await ask(textDocument.uri, (r) => r.call("hover", { position }));
    return hover ? { contents: { kind: MarkupKind.Markdown, value: hover.markdown }, range: hover.range } : null;
  });

  connection.onCompletion(async ({ textDocument, position }) => {
    const items = (await ask(textDocument.uri, (r) => r.call("completion", { position }))) ?? [];
    return items.map((item) => ({
      label: item.label,
      kind: COMPLETION[item.kind],
      detail: item.detail ?? undefined,
      documentation: item.documentation ? { kind: MarkupKind.Markdown, value: item.documentation } : undefined,
      preselect: item.preselect || undefined,
      filterText: item.edit.new_text.trimStart(),
      insertTextFormat: item.snippet ? InsertTextFormat.Snippet : InsertTextFormat.PlainText,
      textEdit: textEdit(item.edit),
    }));
  });

  connection.onDocumentSymbol(async ({ textDocument }) => {
    const symbol = (s: wasm.DocumentSymbol): import("vscode-languageserver/browser").DocumentSymbol => ({
      name: s.name,
      detail: s.detail ?? undefined,
      kind: SYMBOL[s.kind],
      range: s.range,
      selectionRange: s.selection,
      children: s.children.map(symbol),
    });
    return ((await ask(textDocument.uri, (r) => r.call("outline"))) ?? []).map(symbol);
  });

  // The host's quick fixes at the range (past the cap too), and fix-all.
  connection.onCodeAction(async ({ textDocument, range, context }) => {
    const uri = textDocument.uri;
    const wants = (kind: string) => !context.only || context.only.some((k) => kind.startsWith(k));
    const actions: CodeAction[] = [];
    if (wants(CodeActionKind.QuickFix)) {
      for (const d of (await ask(uri, (r) => r.call("quickFixes", { range }))) ?? []) {
        if (!d.fix) continue;
        actions.push({
          title: d.fix.title,
          kind: CodeActionKind.QuickFix,
          diagnostics: [diagnostic(uri, d)],
          isPreferred: d.fix.preferred,
          edit: { changes: { [uri]: d.fix.edits.map(textEdit) } },
        });
      }
    }
    const all = wants(FIX_ALL_KIND) ? await ask(uri, (r) => r.call("fixAll")) : null;
    if (all) {
      actions.push({ title: FIX_ALL_TITLE, kind: FIX_ALL_KIND, edit: { changes: { [uri]: [textEdit(all)] } } });
    }
    return actions;
  });

  // The reviewer's summary, as report-lsp answers `report-lsp/summary`
  // (summaryPanel.ts shows it); only of an open report: there is no disk here.
  connection.onRequest(SUMMARY_METHOD, async (params: { uri: string; format?: "json" | "html" }) => {
    if (!documents.get(params.uri)) {
      throw new ResponseError(-32602, "the report is not open: in a browser only open reports are read");
    }
    const summary = await ask(params.uri, (r) => r.call("summary", { format: params.format ?? "html" }));
    if (!summary) {
      throw new ResponseError(-32602, "the document is not a report: no summary");
    }
    return { ...summary, fromDisk: false };
  });

  documents.listen(connection);
  connection.listen();
}
