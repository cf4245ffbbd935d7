// VS Code extension: starts report-lsp for machine report files.

import * as vscode from "vscode";
import { LanguageClient, LanguageClientOptions, ServerOptions } from "vscode-languageclient/node";

import {
  DocumentStatus,
  Settings,
  describeStatus,
  documentSelectorFor,
  initializationOptionsFor,
  launchFor,
  restartNeeded,
} from "./config";

let client: LanguageClient | undefined;
let output: vscode.OutputChannel;
let current: Settings = {};

function readSettings(): Settings {
  const config = vscode.workspace.getConfiguration("reportLsp");
  return { path: config.get<string>("path"), files: config.get<string[]>("files") };
}

async function start(): Promise<void> {
  current = readSettings();
  const launch = launchFor(current);
  const serverOptions: ServerOptions = { command: launch.command, args: launch.args };
  const clientOptions: LanguageClientOptions = {
    documentSelector: documentSelectorFor(current),
    initializationOptions: initializationOptionsFor(current),
    synchronize: { configurationSection: "reportLsp" },
    outputChannel: output,
  };
  client = new LanguageClient("reportLsp", "Report LSP", serverOptions, clientOptions);
  try {
    await client.start();
    const info = client.initializeResult?.serverInfo;
    output.appendLine(`Started ${info?.name ?? "report-lsp"} ${info?.version ?? "(unknown version)"} from ${launch.command}`);
  } catch (error) {
    output.appendLine(`Could not start ${launch.command}: ${error}`);
    void vscode.window.showErrorMessage(
      `Report LSP: could not start "${launch.command}". Install it with \`cargo install --path .\` or set reportLsp.path.`,
    );
  }
}

async function stop(): Promise<void> {
  if (client) {
    await client.stop();
    client = undefined;
  }
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel("Report LSP");
  context.subscriptions.push(
    output,
    vscode.commands.registerCommand("reportLsp.restart", async () => {
      await stop();
      await start();
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
      if (event.affectsConfiguration("reportLsp") && restartNeeded(current, readSettings())) {
        await stop();
        await start();
      }
    }),
  );
  await start();
}

export async function deactivate(): Promise<void> {
  await stop();
}
