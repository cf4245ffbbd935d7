// Copies the core built as WebAssembly (editors/web/dist/report_wasm.wasm,
// from editors/web/build.sh) to dist/web, where the browser entry reads it.
// Run by `npm run build:web`.
import { copyFileSync, existsSync, mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const extension = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const module = resolve(extension, "../web/dist/report_wasm.wasm");
if (!existsSync(module)) {
  console.error(`copy-module: no ${module}. Build it first: bash editors/web/build.sh`);
  process.exit(1);
}
mkdirSync(join(extension, "dist", "web"), { recursive: true });
copyFileSync(module, join(extension, "dist", "web", "report_wasm.wasm"));
