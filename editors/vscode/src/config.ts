// The extension's own logic, free of the vscode module so it can be unit
// tested: settings in, server launch options and document selection out.

export const DEFAULT_FILES = ["**/*.report.json", "**/machine-report*.json"];

export interface Settings {
  /** `reportLsp.path`: the binary; empty means `report-lsp` on PATH. */
  path?: string;
  /** `reportLsp.files`: globs of report files. */
  files?: string[];
}

export interface Launch {
  command: string;
  args: string[];
}

/** How to start the server: the configured path, or the binary on PATH. */
export function launchFor(settings: Settings, platform: string = process.platform): Launch {
  const configured = (settings.path ?? "").trim();
  const command = configured !== "" ? configured : platform === "win32" ? "report-lsp.exe" : "report-lsp";
  return { command, args: ["serve"] };
}

/** The globs in effect: the configured ones when there are any, else the defaults. */
export function filesFor(settings: Settings): string[] {
  const files = (settings.files ?? []).filter((f) => typeof f === "string" && f.trim() !== "");
  return files.length > 0 ? files : DEFAULT_FILES;
}

export interface DocumentFilter {
  scheme: string;
  pattern: string;
}

/** The documents the client sends to the server: files and unsaved buffers matching the globs. */
export function documentSelectorFor(settings: Settings): DocumentFilter[] {
  return filesFor(settings).flatMap((pattern) => [
    { scheme: "file", pattern },
    { scheme: "untitled", pattern },
  ]);
}

/** What the server reads at start-up (the same shape as `workspace/didChangeConfiguration`). */
export function initializationOptionsFor(settings: Settings): { files: string[] } {
  return { files: filesFor(settings) };
}

/** Whether a settings change needs a restart (the binary) or only a notification (the globs). */
export function restartNeeded(before: Settings, after: Settings): boolean {
  return launchFor(before).command !== launchFor(after).command;
}
