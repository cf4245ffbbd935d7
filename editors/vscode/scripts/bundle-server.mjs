// Copies the release server into the extension (server/report-lsp, or
// server/report-lsp.exe for Windows), so the platform .vsix works without
// anything else installed, and writes the JSON Schema it prints
// (`report-lsp schema`) to schema/report.schema.json, which the extension
// gives VS Code's JSON server while report-lsp is not running.
// Run by `vscode:prepublish`. The binary comes from REPORT_LSP_SERVER, else from
// the workspace's release build (CARGO_TARGET_DIR honoured), and must be one
// of the target's platform; the schema is printed by running it, so the
// target's platform is this one's (the release workflow packages each on
// its own runner). For the universal package (REPORT_LSP_VSCE_TARGET=universal,
// set by package.mjs) nothing is bundled: the binary only prints the schema.
import { execFileSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import { executableMismatch } from "../../../packaging/executable.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const extension = resolve(here, "..");
const repository = resolve(extension, "../..");
const target = process.env.CARGO_TARGET_DIR ? resolve(repository, process.env.CARGO_TARGET_DIR) : join(repository, "target");
const exe = process.platform === "win32" ? ".exe" : "";
const source = process.env.REPORT_LSP_SERVER || join(target, "release", `report-lsp${exe}`);
const vsceTarget = process.env.REPORT_LSP_VSCE_TARGET || `${process.platform}-${process.arch}`;

if (!existsSync(source)) {
  console.error(
    `bundle-server: no server at ${source}. Build it first (cargo build --release --locked) or set REPORT_LSP_SERVER.`,
  );
  process.exit(1);
}
// A server left from packaging another target never goes into this one.
rmSync(join(extension, "server"), { recursive: true, force: true });
let runnable = source;
if (vsceTarget === "universal") {
  console.log("bundle-server: universal package, no server bundled (report-lsp is found on PATH)");
} else {
  // alpine-x64 is Linux on x64 (musl, which the file's header cannot tell).
  const [os, cpu] = vsceTarget.replace(/^alpine-/, "linux-").split("-");
  const mismatch = executableMismatch(source, os, cpu);
  if (mismatch) {
    console.error(`bundle-server: ${mismatch}; set REPORT_LSP_SERVER to the ${vsceTarget} build.`);
    process.exit(1);
  }
  mkdirSync(join(extension, "server"), { recursive: true });
  const name = vsceTarget.startsWith("win32-") ? "report-lsp.exe" : "report-lsp";
  const destination = join(extension, "server", name);
  copyFileSync(source, destination);
  chmodSync(destination, 0o755);
  console.log(`bundle-server: ${source} -> ${destination} (${vsceTarget})`);
  runnable = destination;
}

// The schema comes from the binary bundled, so the two always agree.
const schema = execFileSync(runnable, ["schema"], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
JSON.parse(schema);
mkdirSync(join(extension, "schema"), { recursive: true });
const schemaFile = join(extension, "schema", "report.schema.json");
writeFileSync(schemaFile, schema);
console.log(`bundle-server: ${runnable} schema -> ${schemaFile}`);
