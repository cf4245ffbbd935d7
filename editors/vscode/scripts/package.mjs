// Packages the extension for one `vsce --target` (report-lsp-TARGET.vsix),
// with the server for that platform inside, or the universal fallback
// (report-lsp-universal.vsix), with no server: it runs `report-lsp` from
// PATH and says how to install one when there is none.
//
//   npm run package -- [TARGET]      TARGET: one of TARGETS, or universal;
//                                    the host's platform when left out
//   npm run package:TARGET           the same, one script per target
//
// The server comes from REPORT_LSP_SERVER, else the workspace's release
// build (bundle-server.mjs, which vsce runs as vscode:prepublish, reads
// REPORT_LSP_VSCE_TARGET set here).
import { execFileSync } from "node:child_process";
import { arch, platform } from "node:process";
import { fileURLToPath } from "node:url";
import { dirname, resolve } from "node:path";

/** Every platform VS Code's marketplaces take a package for, that we build. */
const TARGETS = ["linux-x64", "linux-arm64", "alpine-x64", "darwin-x64", "darwin-arm64", "win32-x64"];

const target = process.argv[2] ?? `${platform}-${arch}`;
if (target !== "universal" && !TARGETS.includes(target)) {
  console.error(`package: unknown target ${target}; one of ${TARGETS.join(", ")}, or universal`);
  process.exit(2);
}
const extension = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const out = `report-lsp-${target}.vsix`;
const targetArgs = target === "universal" ? [] : ["--target", target];
// vsce from this package's own dependencies, whatever the caller's PATH.
const vsce = resolve(extension, "node_modules", "@vscode", "vsce", "vsce");
execFileSync(process.execPath, [vsce, "package", ...targetArgs, "--no-dependencies", "--out", out], {
  cwd: extension,
  stdio: "inherit",
  env: { ...process.env, REPORT_LSP_VSCE_TARGET: target },
});
console.log(`package: ${resolve(extension, out)}`);
