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

/**
 * Holds the server's state and answers the provider: the text of the schema
 * in effect, and a call of `changed` (with the schema now served) on every
 * switch between the two.
 * The full schema is read lazily (once) by `readFull`; when it cannot be read
 * (an unpackaged build), the empty schema stands in, and `onMissing` says so.
 */
export class SchemaSwitch {
  private state: ServerState;
  private full: string | undefined;

  constructor(
    private readonly readFull: () => string,
    private readonly changed: (served: Served) => void,
    initial: ServerState = "starting",
    private readonly onMissing: (error: unknown) => void = () => {},
  ) {
    this.state = initial;
  }

  get current(): ServerState {
    return this.state;
  }

  get served(): Served {
    return servedFor(this.state);
  }

  /** Records the server's state; fires `changed` when the schema served changes. */
  set(state: ServerState): void {
    const before = this.served;
    this.state = state;
    if (this.served !== before) {
      this.changed(this.served);
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

