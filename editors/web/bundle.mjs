// Writes the page into dist/ beside the module build.sh built there:
//   index.html      this folder's page, the loader (report-wasm.mjs) in its worker's script;
//   report-wasm.js  the module's bytes in a classic script: a page opened
//                   from file:// may load a script beside it, not fetch a file.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = path.join(here, "dist");
const loader = fs.readFileSync(path.join(here, "report-wasm.mjs"), "utf8").replace(/^export /gm, "");
if (loader.includes("</script")) throw new Error("the loader would end the page's script early");
const page = fs.readFileSync(path.join(here, "index.html"), "utf8");
if (!page.includes("/*LOADER*/")) throw new Error("the page has no place for the loader");
fs.writeFileSync(path.join(dist, "index.html"), page.replace("/*LOADER*/", () => loader));
const wasm = fs.readFileSync(path.join(dist, "report_wasm.wasm")).toString("base64");
fs.writeFileSync(
  path.join(dist, "report-wasm.js"),
  `// report_wasm.wasm in base64, written by editors/web/bundle.mjs.\nglobalThis.REPORT_WASM_BASE64 = "${wasm}";\n`,
);
