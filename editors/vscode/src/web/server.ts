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

/** Serves the protocol on `port`, with the module `bytes`. */
export function serve(port: Port, bytes: Uint8Array): void {
  const core = load(bytes);
  const connection = createConnection(new BrowserMessageReader(port), new BrowserMessageWriter(port));
  const documents = new TextDocuments(TextDocument);
  /** Each open document's report in the module, and its diagnostics with their fixes. */
  const reports = new Map<string, { report: wasm.Report; diagnostics: wasm.Diagnostic[] }>();
  const timers = new Map<string, ReturnType<typeof setTimeout>>();

  async function check(document: TextDocument): Promise<void> {
    const module = await core;
    reports.get(document.uri)?.report.close();
    const name = decodeURIComponent(document.uri.split("/").pop() ?? "report.json");
    const report = module.open(document.getText(), name);
    const { diagnostics } = report.call("diagnostics");
    reports.set(document.uri, { report, diagnostics });
    await connection.sendDiagnostics({
      uri: document.uri,
      version: document.version,
      diagnostics: diagnostics.map(
        (d): Diagnostic => ({
          range: d.range,
          severity: SEVERITY[d.severity],
          code: d.code,
          source: "report-lsp",
          message: d.message,
          // Left out when there is none: a worker's messages keep an undefined field.
          ...(d.related.length
            ? { relatedInformation: d.related.map((r) => ({ location: { uri: document.uri, range: r.range }, message: r.message })) }
            : {}),
        }),
      ),
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
    return reports.get(uri)?.report;
  }

  connection.onInitialize(() => ({
    capabilities: {
      textDocumentSync: TextDocumentSyncKind.Incremental,
      hoverProvider: true,
      completionProvider: { triggerCharacters: ['"'] },
      documentSymbolProvider: true,
      codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix, CodeActionKind.SourceFixAll] },
    },
    serverInfo: { name: "report-lsp (WebAssembly)" },
  }));

  documents.onDidOpen(({ document }) => schedule(document, 0));
  documents.onDidChangeContent(({ document }) => schedule(document, PAUSE_MS));
  documents.onDidClose(({ document }) => {
    clearTimeout(timers.get(document.uri));
    timers.delete(document.uri);
    reports.get(document.uri)?.report.close();
    reports.delete(document.uri);
    void connection.sendDiagnostics({ uri: document.uri, diagnostics: [] });
  });

  connection.onHover(async ({ textDocument, position }) => {
    const hover = (await reportOf(textDocument.uri))?.call("hover", { position });
    return hover ? { contents: { kind: MarkupKind.Markdown, value: hover.markdown }, range: hover.range } : null;
  });

  connection.onCompletion(async ({ textDocument, position }) => {
    const items = (await reportOf(textDocument.uri))?.call("completion", { position }) ?? [];
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
    return ((await reportOf(textDocument.uri))?.call("outline") ?? []).map(symbol);
  });

  connection.onCodeAction(async ({ textDocument, range, context }) => {
    const report = await reportOf(textDocument.uri);
    const diagnostics = reports.get(textDocument.uri)?.diagnostics ?? [];
    if (!report) return [];
    const actions: CodeAction[] = [];
    const wants = (kind: string) => !context.only || context.only.some((k) => kind.startsWith(k));
    const before = (a: wasm.Position, b: wasm.Position) => a.line < b.line || (a.line === b.line && a.character <= b.character);
    if (wants(CodeActionKind.QuickFix)) {
      for (const d of diagnostics) {
        if (!d.fix || !before(d.range.start, range.end) || !before(range.start, d.range.end)) continue;
        actions.push({
          title: d.fix.title,
          kind: CodeActionKind.QuickFix,
          isPreferred: d.fix.preferred,
          edit: { changes: { [textDocument.uri]: d.fix.edits.map(textEdit) } },
        });
      }
    }
    const all = wants(CodeActionKind.SourceFixAll) ? report.call("fixAll") : null;
    if (all) {
      actions.push({
        title: "Fix all report problems that have one fix",
        kind: CodeActionKind.SourceFixAll,
        edit: { changes: { [textDocument.uri]: [textEdit(all)] } },
      });
    }
    return actions;
  });

  // The reviewer's summary, as report-lsp answers `report-lsp/summary`
  // (summaryPanel.ts shows it); only of an open report: there is no disk here.
  connection.onRequest(SUMMARY_METHOD, async (params: { uri: string; format?: "json" | "html" }) => {
    const report = await reportOf(params.uri);
    if (!report) {
      throw new ResponseError(-32602, "the report is not open: in a browser only open reports are read");
    }
    const summary = report.call("summary", { format: params.format ?? "html" });
    if (!summary) {
      throw new ResponseError(-32602, "the document is not a report: no summary");
    }
    return { ...summary, fromDisk: false };
  });

  documents.listen(connection);
  connection.listen();
}
