// The JSON Schema the extension contributes to VS Code's JSON language server
// (package.json `jsonValidation`), free of the vscode module so it can be unit
// tested. The contribution's URL is in the extension's own scheme, served by a
// TextDocumentContentProvider: while report-lsp runs (or is starting), a schema
// that adds nothing (`{}`), so no problem, hover or completion is shown twice;
// when it is not running (no binary, crashed, stopped), the full schema that
// `report-lsp schema` printed at package time. The JSON client opens this URL
// as a text document and tells its server to reload it when the document
// changes, so every switch fires the provider's change event. VS Code's JSON
// extension activates only for json and jsonc documents: on a switch to the
// full schema the extension activates it, or a report opened alone would get
// nothing.

/** The scheme of the contributed schema's URL (also an `onFileSystem:` activation event). */
export const SCHEMA_SCHEME = "report-lsp";

/** The URL in package.json's `jsonValidation`. */
export const SCHEMA_URL = `${SCHEMA_SCHEME}://schema/report.schema.json`;

/** What the JSON server gets while report-lsp runs: a schema that accepts everything and describes nothing. */
export const EMPTY_SCHEMA = "{}";

/** Where the full schema sits in the packaged extension (written by scripts/bundle-server.mjs). */
export const BUNDLED_SCHEMA = "schema/report.schema.json";

/**
 * The server as the schema switch sees it: `starting` and `running` mean
 * report-lsp answers (or is about to), so the JSON server gets the empty
 * schema; `stopped` (crashed, or stopped) and `unavailable` (no binary
 * could be started) mean nothing validates the report but the JSON server.
 */
export type ServerState = "starting" | "running" | "stopped" | "unavailable";

export type Served = "empty" | "full";

/** Which schema the JSON server gets in a state. */
export function servedFor(state: ServerState): Served {
  return state === "starting" || state === "running" ? "empty" : "full";
}

/** VS Code's built-in JSON extension, whose server reads `jsonValidation`. */
export const JSON_EXTENSION = "vscode.json-language-features";

/** How long a stop must last before the full schema is served (a crash restarts the server at once). */
export const FULL_AFTER_MS = 1000;

/** The timer the switch waits with (replaced in tests). */
export interface Timer {
  set(callback: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

const realTimer: Timer = {
  set: (callback, ms) => setTimeout(callback, ms),
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export interface SchemaSwitchOptions {
  /** The state before the first `set`. */
  initial?: ServerState;
  /** Told when the full schema cannot be read or parsed. */
  onMissing?: (error: unknown) => void;
  /** How long a stop must last before the full schema is served. */
  fullAfterMs?: number;
  timer?: Timer;
}

/**
 * Holds the server's state and answers the provider: the text of the schema
 * in effect, and a call of `changed` (with the schema now served) on every
 * switch between the two. A switch to the empty schema is immediate; one to
 * the full schema waits `fullAfterMs` and is dropped if the server is
 * starting or running again by then (a crash the client restarts, or the
 * Restart command), so the JSON server does not flash its problems.
 * The full schema is read lazily (once) by `readFull`; when it cannot be read
 * (an unpackaged build), the empty schema stands in, and `onMissing` says so.
 */
export class SchemaSwitch {
  private state: ServerState;
  private effective: Served;
  private pending: unknown;
  private full: string | undefined;
  private readonly onMissing: (error: unknown) => void;
  private readonly fullAfterMs: number;
  private readonly timer: Timer;

  constructor(
    private readonly readFull: () => string,
    private readonly changed: (served: Served) => void,
    options: SchemaSwitchOptions = {},
  ) {
    this.state = options.initial ?? "starting";
    this.effective = servedFor(this.state);
    this.onMissing = options.onMissing ?? (() => {});
    this.fullAfterMs = options.fullAfterMs ?? FULL_AFTER_MS;
    this.timer = options.timer ?? realTimer;
  }

  get current(): ServerState {
    return this.state;
  }

  /** The schema served now. */
  get served(): Served {
    return this.effective;
  }

  /** Records the server's state; fires `changed` when the schema served changes. */
  set(state: ServerState): void {
    this.state = state;
    const wanted = servedFor(state);
    if (wanted === "empty") {
      this.cancel();
      this.switchTo("empty");
    } else if (this.effective === "empty" && this.pending === undefined) {
      if (this.fullAfterMs <= 0) {
        this.switchTo("full");
      } else {
        this.pending = this.timer.set(() => {
          this.pending = undefined;
          if (servedFor(this.state) === "full") {
            this.switchTo("full");
          }
        }, this.fullAfterMs);
      }
    }
  }

  /** Drops a pending switch (on deactivation). */
  dispose(): void {
    this.cancel();
  }

  private cancel(): void {
    if (this.pending !== undefined) {
      this.timer.clear(this.pending);
      this.pending = undefined;
    }
  }

  private switchTo(served: Served): void {
    if (this.effective !== served) {
      this.effective = served;
      this.changed(served);
    }
  }

  /** The text served for SCHEMA_URL now. */
  content(): string {
    if (this.served === "empty") {
      return EMPTY_SCHEMA;
    }
    if (this.full === undefined) {
      try {
        const text = this.readFull();
        JSON.parse(text);
        this.full = text;
      } catch (error) {
        this.onMissing(error);
        return EMPTY_SCHEMA;
      }
    }
    return this.full;
  }
}

/**
 * The `jsonValidation` file patterns for the server's default globs: VS Code
 * matches a pattern anywhere in the path (it prefixes `**\/` itself), so the
 * leading `**\/` is dropped.
 */
export function jsonValidationPatterns(globs: string[]): string[] {
  return globs.map((glob) => glob.replace(/^\*\*\//, ""));
}

