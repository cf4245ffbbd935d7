// The "Report summary" view's pure parts (summaryPanel.ts is the VS Code
// side): the server's answer to `report-lsp/summary` and the range of an
// entry in it, the webview's page (a strict Content-Security-Policy, one
// nonce'd script that shows the server's HTML and posts `{entry: i}` when
// an element with `data-entry="i"` is clicked), and the timing of the
// refreshes (debounced, the latest request winning). Nothing here needs
// VS Code, so `npm test` runs it under Node.

/** The request that answers with a report's summary. */
export const SUMMARY_METHOD = "report-lsp/summary";

/** A position and range as the protocol sends them (0-based). */
export interface LspPosition {
  line: number;
  character: number;
}
export interface LspRange {
  start: LspPosition;
  end: LspPosition;
}

/** An entry the summary names, and where it is in the report. */
export interface SummaryEntry {
  index: number;
  range: LspRange;
}

/** The server's answer: `content` is the page (for `format: "html"`). */
export interface SummaryAnswer {
  format: string;
  content: unknown;
  entries: SummaryEntry[];
  fromDisk: boolean;
}

function isPosition(value: unknown): value is LspPosition {
  const p = value as LspPosition;
  return typeof p === "object" && p !== null && Number.isInteger(p.line) && Number.isInteger(p.character);
}

function isRange(value: unknown): value is LspRange {
  const r = value as LspRange;
  return typeof r === "object" && r !== null && isPosition(r.start) && isPosition(r.end);
}

/** The answer if `value` is one (a malformed entry is left out), else undefined. */
export function asSummaryAnswer(value: unknown): SummaryAnswer | undefined {
  const a = value as Record<string, unknown>;
  if (typeof a !== "object" || a === null || typeof a.format !== "string") {
    return undefined;
  }
  const entries = Array.isArray(a.entries)
    ? a.entries.filter(
        (e): e is SummaryEntry =>
          typeof e === "object" && e !== null && Number.isInteger(e.index) && isRange(e.range),
      )
    : [];
  return { format: a.format, content: a.content, entries, fromDisk: a.fromDisk === true };
}

/** The range of `entries[index]` in the answer, if the summary names it. */
export function entryRange(answer: SummaryAnswer | undefined, index: number): LspRange | undefined {
  return answer?.entries.find((e) => e.index === index)?.range;
}

/** The entry index a webview message asks for (`{entry: i}`), if it is one. */
export function entryAsked(message: unknown): number | undefined {
  const entry = (message as { entry?: unknown } | null)?.entry;
  return typeof entry === "number" && Number.isInteger(entry) && entry >= 0 ? entry : undefined;
}

/** What the webview shows: the server's page, a note over it, or both. */
export interface Shown {
  /** The server's HTML page; undefined: nothing yet. */
  html?: string;
  /** A line above the page: where it came from, or why it is not current. */
  note?: string;
  /** Whether the note is an error. */
  error?: boolean;
}

/** What the panel shows for an answer. */
export function shownFor(answer: SummaryAnswer): Shown {
  const html = typeof answer.content === "string" ? answer.content : `<pre>${escapeHtml(JSON.stringify(answer.content, null, 2))}</pre>`;
  return answer.fromDisk
    ? { html, note: "Read from disk: the report is not open in the server (or is too large for VS Code to hand it over)." }
    : { html };
}

/**
 * What the panel shows when a request failed: the message, over the last
 * summary if there was one (said to be of an earlier text), else alone.
 */
export function shownForError(message: string, last: Shown | undefined): Shown {
  return last?.html !== undefined
    ? { html: last.html, note: `Not current: ${message}`, error: true }
    : { note: message, error: true };
}

export function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/** A nonce for the webview's script: 32 characters from `random` (0 ≤ x < 1). */
export function makeNonce(random: () => number = Math.random): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  let nonce = "";
  for (let i = 0; i < 32; i++) {
    nonce += alphabet.charAt(Math.floor(random() * alphabet.length));
  }
  return nonce;
}

/** The Content-Security-Policy of the page: nothing from anywhere, but inline styles, data: images and our script. */
export function contentSecurityPolicy(nonce: string): string {
  return `default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'nonce-${nonce}';`;
}

/**
 * The webview's script. It shows what the extension posts (`{type:
 * "show", html, note, error}`): the server's page is parsed, its head's
 * styles put in the webview's head (marked, so the next page's replace
 * them) and its body's content in `#summary` (its scripts dropped: the
 * policy would not run them anyway). A click on an element with
 * `data-entry="i"` (or inside one) posts `{entry: i}`. It posts
 * `{ready: true}` once loaded, so that a webview reloaded (shown again
 * after being hidden) gets the latest summary. The scroll position is
 * kept across page changes, and across reloads through the webview state.
 */
const SCRIPT = `
(function () {
  const vscode = acquireVsCodeApi();
  const root = document.getElementById("summary");
  const note = document.getElementById("note");
  const saved = vscode.getState();
  let restore = saved && typeof saved.scrollY === "number" ? saved.scrollY : undefined;
  let shownHtml;
  function show(html) {
    if (html === shownHtml) return;
    shownHtml = html;
    const page = new DOMParser().parseFromString(html || "", "text/html");
    for (const script of page.querySelectorAll("script")) script.remove();
    for (const old of document.head.querySelectorAll("style[data-summary]")) old.remove();
    for (const style of page.head.querySelectorAll("style")) {
      const copy = document.createElement("style");
      copy.setAttribute("data-summary", "");
      copy.textContent = style.textContent;
      document.head.appendChild(copy);
    }
    const x = window.scrollX, y = restore !== undefined ? restore : window.scrollY;
    restore = undefined;
    root.replaceChildren(...Array.from(page.body.childNodes).map((n) => document.adoptNode(n)));
    window.scrollTo(x, y);
  }
  window.addEventListener("message", (event) => {
    const m = event.data;
    if (!m || m.type !== "show") return;
    if (m.html !== undefined) show(m.html); else { shownHtml = undefined; root.replaceChildren(); }
    note.textContent = m.note || "";
    note.hidden = !m.note;
    note.className = m.error ? "error" : "";
  });
  document.addEventListener("click", (event) => {
    const target = event.target instanceof Element ? event.target.closest("[data-entry]") : null;
    if (!target) return;
    event.preventDefault();
    const entry = Number(target.getAttribute("data-entry"));
    if (Number.isInteger(entry) && entry >= 0) vscode.postMessage({ entry: entry });
  });
  window.addEventListener("scroll", () => vscode.setState({ scrollY: window.scrollY }), { passive: true });
  vscode.postMessage({ ready: true });
})();
`;

/**
 * The webview's page: the policy, a note line, `#summary` for the
 * server's page, and the script. The server's page arrives by message.
 */
export function webviewPage(nonce: string, title: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy(nonce)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
  body.vscode-light { color-scheme: light; }
  body.vscode-dark, body.vscode-high-contrast { color-scheme: dark; }
  #note { margin: 0.5em 0; padding: 0.3em 0.6em; border-left: 3px solid var(--vscode-textLink-foreground, #3794ff); }
  #note.error { border-left-color: var(--vscode-errorForeground, #f14c4c); color: var(--vscode-errorForeground, inherit); }
  [data-entry] { cursor: pointer; }
</style>
</head>
<body>
<div id="note" role="status" hidden></div>
<main id="summary"></main>
<script nonce="${nonce}">${SCRIPT}</script>
</body>
</html>
`;
}

/** The timers a Debouncer uses (Node's and the browser's; a test's fake). */
export interface Timers {
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realTimers: Timers = {
  setTimeout: (run, ms) => setTimeout(run, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** Runs `run` once `delayMs` has passed without another `schedule`. */
export class Debouncer {
  private handle: unknown;
  private disposed = false;

  constructor(
    private readonly delayMs: number,
    private readonly run: () => void,
    private readonly timers: Timers = realTimers,
  ) {}

  /** Runs `run` after the delay, unless scheduled again before. */
  schedule(): void {
    if (this.disposed) {
      return;
    }
    this.cancel();
    this.handle = this.timers.setTimeout(() => {
      this.handle = undefined;
      this.run();
    }, this.delayMs);
  }

  /** Runs `run` now, dropping a scheduled run. */
  now(): void {
    if (this.disposed) {
      return;
    }
    this.cancel();
    this.run();
  }

  /** Whether a run is scheduled. */
  get pending(): boolean {
    return this.handle !== undefined;
  }

  private cancel(): void {
    if (this.handle !== undefined) {
      this.timers.clearTimeout(this.handle);
      this.handle = undefined;
    }
  }

  dispose(): void {
    this.cancel();
    this.disposed = true;
  }
}

/**
 * Requests where the latest wins: `begin` cancels the one before (through
 * the `cancel` it was given) and returns a ticket; an answer is used only
 * while `current(ticket)`.
 */
export class Latest {
  private ticket = 0;
  private cancelLast: (() => void) | undefined;
  private disposed = false;

  begin(cancel?: () => void): number {
    this.cancelLast?.();
    this.cancelLast = cancel;
    return ++this.ticket;
  }

  current(ticket: number): boolean {
    return !this.disposed && ticket === this.ticket;
  }

  /** The request of `ticket` is over: its cancel is no longer needed. */
  done(ticket: number): void {
    if (ticket === this.ticket) {
      this.cancelLast = undefined;
    }
  }

  dispose(): void {
    this.cancelLast?.();
    this.cancelLast = undefined;
    this.disposed = true;
  }
}
