// Copies the release server into the extension (server/report-lsp), so the
// platform .vsix works without anything else installed. Run by
// `vscode:prepublish`. The binary comes from REPORT_LSP_SERVER, else from
// the workspace's release build (CARGO_TARGET_DIR honoured).
import { chmodSync, copyFileSync, existsSync, mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const extension = resolve(here, "..");
const repository = resolve(extension, "../..");
const target = process.env.CARGO_TARGET_DIR ? resolve(repository, process.env.CARGO_TARGET_DIR) : join(repository, "target");
const source = process.env.REPORT_LSP_SERVER || join(target, "release", "report-lsp");

if (!existsSync(source)) {
  console.error(
    `bundle-server: no server at ${source}. Build it first (cargo build --release --locked) or set REPORT_LSP_SERVER.`,
  );
  process.exit(1);
}
mkdirSync(join(extension, "server"), { recursive: true });
const destination = join(extension, "server", "report-lsp");
copyFileSync(source, destination);
chmodSync(destination, 0o755);
console.log(`bundle-server: ${source} -> ${destination}`);
