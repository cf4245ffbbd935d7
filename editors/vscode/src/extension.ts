// VS Code extension: starts report-lsp for machine report files. It
// activates only where reports are (a machine-report document, or a
// workspace containing report files), runs the server bundled in the
// platform .vsix unless reportLsp.path names another, and says once, naming
// that setting, when no server can be started. It contributes the report's
// JSON Schema to VS Code's JSON language server (see schema.ts): the full
// schema only while report-lsp is not running, so nothing is shown twice.
// In a restricted (untrusted) workspace the server's workspace checks are
// off (it reads nothing of the project, and its hover says why); they are
// turned on when the user trusts the workspace. "Report summary" shows the
// server's summary of a report in a webview beside it (summaryPanel.ts).

import { accessSync, chmodSync, constants, existsSync, readFileSync } from "node:fs";
import * as path from "node:path";

import * as vscode from "vscode";
import {
  DidChangeConfigurationNotification,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  State,
} from "vscode-languageclient/node";

import {
  DocumentStatus,
  Settings,
  configurationAnswers,
  describeStatus,
  documentSelectorFor,
  Launch,
  launchFor,
  restartNeeded,
  sectionFor,
  serverName,
  settingRemoved,
  unavailableMessage,
  userSection,
} from "./config";
import { BUNDLED_SCHEMA, JSON_EXTENSION, SCHEMA_SCHEME, SCHEMA_URL, SchemaSwitch } from "./schema";
import { stopQuietly } from "./stopping";
import { SHOW_SUMMARY, SummaryPanels } from "./summaryPanel";

let client: LanguageClient | undefined;
let output: vscode.OutputChannel;
let current: Settings = {};
/** The `reportLsp` settings the user set when the server last got them. */
let setKeys: string[] = [];
let extensionPath = "";
let schema: SchemaSwitch;
/** The "Report summary" panels (they ask the current client). */
let summaries: SummaryPanels | undefined;

/**
 * The `reportLsp` settings the user set (for `scope`, a workspace folder):
 * the defaults are left out, so that a project file's values hold.
 */
function userSettings(scope?: vscode.Uri): Record<string, unknown> {
  const config = vscode.workspace.getConfiguration("reportLsp", scope);
  // A plain object of the values: the configuration object also holds functions.
  const values: unknown = JSON.parse(JSON.stringify(config));
  return userSection(values, (key) => config.inspect(key));
}

function readSettings(): Settings {
  const config = vscode.workspace.getConfiguration("reportLsp");
  return {
    path: config.get<string>("path"),
    files: config.get<string[]>("files"),
    workspaceChecks: config.get<string>("workspaceChecks"),
    allowRootOutsideWorkspace: config.get<boolean>("allowRootOutsideWorkspace"),
  };
}

/** The server's command for its "since HEAD" code lens: it answers with the whole comparison. */
const SHOW_DIFF_SINCE_HEAD = "report-lsp.showDiffSinceHead";

/**
 * Sends the `reportLsp` section with the workspace's trust laid over it (the
 * server asks for it again, and gets the same through the middleware).
 * Sent here rather than by the client's `synchronize`, which knows no trust.
 */
function sendSettings(): void {
  if (!client) {
    return;
  }
  const values = userSettings();
  setKeys = Object.keys(values);
  void client
    .sendNotification(DidChangeConfigurationNotification.type, {
      settings: { reportLsp: sectionFor(values, vscode.workspace.isTrusted) },
    })
    .catch((error) => output.appendLine(`The settings could not be sent: ${error}`));
}

/** The server shipped in the platform .vsix, if this is one. */
function bundledServer(): string | undefined {
  const bundled = path.join(extensionPath, "server", serverName());
  if (!existsSync(bundled)) {
    return undefined;
  }
  try {
    // A .vsix is a zip: the executable bit may not survive every unpacking.
    accessSync(bundled, constants.X_OK);
  } catch {
    try {
      chmodSync(bundled, 0o755);
    } catch {
      // Reported below, when it cannot be run.
    }
  }
  return bundled;
}

/** Why `launch` cannot be run, or undefined when it can (as far as can be told before trying). */
function whyUnrunnable(launch: Launch): string | undefined {
  const runnable = (file: string) => {
    try {
      accessSync(file, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  if (launch.source === "path") {
    const dirs = (process.env.PATH ?? "").split(path.delimiter).filter((d) => d !== "");
    return dirs.some((dir) => runnable(path.join(dir, launch.command))) ? undefined : "not found on PATH";
  }
  if (!existsSync(launch.command)) {
    return "no such file";
  }
  return runnable(launch.command) ? undefined : "not executable";
}

/** The one message when the server cannot start, with a way to the setting. */
function showUnavailable(launch: Launch, reason: string): void {
  const message = unavailableMessage(launch, reason);
  output.appendLine(message);
  void vscode.window.showErrorMessage(message, "Open Settings").then((choice) => {
    if (choice) {
      void vscode.commands.executeCommand("workbench.action.openSettings", "reportLsp.path");
    }
  });
}

async function start(): Promise<void> {
  current = readSettings();
  const launch = launchFor(current, bundledServer());
  const reason = whyUnrunnable(launch);
  if (reason) {
    // Checked before starting: a client that fails to start shows its own
    // errors and retries, and the user would get several messages, none of
    // them naming the setting.
    schema.set("unavailable");
    showUnavailable(launch, reason);
    return;
  }
  const serverOptions: ServerOptions = { command: launch.command, args: launch.args };
  const clientOptions: LanguageClientOptions = {
    documentSelector: documentSelectorFor(current),
    // What the user set, and the trust over it, so that no report opened
    // before the server asks for its settings is checked against an untrusted project.
    initializationOptions: sectionFor(userSettings(), vscode.workspace.isTrusted),
    middleware: {
      // The comparison with HEAD comes back as text: shown beside the report.
      executeCommand: async (command, args, next) => {
        const result = await next(command, args);
        if (command === SHOW_DIFF_SINCE_HEAD && typeof result === "string") {
          const document = await vscode.workspace.openTextDocument({ content: result, language: "plaintext" });
          await vscode.window.showTextDocument(document, { preview: true, viewColumn: vscode.ViewColumn.Beside });
        }
        return result;
      },
      workspace: {
        // The server's workspace/configuration pulls: the trust is laid over VS Code's answer.
        configuration: async (params, token, next) => {
          const answers = await next(params, token);
          if (!Array.isArray(answers)) {
            return answers;
          }
          // Only what the user set: the server lays it over the project file.
          const user = answers.map((answer, i) => {
            const item = params.items[i];
            return item?.section === "reportLsp" ? userSettings(item.scopeUri ? vscode.Uri.parse(item.scopeUri) : undefined) : answer;
          });
          return configurationAnswers(params.items, user, vscode.workspace.isTrusted);
        },
      },
    },
    outputChannel: output,
  };
  const started = new LanguageClient("reportLsp", "Report LSP", serverOptions, clientOptions);
  client = started;
  schema.set("starting");
  // A crash (the client restarts the server a few times, then gives up) or a
  // stop hands the report to the JSON server's full schema, and back.
  started.onDidChangeState(({ newState }) => {
    if (client === started) {
      schema.set(newState === State.Running ? "running" : newState === State.Starting ? "starting" : "stopped");
      if (newState !== State.Starting) {
        summaries?.serverChanged();
      }
    }
  });
  try {
    await client.start();
    const info = client.initializeResult?.serverInfo;
    output.appendLine(
      `Started ${info?.name ?? "report-lsp"} ${info?.version ?? "(unknown version)"} from ${launch.command} (${launch.source})`,
    );
  } catch (error) {
    client = undefined;
    schema.set("unavailable");
    showUnavailable(launch, String(error));
  }
}

async function stop(): Promise<void> {
  if (client) {
    const stopping = client;
    client = undefined;
    await stopQuietly(stopping, (line) => output.appendLine(line));
  }
  schema.set("stopped");
  summaries?.serverChanged();
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  extensionPath = context.extensionPath;
  output = vscode.window.createOutputChannel("Report LSP");
  // Registered before anything is awaited: the JSON server may be asking for
  // the schema already (the onFileSystem activation event waits for this).
  const schemaChanged = new vscode.EventEmitter<vscode.Uri>();
  const schemaUri = vscode.Uri.parse(SCHEMA_URL);
  schema = new SchemaSwitch(
    () => readFileSync(path.join(extensionPath, BUNDLED_SCHEMA), "utf8"),
    (served) => {
      schemaChanged.fire(schemaUri);
      if (served === "full") {
        // Nothing else validates the report now; the JSON extension may not be running.
        void Promise.resolve(vscode.extensions.getExtension(JSON_EXTENSION)?.activate()).catch((error) =>
          output.appendLine(`${JSON_EXTENSION} could not be activated: ${error}`),
        );
      }
    },
    { onMissing: (error) => output.appendLine(`No bundled JSON Schema (${BUNDLED_SCHEMA}): ${error}`) },
  );
  context.subscriptions.push(
    schema,
    schemaChanged,
    vscode.workspace.registerTextDocumentContentProvider(SCHEMA_SCHEME, {
      onDidChange: schemaChanged.event,
      provideTextDocumentContent: () => schema.content(),
    }),
  );
  context.subscriptions.push(
    output,
    vscode.commands.registerCommand("reportLsp.restart", async () => {
      await stop();
      await start();
    }),
    (summaries = new SummaryPanels(
      () => client,
      (line) => output.appendLine(line),
    )),
    // The Explorer passes the file's URI (a report VS Code does not sync, over 50 MB, too).
    vscode.commands.registerCommand(SHOW_SUMMARY, (argument?: unknown) => {
      const uri = summaries?.target(argument);
      if (!uri) {
        void vscode.window.showInformationMessage("Report summary: open a report first, or pick one in the Explorer.");
        return;
      }
      summaries?.show(uri);
    }),
    vscode.commands.registerCommand("reportLsp.status", async () => {
      const document = vscode.window.activeTextEditor?.document;
      if (!client || !document) {
        return;
      }
      const name = vscode.workspace.asRelativePath(document.uri);
      try {
        const status = await client.sendRequest<DocumentStatus | null>("report-lsp/status", {
          uri: client.code2ProtocolConverter.asUri(document.uri),
        });
        output.appendLine(describeStatus(name, status));
      } catch (error) {
        output.appendLine(`${name}: ${error}`);
      }
      output.show(true);
    }),
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (!event.affectsConfiguration("reportLsp")) {
        return;
      }
      if (restartNeeded(current, readSettings()) || settingRemoved(setKeys, Object.keys(userSettings()))) {
        await stop();
        await start();
      } else {
        current = readSettings();
        sendSettings();
      }
    }),
    // Trusted now: the workspace checks run (unless the setting turns them off).
    vscode.workspace.onDidGrantWorkspaceTrust(() => sendSettings()),
  );
  await start();
}

export async function deactivate(): Promise<void> {
  await stop();
}
