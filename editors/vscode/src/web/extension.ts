// VS Code for the Web (vscode.dev, github.dev): the extension's `browser`
// entry. It checks reports with the core built as WebAssembly (shipped as
// dist/web/report_wasm.wasm), speaking the same protocol as report-lsp to a
// server in a web worker (server.ts, worker.ts). Where
// the host refuses the worker (code-server refuses workers that a remotely
// installed extension creates), the same server runs here in the extension
// host, which is itself a worker, over a MessageChannel. There is no file
// system or git: the workspace checks are off and the hover says why, as
// the desktop extension's does in a restricted workspace.

import * as vscode from "vscode";
import { LanguageClient, LanguageClientOptions } from "vscode-languageclient/browser";

import { DEFAULT_FILES } from "../config";
import { EMPTY_SCHEMA, SCHEMA_SCHEME } from "../schema";
import { SHOW_SUMMARY, SummaryPanels } from "../summaryPanel";
import { READY, serve } from "./server";

let client: LanguageClient | undefined;

/** A line for the output channel, and the host's console (where a test reads it). */
function say(output: vscode.OutputChannel, line: string): void {
  output.appendLine(line);
  console.log(`report-lsp: ${line}`);
}

/** How long a worker may take to say it runs before the server runs here instead. */
const WORKER_WAIT_MS = 10_000;

/** A worker of the server's that said it runs, or why there is none. */
async function startWorker(script: vscode.Uri): Promise<Worker | string> {
  let worker: Worker;
  try {
    // Only this extension's own script, at a fixed place in its package:
    // nothing a workspace, its settings or a report names is ever run here
    // (reportLsp.path means nothing in a browser).
    worker = new Worker(script.toString(true));
  } catch (error) {
    return `the host refused one (${error})`;
  }
  const refusal = await new Promise<string | null>((resolve) => {
    const timer = setTimeout(() => resolve(`one did not start within ${WORKER_WAIT_MS / 1000} s`), WORKER_WAIT_MS);
    const settle = (why: string | null) => {
      clearTimeout(timer);
      resolve(why);
    };
    worker.addEventListener("message", (event) => event.data === READY && settle(null));
    worker.addEventListener("error", (event) => settle(`one failed to start (${event.message || "no reason given"})`));
  });
  if (refusal !== null) worker.terminate();
  return refusal ?? worker;
}

/** Where the server runs: its own worker, else a port whose other end this host serves. */
async function serverPort(context: vscode.ExtensionContext, output: vscode.OutputChannel): Promise<Worker | MessagePort> {
  const web = vscode.Uri.joinPath(context.extensionUri, "dist", "web");
  const bytes = await vscode.workspace.fs.readFile(vscode.Uri.joinPath(web, "report_wasm.wasm"));
  const worker = await startWorker(vscode.Uri.joinPath(web, "worker.js"));
  if (typeof worker !== "string") {
    // Its first message: the module, before the protocol's (a copy: the
    // bytes read may be a view of a larger buffer).
    const module = bytes.slice().buffer;
    worker.postMessage(module, [module]);
    say(output, "The report server runs in a web worker of its own.");
    return worker;
  }
  const { port1, port2 } = new MessageChannel();
  serve(port2, bytes);
  say(output, `The report server runs in the extension host: no web worker of its own, as ${worker}.`);
  return port1;
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel("Report LSP");
  context.subscriptions.push(
    output,
    // The report server validates every report here: the JSON server gets a schema that adds nothing.
    vscode.workspace.registerTextDocumentContentProvider(SCHEMA_SCHEME, { provideTextDocumentContent: () => EMPTY_SCHEMA }),
  );
  const clientOptions: LanguageClientOptions = {
    // Any scheme: a repository's files are not `file:` here.
    documentSelector: [{ language: "machine-report" }, ...DEFAULT_FILES.map((pattern) => ({ pattern }))],
    outputChannel: output,
  };
  client = new LanguageClient("reportLsp", "Report LSP", clientOptions, (await serverPort(context, output)) as Worker);
  const summaries = new SummaryPanels(
    () => client,
    (line) => output.appendLine(line),
  );
  context.subscriptions.push(
    summaries,
    client.onDidChangeState(() => summaries.serverChanged()),
    vscode.commands.registerCommand(SHOW_SUMMARY, async (argument?: unknown) => {
      const uri = summaries.target(argument);
      if (!uri) {
        void vscode.window.showInformationMessage("Report summary: open a report first, or pick one in the Explorer.");
        return;
      }
      // The server here reads no disk: the report is opened (not shown) for it.
      await vscode.workspace.openTextDocument(uri);
      summaries.show(uri);
    }),
    vscode.commands.registerCommand("reportLsp.restart", () => client?.restart()),
    vscode.commands.registerCommand("reportLsp.status", () => {
      say(output, "In a browser: the core as WebAssembly checks each open report whole, after each pause in typing.");
      output.show(true);
    }),
  );
  await client.start();
}

export async function deactivate(): Promise<void> {
  await client?.stop();
}
