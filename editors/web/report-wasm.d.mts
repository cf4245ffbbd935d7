// Types of report-wasm.mjs, for TypeScript (the web extension).

/** `{line, character}`: a 0-based line and a UTF-16 column. */
export interface Position {
  line: number;
  character: number;
}

export interface Range {
  start: Position;
  end: Position;
}

export interface Edit {
  range: Range;
  new_text: string;
}

/** A diagnostic as `check --format json` writes it. */
export interface Diagnostic {
  code: string;
  severity: "error" | "warning" | "information" | "hint";
  message: string;
  range: Range;
  related: { range: Range; message: string }[];
  fixable: boolean;
  fix: { title: string; preferred: boolean; edits: Edit[] } | null;
}

export interface Diagnostics {
  name: string;
  report: boolean;
  diagnostics: Diagnostic[];
  omitted: number;
}

export interface Hover {
  range: Range;
  markdown: string;
}

export interface CompletionItem {
  label: string;
  kind: "EnumMember" | "Property" | "Path" | "Snippet";
  detail: string | null;
  documentation: string | null;
  edit: Edit;
  snippet: boolean;
  preselect: boolean;
}

export interface DocumentSymbol {
  name: string;
  detail: string | null;
  kind: "Field" | "Array" | "Object" | "Group" | "Notice";
  range: Range;
  selection: Range;
  children: DocumentSymbol[];
}

/** As the server's `report-lsp/summary` answers: the content and each entry it names. */
export interface Summary {
  format: "json" | "markdown" | "text" | "html";
  /** The summary's JSON, or its text, Markdown or page (a string). */
  content: unknown;
  entries: { index: number; range: Range }[];
}

export interface Report {
  call(method: "diagnostics"): Diagnostics;
  call(method: "hover" | "trace", params: { position: Position }): Hover | null;
  call(method: "completion", params: { position: Position }): CompletionItem[];
  call(method: "outline"): DocumentSymbol[];
  call(method: "quickFixes", params: { range: Range }): Diagnostic[];
  call(method: "fixAll"): Edit | null;
  call(method: "summary", params?: { format?: "json" | "markdown" | "text" | "html" }): Summary | null;
  close(): void;
}

export interface Core {
  open(text: string | Uint8Array | ArrayBuffer, name?: string): Report;
}

export function load(source: BufferSource | WebAssembly.Module): Promise<Core>;
