// The extension's own logic, free of the vscode module so it can be unit
// tested: settings in, server launch options and document selection out.

export const DEFAULT_FILES = ["**/*.report.json", "**/machine-report*.json"];

export interface Settings {
  /** `reportLsp.path`: the binary; empty means `report-lsp` on PATH. */
  path?: string;
  /** `reportLsp.files`: globs of report files. */
  files?: string[];
  /** `reportLsp.workspaceChecks`: "on" or "off". */
  workspaceChecks?: string;
  /** `reportLsp.allowRootOutsideWorkspace`. */
  allowRootOutsideWorkspace?: boolean;
}

export interface Launch {
  command: string;
  args: string[];
  /** Where the command came from: the setting, the extension's own copy, or PATH. */
  source: "setting" | "bundled" | "path";
}

/** The server's name on PATH. */
export function serverName(platform: string = process.platform): string {
  return platform === "win32" ? "report-lsp.exe" : "report-lsp";
}

/**
 * How to start the server: `reportLsp.path` when set, else the binary bundled
 * in the platform .vsix (`bundled`, when the caller found one), else
 * `report-lsp` on PATH.
 */
export function launchFor(settings: Settings, bundled?: string, platform: string = process.platform): Launch {
  const configured = (settings.path ?? "").trim();
  if (configured !== "") {
    return { command: configured, args: ["serve"], source: "setting" };
  }
  if (bundled) {
    return { command: bundled, args: ["serve"], source: "bundled" };
  }
  return { command: serverName(platform), args: ["serve"], source: "path" };
}

/**
 * The one message shown when the server cannot be started: what was tried,
 * why it failed, and the setting that fixes it.
 */
export function unavailableMessage(launch: Launch, reason: string): string {
  switch (launch.source) {
    case "setting":
      return `Report LSP: the server set in reportLsp.path ("${launch.command}") cannot be started: ${reason}. Point reportLsp.path to a report-lsp binary, or clear it to use the bundled server.`;
    case "bundled":
      return `Report LSP: the bundled server (${launch.command}) cannot be started: ${reason}. Set reportLsp.path to a report-lsp binary.`;
    case "path":
      return `Report LSP: no report-lsp server found (this extension has none bundled for this platform, and none is on PATH). Install one (\`pip install report-lsp\`, \`npm install -g report-lsp\` or \`cargo install report-lsp\`) and reload the window, or set reportLsp.path to a report-lsp binary.`;
  }
}

/** The globs in effect: the configured ones when there are any, else the defaults. */
export function filesFor(settings: Settings): string[] {
  const files = (settings.files ?? []).filter((f) => typeof f === "string" && f.trim() !== "");
  return files.length > 0 ? files : DEFAULT_FILES;
}

export interface DocumentFilter {
  scheme: string;
  pattern?: string;
  language?: string;
}

/**
 * The documents the client sends to the server: files and unsaved buffers
 * matching the globs, and Markdown files, which reports name: the server
 * shows their entries on them and makes a clean's edit on the editor's text.
 * It analyses none of them, and answers nothing for a file no report names.
 */
export function documentSelectorFor(settings: Settings): DocumentFilter[] {
  const reports: DocumentFilter[] = filesFor(settings).flatMap((pattern) => [
    { scheme: "file", pattern },
    { scheme: "untitled", pattern },
  ]);
  return [...reports, { scheme: "file", language: "markdown" }];
}

/** The settings the workspace's trust decides, laid over the user's. */
export interface Trust {
  /** "off" in a restricted (untrusted) workspace; absent, the setting holds. */
  workspaceChecks?: "off";
  /** Tells the server why the checks are off, for its hover. */
  restrictedWorkspace: boolean;
}

/**
 * In a restricted (untrusted) workspace the server reads nothing of the
 * project: the workspace checks are off, and the server says the workspace is
 * restricted. Trusted, the user's settings hold.
 */
export function trustFor(trusted: boolean): Trust {
  return trusted ? { restrictedWorkspace: false } : { workspaceChecks: "off", restrictedWorkspace: true };
}

/** The `reportLsp` section as the server gets it: VS Code's values with the trust laid over them. */
export function sectionFor(value: unknown, trusted: boolean): Record<string, unknown> {
  const values = value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  return { ...values, ...trustFor(trusted) };
}

/**
 * The answers to the server's `workspace/configuration` request: those for
 * the `reportLsp` section with the trust laid over them, the others as VS Code gave them.
 */
export function configurationAnswers(items: { section?: string }[], answers: unknown[], trusted: boolean): unknown[] {
  return answers.map((value, i) => (items[i]?.section === "reportLsp" ? sectionFor(value, trusted) : value));
}

/** Whether a settings change needs a restart (the binary) or only a notification (the globs). */
export function restartNeeded(before: Settings, after: Settings): boolean {
  return (before.path ?? "").trim() !== (after.path ?? "").trim();
}

/** What the server's `report-lsp/status` request answers for a document. */
export interface DocumentStatus {
  bytes: number;
  isReport: boolean;
  entries: number | null;
  incremental: boolean;
  incrementalUpdates: number;
  fullAnalyses: number;
  /** How VS Code gets the diagnostics (absent from older servers), and how often it got them. */
  diagnostics?: "pull" | "push";
  pulls?: number;
  pushes?: number;
}

/** One line for the output channel: how the server is analysing a document. */
export function describeStatus(name: string, status: DocumentStatus | null): string {
  if (!status) {
    return `${name}: not known to the server (not open, or out of sync)`;
  }
  if (!status.isReport) {
    return `${name}: not a machine report, not validated`;
  }
  const size = `${(status.bytes / 1e6).toFixed(1)} MB`;
  const mode = status.incremental
    ? `${status.entries} entries, edits inside an entry are rechecked on their own`
    : "analysed in full on every change until its JSON parses without errors";
  const line = `${name}: ${size}, ${mode}; ${status.incrementalUpdates} incremental updates, ${status.fullAnalyses} full analyses`;
  switch (status.diagnostics) {
    case "pull":
      return `${line}; diagnostics pulled by the editor (${status.pulls ?? 0} pulls, ${status.pushes ?? 0} pushes)`;
    case "push":
      return `${line}; diagnostics pushed by the server (${status.pushes ?? 0} pushes, ${status.pulls ?? 0} pulls)`;
    default:
      return line;
  }
}

/** What `WorkspaceConfiguration.inspect` tells of one setting: its value at each scope. */
export interface Inspection {
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
  globalLanguageValue?: unknown;
  workspaceLanguageValue?: unknown;
  workspaceFolderLanguageValue?: unknown;
}

/** Whether the user set the setting at some scope (not only its default). */
export function isSet(inspection: Inspection | undefined): boolean {
  if (!inspection) {
    return false;
  }
  return [
    inspection.globalValue,
    inspection.workspaceValue,
    inspection.workspaceFolderValue,
    inspection.globalLanguageValue,
    inspection.workspaceLanguageValue,
    inspection.workspaceFolderLanguageValue,
  ].some((value) => value !== undefined);
}

/**
 * The `reportLsp` settings the user set, without those left at their
 * defaults: the server lays the editor's settings over a project file
 * (`report-lsp.toml`), so a default sent as if chosen would hide the file's value.
 */
export function userSection(values: unknown, inspect: (key: string) => Inspection | undefined): Record<string, unknown> {
  const all = values !== null && typeof values === "object" && !Array.isArray(values) ? (values as Record<string, unknown>) : {};
  return Object.fromEntries(Object.entries(all).filter(([key]) => isSet(inspect(key))));
}

/**
 * Whether a setting the user had set is now unset: the server keeps a
 * setting a change leaves out, so only a restart lets the project file's
 * value (or the default) hold again.
 */
export function settingRemoved(before: string[], after: string[]): boolean {
  return before.some((key) => !after.includes(key));
}
